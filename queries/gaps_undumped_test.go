package queries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// copyTree copies the folder src to dst (files and folders only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if de.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGapsComparesTheCutWithTheDump: gaps holds each partition's data to
// the high watermark its last cut recorded, by where the dump reached (the
// manifest's next_offset), not by the last record's offset. A partition
// put back from an older copy of the folder (its data ends below the cut's
// high watermark, contiguous) fails, the range named; a dump stopped by
// --until warns; a partition whose last offsets are a transaction's marker
// is whole.
func TestGapsComparesTheCutWithTheDump(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("undumped-%d", time.Now().UnixNano())
	if err := dump.CreateTopic(ctx, conn, topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	plain := dumptest.Producer(t, bs, kgo.DefaultProduceTopic(topic))
	txn, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.TransactionalID("tx-"+topic), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	// produce writes n records to partition 0 and a committed transaction
	// of n to partition 1 (its last offset a marker, no record).
	produce := func(n int) {
		for i := range n {
			dumptest.Produce(t, plain, &kgo.Record{Partition: 0, Value: fmt.Appendf(nil, `{"i":%d}`, i)})
		}
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := txn.ProduceSync(ctx, &kgo.Record{Partition: 1, Value: fmt.Appendf(nil, `{"i":%d}`, i)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		dumptest.WaitStable(t, bs, topic)
	}
	gaps := func(dir string) *Report {
		t.Helper()
		e, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	dir := t.TempDir()
	p0 := filepath.Join(dir, "topic="+topic, "partition=0")
	older := filepath.Join(t.TempDir(), "partition=0")

	produce(10)
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	copyTree(t, p0, older) // a copy of partition 0 as the first dump left it: offsets 0-9
	produce(5)
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}

	r := gaps(dir)
	if r.Status != StatusOK || asInt(r.Summary.Get("undumped_offsets")) != 0 || asInt(r.Summary.Get("control_records")) != 2 {
		t.Fatalf("a whole folder (partition 1 ending on a marker): %s %s %v", r.Status, r.Message, r.Summary.Vals)
	}

	// Partition 0 put back from the older copy: offsets 10-14 were in Kafka
	// at the last cut and are in no file.
	if err := os.RemoveAll(p0); err != nil {
		t.Fatal(err)
	}
	copyTree(t, older, p0)
	r = gaps(dir)
	if r.Status != StatusFail || asInt(r.Summary.Get("undumped_offsets")) != 5 || asInt(r.Summary.Get("missing_offsets")) != 0 ||
		!strings.Contains(r.Message, "5 offsets Kafka held at the partition's last cut are not in the folder on 1 of 2 partitions: partition 0 offsets 10-14") {
		t.Fatalf("partition 0 put back from an older copy: %s %s %v", r.Status, r.Message, r.Summary.Vals)
	}
	var found bool
	for _, row := range r.Rows {
		if row.Get("kind") == holeUndumped {
			found = true
			if asInt(row.Get("partition")) != 0 || asInt(row.Get("from_offset")) != 10 || asInt(row.Get("to_offset")) != 14 ||
				asInt(row.Get("high_watermark")) != 15 || row.Get("snapshot") == "" {
				t.Errorf("undumped row: %v", row.Vals)
			}
		}
		if row.Get("kind") == "partition" && asInt(row.Get("partition")) == 0 && asInt(row.Get("undumped_offsets")) != 5 {
			t.Errorf("partition row: %v", row.Vals)
		}
	}
	if !found {
		t.Errorf("no undumped row: %v", r.Rows)
	}

	// A dump told to stop short of the cut: said, a warning.
	until := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: until, Topics: []string{topic}, Until: "12"}); err != nil {
		t.Fatal(err)
	}
	r = gaps(until)
	if r.Status != StatusWarn || asInt(r.Summary.Get("undumped_offsets")) != 3+5 || !strings.Contains(r.Message, "--until") {
		t.Fatalf("a dump --until 12: %s %s %v", r.Status, r.Message, r.Summary.Vals)
	}
}
