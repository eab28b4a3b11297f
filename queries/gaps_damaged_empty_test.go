package queries

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestGapsDamageFailsWithOrWithoutRecords: offsets in batches an import
// could not read are data the folder does not know, not "no data". On a
// topic with records gaps failed ("1 offset in batches the import could
// not read"); on a topic whose only partition held nothing but the damaged
// batch it said WARN "no records; 1 offset in batches the import could not
// read", the same finding with another verdict. Now both fail, and the
// empty one still says it holds no records. A topic with no records and
// only offsets Kafka deleted still warns.
func TestGapsDamageFailsWithOrWithoutRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	imported := func(from, next int64) []catalog.PartitionSnapshot {
		return []catalog.PartitionSnapshot{{ID: "imp", AsOf: at, LogStart: from, HighWatermark: -1, LastStable: -1, From: from, Until: next, Complete: true, Imported: "segments"}}
	}
	write := func(topic string, rows []catalog.Row, next int64, lost []catalog.LostRange) {
		tp := catalog.TopicPartition{Topic: topic, Partition: 0}
		m := &catalog.Manifest{Topic: topic, Partition: 0, NextOffset: next, Lost: lost, Snapshots: imported(0, next)}
		if len(rows) > 0 {
			fe, err := d.WriteDataFile(ctx, tp, rows, "imp")
			if err != nil {
				t.Fatal(err)
			}
			m.Files = []catalog.FileEntry{fe}
		}
		if err := d.WriteManifest(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	damaged := func(from, to int64) []catalog.LostRange {
		return []catalog.LostRange{{Kind: catalog.LostDamaged, Reason: "00000000000000000000.log bytes 0-99: CRC mismatch", From: from, To: to, DetectedAt: at, Snapshot: "imp"}}
	}
	var rows []catalog.Row
	for i := int64(0); i < 5; i++ {
		rows = append(rows, catalog.Row{Partition: 0, Offset: i, Timestamp: at.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte("v")})
	}
	write("withrecords", rows, 6, damaged(5, 5))
	write("onlydamaged", nil, 1, damaged(0, 0))
	write("onlydeleted", nil, 3, []catalog.LostRange{{Kind: catalog.LostBeforeFirst, From: 0, To: 2, DetectedAt: at, Snapshot: "imp"}})

	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		topic  string
		status string
		want   []string
	}{
		{"withrecords", StatusFail, []string{"1 offset in batches the import could not read"}},
		{"onlydamaged", StatusFail, []string{"no records", "1 offset in batches the import could not read"}},
		{"onlydeleted", StatusWarn, []string{"no records"}},
	} {
		t.Run(c.topic, func(t *testing.T) {
			r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: c.topic})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.status {
				t.Errorf("%s, want %s: %s", r.Status, c.status, r.Message)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message lacks %q: %s", w, r.Message)
				}
			}
			if got := asInt(r.Summary.Get("damaged_offsets")); (got == 1) != (c.topic != "onlydeleted") {
				t.Errorf("damaged_offsets %d", got)
			}
		})
	}
}
