package queries

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestKeysSeamLeavesOutNoTimestamp: partitions added (2 to 4, both counts
// recorded by the cuts) and, after the change, a few keyed records with no
// timestamp (-1), each on murmur2(key) % 4. Their -1 was taken for 1969:
// the first record placed by the new count came before the last placed by
// the old one, so no change was found and keys said "FAIL: 12 keys are
// split across partitions; 9 records are on a partition neither murmur2
// nor crc32 explains" (partitioner unknown). Such a record has no time: it
// counts by its placement, and the change is found.
func TestKeysSeamLeavesOutNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().Add(-time.Hour).UnixMilli()
	rows := map[int32][]catalog.Row{}
	add := func(key string, n int, ts int64) {
		p := catalog.JavaPartition([]byte(key), int32(n))
		rows[p] = append(rows[p], catalog.Row{Partition: p, Offset: int64(len(rows[p])), Timestamp: ts, TimestampType: catalog.TimestampCreate,
			Key: []byte(key), Value: []byte(`{}`), ProducerID: -1})
	}
	for i := range 20 {
		add(fmt.Sprintf("u%d", i), 2, base+int64(i))
	}
	for i := range 20 {
		add(fmt.Sprintf("u%d", i), 4, base+60_000+int64(i))
	}
	for i := range 6 {
		add(fmt.Sprintf("u%d", i), 4, -1)
	}
	for p := range int32(4) {
		writePartition(t, d, "grow", p, "s2", int64(len(rows[p])), rows[p])
	}
	for i, n := range []int{2, 4} {
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: fmt.Sprintf("s%d", i+1), Topic: "grow",
			AsOf: time.UnixMilli(base + int64(i)*30_000 + 30_000).UTC(), PartitionCount: n, ReplicationFactor: 1}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), "keys", CheckOptions{Topic: "grow"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "the partition count changed from 2 to 4") {
		t.Errorf("keys: %s %q", r.Status, r.Message)
	}
	for k, want := range map[string]any{"partitioner": "murmur2", "unexplained_records": int64(0), "partition_count_from": int64(2),
		"records_before_change_min": int64(20)} {
		if got := r.Summary.Get(k); got != want {
			t.Errorf("summary %s = %v (%T), want %v", k, got, got, want)
		}
	}
	if s, ok := r.Summary.Get("seam_before").(time.Time); !ok || s.Year() < 2000 {
		t.Errorf("seam_before %v: a record without a timestamp taken for 1969", r.Summary.Get("seam_before"))
	}
}
