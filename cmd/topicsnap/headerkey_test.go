package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestHeaderKeyNotUTF8Readable: Kafka keeps a header key's bytes, and a
// client other than Java's may write any. A dumped record with header key
// 0xff 0xfe could not be read in SQL at all: `sql -c "SELECT headers FROM
// t"` exited 9 with "damaged snapshot folder … Invalid string encoding
// found in Parquet file". The key is now stored as bytes: headers read
// with that key NULL and its bytes in key_raw (as the key and key_raw
// columns are), checks answer, and restore produces the same bytes back.
func TestHeaderKeyNotUTF8Readable(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t", "back"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bs := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.DefaultProduceTopic("t"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bad := string([]byte{0xff, 0xfe})
	recs := []*kgo.Record{
		{Key: []byte("a"), Value: []byte("x"), Headers: []kgo.RecordHeader{{Key: bad, Value: []byte("x")}, {Key: "ok", Value: []byte("y")}}},
		{Key: []byte("b"), Value: []byte("y"), Headers: []kgo.RecordHeader{{Key: "ok", Value: []byte("z")}}},
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, out, errs := cli(t, "dump", "--brokers", bs[0], "--topic", "t", "--dir", dir); code != 0 {
		t.Fatalf("dump: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := cli(t, "sql", "--dir", dir, "--format", "json", "-c",
		`SELECT h."key" AS k, h.key_raw AS raw, h."value" AS v FROM (SELECT unnest(headers) AS h, "offset" FROM t) ORDER BY "offset", k NULLS FIRST`)
	if code != 0 {
		t.Fatalf("sql: exit %d\n%s%s", code, out, errs)
	}
	var got []struct {
		K   *string `json:"k"`
		Raw []byte  `json:"raw"`
		V   []byte  `json:"v"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != 3 || got[0].K != nil || string(got[0].Raw) != bad || string(got[0].V) != "x" ||
		got[1].K == nil || *got[1].K != "ok" || string(got[1].Raw) != "ok" || got[2].K == nil || string(got[2].V) != "z" {
		t.Fatalf("headers: %s", out)
	}
	// The whole row reads, as every surface prints it.
	if code, out, errs := cli(t, "sql", "--dir", dir, "-c", `SELECT * FROM t`); code != 0 || !strings.Contains(out, `"key_raw":"\\xFF\\xFE"`) {
		t.Fatalf("SELECT *: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cli(t, "check", "duplicates", "--dir", dir, "--topic", "t", "--id", "key"); code != 0 {
		t.Fatalf("check duplicates: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := cli(t, "restore", "--brokers", bs[0], "--dir", dir, "--topic", "t", "--to-topic", "back"); code != 0 {
		t.Fatalf("restore: exit %d\n%s%s", code, out, errs)
	}
	rc, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.ConsumeTopics("back"), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var back []*kgo.Record
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for len(back) < 2 && ctx.Err() == nil {
		back = append(back, rc.PollFetches(ctx).Records()...)
	}
	if len(back) != 2 || len(back[0].Headers) != 2 || back[0].Headers[0].Key != bad || string(back[0].Headers[0].Value) != "x" || back[0].Headers[1].Key != "ok" {
		t.Fatalf("restored: %+v", back)
	}
}
