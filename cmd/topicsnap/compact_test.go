package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// compactRound produces one round of records to topic's three partitions:
// plain ones (null and empty keys and values, duplicate headers, a null
// header value), a committed transaction and an aborted one, each with
// its marker.
func compactRound(t *testing.T, bs []string, topic string, round int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	plain, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var recs []*kgo.Record
	for i := range 30 {
		r := &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprintf("k%d-%d", round, i)),
			Value: []byte(fmt.Sprintf(`{"id":%d,"round":%d}`, round*100+i, round))}
		switch i % 5 {
		case 0:
			r.Key, r.Value = nil, nil
		case 1:
			r.Key, r.Value = []byte{}, []byte{}
		case 2:
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: nil}, {Key: "h", Value: []byte{}}, {Key: "trace", Value: []byte{0xff, 0}}}
		}
		recs = append(recs, r)
	}
	if err := plain.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	for _, commit := range []bool{true, false} {
		txn, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.TransactionalID(fmt.Sprintf("%s-%d-%v", topic, round, commit)))
		if err != nil {
			t.Fatal(err)
		}
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var trecs []*kgo.Record
		for i := range 6 {
			trecs = append(trecs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprintf("t%d-%d", round, i)),
				Value: []byte(fmt.Sprintf(`{"id":%d,"commit":%v}`, 10_000+round*100+i, commit))})
		}
		if err := txn.ProduceSync(ctx, trecs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
		txn.Close()
	}
	dumptest.WaitStable(t, bs, topic)
}

// answers is what the folder answers about topic: every row in order, and
// every check, as JSON.
func answers(t *testing.T, dir, topic string) map[string]string {
	t.Helper()
	out := map[string]string{}
	q := fmt.Sprintf(`SELECT * FROM %q ORDER BY "partition", "offset"`, topic)
	code, rows, errs := cli(t, "sql", "--dir", dir, "-c", q, "--format", "json")
	if code != 0 {
		t.Fatalf("sql: exit %d: %s", code, errs)
	}
	out["rows"] = rows
	// The view of every row: markers and aborted records too.
	q = fmt.Sprintf(`SELECT * FROM %q ORDER BY "partition", "offset"`, topic+"$all")
	code, rows, errs = cli(t, "sql", "--dir", dir, "-c", q, "--format", "json")
	if code != 0 {
		t.Fatalf("sql $all: exit %d: %s", code, errs)
	}
	out["all rows"] = rows
	code, checks, errs := cli(t, "check", "all", "--dir", dir, "--topic", topic, "--format", "json",
		"--id", "value.id", "--match", "value.id", "--against-topic", topic, "--against-match", "value.id")
	if code > 1 {
		t.Fatalf("check all: exit %d: %s", code, errs)
	}
	out["checks"] = checks
	for _, c := range []string{"gaps", "order", "duplicates", "skew"} {
		args := []string{"check", c, "--dir", dir, "--topic", topic, "--format", "json"}
		if c == "duplicates" {
			args = append(args, "--id", "key")
		}
		code, o, errs := cli(t, args...)
		if code > 1 {
			t.Fatalf("check %s: exit %d: %s", c, code, errs)
		}
		out["check "+c] = o
	}
	code, lost, errs := cli(t, "sql", "--dir", dir, "-c", "SELECT * FROM lost_ranges ORDER BY ALL", "--format", "json")
	if code != 0 {
		t.Fatalf("sql lost_ranges: exit %d: %s", code, errs)
	}
	out["lost_ranges"] = lost
	return out
}

// fileCount is the number of files the folder's manifests list for topic.
func fileCount(t *testing.T, dir, topic string) int {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range ms {
		n += len(m.Files)
	}
	return n
}

