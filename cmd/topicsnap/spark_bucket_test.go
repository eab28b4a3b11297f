package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/queries"
)

// TestBucketOnSpark: a topic dumped into a bucket of the real S3 server
// (scripts/s3.sh) is read by the real Spark Connect server
// (scripts/spark.sh, hadoop-aws on its classpath) where it lives, through
// s3a://, and every check gives the same JSON document there as on DuckDB
// (which reads the bucket through its local cache).
func TestBucketOnSpark(t *testing.T) {
	remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE")
	if remote == "" {
		t.Skip("TOPICSNAP_TEST_SPARK_REMOTE not set (make test starts Spark Connect with scripts/spark.sh)")
	}
	bs := brokers(t)
	loc, ep := testBucket(t)
	ctx := t.Context()
	conn := kafkaconn.Conn{Brokers: bs}
	var rb [3]byte
	rand.Read(rb[:])
	topic := "spark_bucket_" + hex.EncodeToString(rb[:])
	// Kept for ever: the records are dated September 2026.
	if err := dump.CreateTopic(ctx, conn, topic, 3, map[string]*string{"retention.ms": &forever}); err != nil {
		t.Fatal(err)
	}
	const n = 3_000
	start := time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC)
	cities := []string{"Harbor", "Ridge", "Mill", "Dune"}
	recs := make([]dump.Record, n)
	for i := range recs {
		id := i
		if i%97 == 0 && i > 0 {
			id = i - 1 // a duplicate of the one before
		}
		at := start.Add(time.Duration(i) * time.Second)
		key := []byte(fmt.Sprint("user-", i%50))
		if i%13 == 0 {
			key = nil
		}
		recs[i] = dump.Record{Topic: topic, Partition: int32(i % 3), Key: key, Timestamp: at,
			Value: []byte(fmt.Sprintf(`{"id":"e%d","city":%q,"amount":%d.5,"ts":%q}`, id, cities[i%len(cities)], i%40, at.Format(time.RFC3339)))}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	group := topic + "-readers"
	if err := dump.CommitGroupOffsets(ctx, conn, group, topic, map[int32]int64{0: 700, 1: 450, 2: 999}); err != nil {
		t.Fatal(err)
	}
	s3 := []string{"--s3-endpoint", ep, "--s3-cache", filepath.Join(t.TempDir(), "cache")}
	code, out, errs := cli(t, append([]string{"dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", loc, "--file-rows", "400"}, s3...)...)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("dumped %d records", n)) {
		t.Fatalf("dump to the bucket: %d %q %q", code, out, errs)
	}
	args := append([]string{"check", "all", "--dir", loc, "--topic", topic, "--format", "json",
		"--id", "value.id", "--what-if-key", "value.city", "--event-time", "value.ts",
		"--match", "value.id", "--against-topic", topic, "--against-match", "value.id", "--where", "value.city <> 'Dune'",
		"--group", group, "--to-time", start.Add(20 * time.Minute).Format(time.RFC3339)}, s3...)
	var docs [2][]map[string]any
	for i, engine := range [][]string{nil, {"--engine", "spark", "--spark-remote", remote}} {
		code, out, errs := cli(t, append(args, engine...)...)
		if code == 2 || strings.Contains(errs, os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY")) {
			t.Fatalf("check all %v: exit %d\n%s", engine, code, errs)
		}
		if err := json.Unmarshal([]byte(out), &docs[i]); err != nil {
			t.Fatalf("check all %v: %v\n%s\n%s", engine, err, out, errs)
		}
	}
	// Spark read the files in the bucket, not the local cache's.
	code, out, errs = cli(t, append([]string{"sql", "--dir", loc, "--engine", "spark", "--spark-remote", remote, "--format", "csv",
		"-c", fmt.Sprintf(`SELECT DISTINCT input_file_name() AS f FROM %s ORDER BY 1`, topic)}, s3...)...)
	files := strings.Fields(strings.TrimPrefix(out, "f\n"))
	if code != 0 || len(files) != 9 {
		t.Fatalf("the files Spark read: exit %d, %q %s", code, out, errs)
	}
	for _, f := range files {
		if !strings.HasPrefix(f, "s3a://"+strings.TrimPrefix(loc, "s3://")+"/topic="+topic+"/partition=") {
			t.Errorf("Spark read %s, not the bucket's file", f)
		}
	}
	duck, sp := docs[0], docs[1]
	if len(duck) != len(queries.CheckNames) || len(sp) != len(duck) {
		t.Fatalf("%d reports on DuckDB, %d on Spark; want %d", len(duck), len(sp), len(queries.CheckNames))
	}
	for i := range duck {
		name := duck[i]["check"]
		if duck[i]["status"] == "skipped" {
			t.Errorf("%s skipped on DuckDB: %v", name, duck[i]["message"])
			continue
		}
		if c, _ := queries.LookupCheck(fmt.Sprint(name)); c.NotOn["spark"] != "" {
			// Not available on Spark: said so, never a different answer.
			if sp[i]["status"] != "skipped" {
				t.Errorf("%s on Spark: %v, want skipped (%s)", name, sp[i]["status"], c.NotOn["spark"])
			}
			continue
		}
		if d := agreeJSON("$", duck[i], sp[i]); d != "" {
			t.Errorf("%s on the bucket: DuckDB and Spark differ: %s", name, d)
		}
	}
}

// agreeJSON is where two decoded JSON documents first differ, numbers to
// 1e-9 (relative for large ones); "" when they agree.
func agreeJSON(at string, x, y any) string {
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		if !ok || math.Abs(xv-yv) > 1e-9*math.Max(1, math.Abs(xv)) {
			return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
		}
		return ""
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
		}
		for k := range xv {
			if d := agreeJSON(at+"."+k, xv[k], yv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s: %d items (DuckDB) vs %v (Spark)", at, len(xv), y)
		}
		for i := range xv {
			if d := agreeJSON(fmt.Sprintf("%s[%d]", at, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
	}
	return ""
}
