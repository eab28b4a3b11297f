package segments_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/segments"
)

// countRecords reads the records of a partition folder's segments with
// the scanner; -1 when a file vanished under it (the cleaner swapping).
func countRecords(folder string) int {
	logs, _ := filepath.Glob(filepath.Join(folder, "*.log"))
	n := 0
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			return -1
		}
		fi, _ := f.Stat()
		sc := segments.NewScanner(f, fi.Size(), segments.DefaultLimits)
		for {
			b, _, err := sc.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return -1
			}
			if b != nil {
				n += len(b.Records)
			}
		}
		f.Close()
	}
	return n
}

// TestImportBrokerCompacted: the broker's cleaner compacts a topic
// (segment.ms 100, min.cleanable.dirty.ratio 0.01), its segments are
// imported: the rows equal a dump's, and every offset the cleaner removed
// is a lost range of kind compacted.
func TestImportBrokerCompacted(t *testing.T) {
	brokers, data := brokerEnv(t)
	topic := fmt.Sprintf("ts-import-compact-%d", time.Now().UnixNano())
	cfg := func(s string) *string { return &s }
	createTopic(t, brokers, topic, 1, map[string]*string{
		"cleanup.policy": cfg("compact"), "segment.ms": cfg("100"), "min.cleanable.dirty.ratio": cfg("0.01"),
		"min.compaction.lag.ms": cfg("0"), "compression.type": cfg("producer"),
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	produced := 0
	all := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	// Keys 3 and 7 written again alone: the cleaner leaves holes between
	// the survivors (0-9, 13, 17), not only before them.
	for round, keys := range [][]int{all, all, {3}, {7}, {9}} {
		var recs []*kgo.Record
		for _, k := range keys {
			recs = append(recs, &kgo.Record{Key: []byte(fmt.Sprintf("key-%d", k)), Value: []byte(fmt.Sprintf("round %d", round))})
		}
		if err := cl.ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		produced += len(recs)
		time.Sleep(300 * time.Millisecond) // past segment.ms: the next round rolls a segment
	}
	folder := filepath.Join(data, topic+"-0")
	deadline := time.Now().Add(45 * time.Second)
	last := -1
	for {
		n := countRecords(folder)
		if n >= 0 && n < produced && n == last {
			break // compacted, and nothing moved since the last look
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cleaner did not compact %s within 45s (%d of %d records left)", topic, n, produced)
		}
		last = n
		time.Sleep(1500 * time.Millisecond)
	}
	dumpDir, impDir := t.TempDir(), t.TempDir()
	dumpTopic(t, brokers, topic, dumpDir)
	sum, err := segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: []string{folder}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	tp := catalog.TopicPartition{Topic: topic, Partition: 0}
	_, drows := readRows(t, dumpDir, tp)
	im, irows := readRows(t, impDir, tp)
	if len(irows) != len(drows) || len(irows) >= produced {
		t.Fatalf("import %d rows, dump %d, produced %d", len(irows), len(drows), produced)
	}
	for i := range drows {
		if a, b := rowText(drows[i]), rowText(irows[i]); a != b {
			t.Fatalf("row %d:\ndump   %s\nimport %s", i, a, b)
		}
	}
	// Every offset below the next is a row or a compacted lost range.
	covered := map[int64]bool{}
	for _, r := range irows {
		covered[r.Offset] = true
	}
	lost := int64(0)
	for _, l := range im.Lost {
		if l.Kind != catalog.LostCompacted {
			t.Errorf("lost range %d-%d of kind %s", l.From, l.To, l.Kind)
		}
		for o := l.From; o <= l.To; o++ {
			if covered[o] {
				t.Fatalf("offset %d is a row and lost", o)
			}
			covered[o] = true
			lost++
		}
	}
	for o := int64(0); o < im.NextOffset; o++ {
		if !covered[o] {
			t.Fatalf("offset %d is neither a row nor lost", o)
		}
	}
	if lost == 0 || len(im.Lost) < 2 || im.NextOffset != int64(produced) {
		t.Fatalf("%d compacted offsets in %v, next %d (produced %d)", lost, im.Lost, im.NextOffset, produced)
	}
}
