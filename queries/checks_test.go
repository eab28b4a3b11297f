package queries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

func brokers(t *testing.T) []string { return dumptest.Brokers(t) }

var (
	teaOnce sync.Once
	teaDir  string
	teaData *seeds.TeaShopData
	teaErr  error
)

// teaShop dumps the tea shop's Monday once per test binary, from the
// cluster under test, into a folder shared by the checks' tests.
func teaShop(t *testing.T) (string, *seeds.TeaShopData) {
	t.Helper()
	bs := brokers(t)
	teaOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		dir, err := os.MkdirTemp("", "topicsnap-teashop-")
		if err != nil {
			teaErr = err
			return
		}
		teaDir = dir
		teaData = seeds.TeaShop(seeds.TeaShopConfig{Users: 1500, Seed: 7})
		topic := fmt.Sprintf("app_events_%d", time.Now().UnixNano())
		conn := kafkaconn.Conn{Brokers: bs}
		if teaErr = dump.CreateTopic(ctx, conn, topic, seeds.AppEventsPartitions, keepForever); teaErr != nil {
			return
		}
		recs := make([]dump.Record, len(teaData.Events))
		for i, e := range teaData.Events {
			var hs []kgo.RecordHeader
			for _, h := range e.Headers {
				hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Value})
			}
			recs[i] = dump.Record{Topic: topic, Partition: e.Partition, Key: e.Key, Value: e.Value, Timestamp: e.Timestamp, Headers: hs}
		}
		if teaErr = dump.Produce(ctx, conn, recs); teaErr != nil {
			return
		}
		if _, teaErr = dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); teaErr != nil {
			return
		}
		// Rename the topic's folder to app_events so the views carry the seed's name.
		teaErr = os.Rename(filepath.Join(dir, "topic="+topic), filepath.Join(dir, "topic=app_events"))
		if teaErr != nil {
			return
		}
		f, err := os.Create(filepath.Join(dir, "orders.csv"))
		if err != nil {
			teaErr = err
			return
		}
		teaErr = teaData.OrdersCSV(f)
		f.Close()
	})
	if teaErr != nil {
		t.Fatalf("load the tea shop: %v", teaErr)
	}
	return teaDir, teaData
}

// keepForever stops retention from deleting the generated day, whose
// timestamps are in the past.
var keepForever = map[string]*string{"retention.ms": ptr("-1")}

func ptr(s string) *string { return &s }

func TestMain(m *testing.M) {
	code := m.Run()
	if teaDir != "" {
		os.RemoveAll(teaDir)
	}
	if fuzzDir != "" {
		os.RemoveAll(fuzzDir)
	}
	os.Exit(code)
}

func summary(r *Report) map[string]any { return r.Summary.Vals }

func TestChecksOnTheTeaShop(t *testing.T) {
	dir, data := teaShop(t)
	// The manifests name the original topic; rewrite them so the folder is
	// consistent after the rename.
	fixManifests(t, dir)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	tr := data.Truth
	run := func(name string, o CheckOptions) *Report {
		t.Helper()
		o.Topic = "app_events"
		r, err := e.RunCheck(ctx, name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	eq := func(r *Report, key string, want any) {
		t.Helper()
		got := summary(r)[key]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %s = %v, want %v (message: %s)", r.Check, key, got, want, r.Message)
		}
	}
	g := run("gaps", CheckOptions{})
	eq(g, "partitions", 6)
	eq(g, "records", tr.Events)
	eq(g, "missing_offsets", 0)
	if g.Status != StatusOK || g.Message != "0 missing offsets on all 6 partitions" {
		t.Errorf("gaps: %s %q", g.Status, g.Message)
	}
	d := run("duplicates", CheckOptions{ID: "value.event_id"})
	eq(d, "records", tr.Events)
	eq(d, "distinct_ids", tr.DistinctEventIDs)
	eq(d, "duplicate_ids", tr.DuplicateIDs)
	eq(d, "extra_copies", tr.ExtraCopies)
	db := run("duplicates", CheckOptions{ID: "value.event_id", By: "value.event_name"})
	found := false
	for _, r := range db.Rows {
		if r.Get("kind") == "by" && r.Get("by") == "order_completed" {
			found = true
			if fmt.Sprint(r.Get("records")) != fmt.Sprint(tr.CompletedTickets) {
				t.Errorf("order_completed tickets %v, want %d", r.Get("records"), tr.CompletedTickets)
			}
		}
	}
	if !found {
		t.Errorf("no order_completed row in duplicates --by")
	}
	s := run("skew", CheckOptions{WhatIfKey: "value.city"})
	eq(s, "partitions", 6)
	eq(s, "records", tr.Events)
	for _, r := range s.Rows {
		if r.Get("kind") == "partition" {
			p := int(asInt(r.Get("partition")))
			if asInt(r.Get("records")) != int64(tr.PerPartition[p]) {
				t.Errorf("skew partition %d: %v records, want %d", p, r.Get("records"), tr.PerPartition[p])
			}
		}
	}
	m := run("missing", CheckOptions{Where: "value.event_name = 'order_completed'", Match: "value.order_id",
		Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id", By: "platform"})
	eq(m, "expected", tr.Orders)
	eq(m, "missing", tr.OrdersMissingCompleted)
	for _, r := range m.Rows {
		if r.Get("kind") == "by" {
			if want := tr.MissingByPlatform[r.Get("by").(string)]; asInt(r.Get("missing")) != int64(want) {
				t.Errorf("missing on %v: %v, want %d", r.Get("by"), r.Get("missing"), want)
			}
		}
	}
	k := run("keys", CheckOptions{})
	eq(k, "misplaced_records", 0)
	eq(k, "partitioner", "murmur2")
	eq(k, "split_keys", 0)
	for _, name := range []string{"order", "freshness", "lag"} {
		if r := run(name, CheckOptions{}); r.Status == "" || r.Message == "" {
			t.Errorf("%s: empty verdict", name)
		}
	}
	// Bad expressions are refused, never run.
	for _, bad := range []string{"value.event_id) FROM app_events; DROP TABLE files; --", "(SELECT * FROM read_csv('/etc/passwd'))", "nosuchcolumn"} {
		if _, err := e.RunCheck(ctx, "duplicates", CheckOptions{Topic: "app_events", ID: bad}); err == nil {
			t.Errorf("--id %q was accepted", bad)
		}
	}
}

// fixManifests rewrites the topic name inside manifests after a folder rename.
func fixManifests(t *testing.T, dir string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "topic=app_events", "partition=*", "manifest.json"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i := strings.Index(s, `"topic": "`)
		j := strings.Index(s[i+10:], `"`)
		s = s[:i+10] + "app_events" + s[i+10+j:]
		os.WriteFile(p, []byte(s), 0o644)
	}
}