// TestCompactAnswersIdentically: a folder of many small files (six dumps,
// each with transactions committed and aborted, their markers, nulls and
// headers) answers every check and SELECT * the same, byte for byte, after
// catalog compact; an incremental dump after it goes on from where the
// folder was, and a compact after that merges the new files too.
func TestCompactAnswersIdentically(t *testing.T) {
	bs := brokers(t)
	b := strings.Join(bs, ",")
	dir := t.TempDir()
	topic := fmt.Sprintf("compact-%d", time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := dump.CreateTopic(ctx, kafkaconn.Conn{Brokers: bs}, topic, 3, nil); err != nil {
		t.Fatal(err)
	}
	for round := range 6 {
		compactRound(t, bs, topic, round)
		if code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir, "--file-rows", "7"); code != 0 {
			t.Fatalf("dump %d: exit %d: %s %s", round, code, out, errs)
		}
	}
	before := answers(t, dir, topic)
	filesBefore := fileCount(t, dir, topic)

	code, out, errs := cli(t, "catalog", "compact", "--dir", dir, "--min-age", "0s", "--grace", "0s")
	if code != 0 {
		t.Fatalf("compact: exit %d: %s %s", code, out, errs)
	}
	t.Log(strings.TrimSpace(out))
	filesAfter := fileCount(t, dir, topic)
	if filesAfter != 3 || filesBefore < 30 {
		t.Fatalf("%d files before compact, %d after (want one a partition)", filesBefore, filesAfter)
	}
	after := answers(t, dir, topic)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s differs after compact:\nbefore %s\nafter  %s", k, v, after[k])
		}
	}
	if !strings.Contains(before["all rows"], `"control_type":"abort"`) || !strings.Contains(before["all rows"], `"aborted":true`) {
		t.Fatalf("the folder holds no aborted transaction: the test proves less than it says")
	}
	if code, out, _ := cli(t, "catalog", "verify", "--dir", dir); code != 0 || !strings.Contains(out, "all match") {
		t.Fatalf("verify after compact: %d %s", code, out)
	}
	// Nothing left beside the manifests' files.
	for p := range 3 {
		names, _ := filepath.Glob(filepath.Join(dir, "topic="+topic, fmt.Sprintf("partition=%d", p), "*.parquet"))
		if len(names) != 1 {
			t.Fatalf("partition %d holds %d data files after compact: %v", p, len(names), names)
		}
	}

	// An incremental dump goes on after the merged files.
	compactRound(t, bs, topic, 6)
	if code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir, "--file-rows", "7"); code != 0 || !strings.Contains(out, "dumped") {
		t.Fatalf("dump after compact: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = cli(t, "sql", "--dir", dir, "-c", fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT "partition" * 1000000 + "offset") AS d, count(*) FILTER (WHERE NOT is_control) AS data FROM %q`, topic+"$all"), "--format", "json")
	var got []map[string]int
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got) != 1 {
		t.Fatalf("count after the dump: %d %s %s", code, out, errs)
	}
	// 7 rounds of 30 plain + 2×6 transactional records, and 2 markers a
	// transaction on each of the 3 partitions it wrote.
	if want := 7 * (30 + 12 + 2*3); got[0]["n"] != want || got[0]["d"] != want || got[0]["data"] != 7*42 {
		t.Fatalf("after compact and an incremental dump: %v rows, want %d, each offset once", got[0], want)
	}
	if code, out, _ := cli(t, "check", "gaps", "--dir", dir, "--topic", topic); code != 0 || !strings.HasPrefix(out, "OK gaps") {
		t.Fatalf("gaps after the dump: %d %s", code, out)
	}
	code, out, errs = cli(t, "catalog", "compact", "--dir", dir, "--min-age", "0s", "--grace", "0s")
	if code != 0 || fileCount(t, dir, topic) != 3 {
		t.Fatalf("compact again: exit %d, %d files: %s %s", code, fileCount(t, dir, topic), out, errs)
	}
	if code, out, _ := cli(t, "catalog", "verify", "--dir", dir); code != 0 {
		t.Fatalf("verify at the end: %d %s", code, out)
	}
}

// TestCompactUsageErrors: a flag compact cannot read is a usage error
// naming it (exit 2), a folder that is not one is exit 11, and a folder
// with nothing to merge says so and exits 0.
func TestCompactUsageErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--target-size", "lots"}, 2, `--target-size "lots": use a size such as 128MiB`},
		{[]string{"--target-size", "0"}, 2, `--target-size "0"`},
		{[]string{"--min-age", "-1h"}, 2, "--min-age and --grace must not be negative"},
		{[]string{"--partitions", "3-1"}, 2, "--partitions"},
		{[]string{"--min-age", "soon"}, 2, "--min-age"},
		{[]string{"--dir", filepath.Join(empty, "nosuch")}, exitNoCatalog, "does not exist"},
		{nil, 0, "compact: 0 partitions, 0 files before, 0 after"},
	} {
		args := append([]string{"catalog", "compact", "--dir", empty}, tc.args...)
		code, out, errs := cli(t, args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%v: exit %d (want %d), %q %q (want %q)", tc.args, code, tc.code, out, errs, tc.want)
		}
	}
}
