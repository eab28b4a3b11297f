package queries

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestFreshnessLeavesOutNoTimestamp: a record timestamp of -1 is Kafka's
// "no timestamp" (the view reads it 1969-12-31 23:59:59.999). freshness
// took it for a time: a partition of only such records was "stale: the
// newest record is 20794.7 days older than the cut" (max_staleness_seconds
// 1796663304), one such record before a partition's timed ones was a
// silent stretch of 57 years, and an event time before 1970 made it late.
// Such records are now left out of every time, counted
// (no_timestamp_records) and said; a partition of only such records is not
// judged (newest NULL), never stale, never OK.
func TestFreshnessLeavesOutNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	ms := now.Add(-10 * time.Second).UnixMilli()
	row := func(p int32, off, ts int64, value string) catalog.Row {
		return catalog.Row{Partition: p, Offset: off, Timestamp: ts, TimestampType: catalog.TimestampCreate,
			Key: []byte("k"), Value: []byte(value), ProducerID: -1}
	}
	// p0: a record with no timestamp, then timed ones; p1: timed all along
	// (it carries on in the "silence" a -1 would make of p0); p2: no
	// timestamp at all.
	writePartition(t, d, "nots", 0, "s1", 3, []catalog.Row{
		row(0, 0, -1, `{"et":"1960-01-01T00:00:00Z"}`), row(0, 1, ms, `{"et":"2000-01-01T00:00:00Z"}`), row(0, 2, ms+1, `{"et":"2000-01-01T00:00:00Z"}`)})
	writePartition(t, d, "nots", 1, "s1", 2, []catalog.Row{row(1, 0, ms-2000, `{}`), row(1, 1, ms-1000, `{}`)})
	writePartition(t, d, "nots", 2, "s1", 2, []catalog.Row{row(2, 0, -1, `{}`), row(2, 1, -1, `{}`)})
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "nots", AsOf: now, PartitionCount: 3, ReplicationFactor: 1,
		Dumped: []int32{0, 1, 2}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), "freshness", CheckOptions{Topic: "nots", EventTime: `CAST(value.et AS TIMESTAMPTZ)`, Charts: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn {
		t.Errorf("status %s, want warn: %s", r.Status, r.Message)
	}
	for _, want := range []string{"1 partition holds only records without a timestamp (-1): 2, not judged", "1 record has no timestamp (-1), left out of the times"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q, want it to say %q", r.Message, want)
		}
	}
	for _, bad := range []string{"stale", "silent stretch", "days"} {
		if strings.Contains(r.Message, bad) {
			t.Errorf("message %q says %q", r.Message, bad)
		}
	}
	for k, want := range map[string]any{"no_timestamp_records": int64(3), "stale_partitions": int64(0), "silent_stretches": int64(0),
		"late_records": int64(2), "empty_partitions": int64(0)} {
		if got := r.Summary.Get(k); got != want {
			t.Errorf("summary %s = %v (%T), want %v", k, got, got, want)
		}
	}
	if s := asFloat(r.Summary.Get("max_staleness_seconds")); s > 3600 {
		t.Errorf("max_staleness_seconds %v: a record without a timestamp taken for 1969", s)
	}
	for _, row := range r.Rows {
		if row.Get("kind") == "partition" && asInt(row.Get("partition")) == 2 && (row.Get("newest") != nil || row.Get("staleness_seconds") != nil) {
			t.Errorf("partition 2 (no timestamps): newest %v, staleness %v; want NULL", row.Get("newest"), row.Get("staleness_seconds"))
		}
	}
	if len(r.Charts) != 1 || r.Charts[0].Step > 5*time.Minute {
		t.Errorf("charts %+v: want one chart over the timed records' span (minutes), not back to 1970", r.Charts)
	}
}

// TestDuplicatesChartLeavesOutNoTimestamp: copies with a timestamp of -1
// were drawn at 1969-12-31 23:59 on the duplicates chart, its axis
// stretched over 57 years; they have no bucket now.
func TestDuplicatesChartLeavesOutNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Now().Add(-time.Minute).UnixMilli()
	row := func(off, ts int64, v string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: ts, TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte(v), ProducerID: -1}
	}
	writePartition(t, d, "dups", 0, "s1", 4, []catalog.Row{row(0, ms, "a"), row(1, -1, "a"), row(2, -1, "b"), row(3, ms+1, "b")})
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), "duplicates", CheckOptions{Topic: "dups", Charts: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Get("duplicate_ids") != int64(2) {
		t.Errorf("duplicate_ids %v, want 2", r.Summary.Get("duplicate_ids"))
	}
	if len(r.Charts) != 1 {
		t.Fatalf("charts %+v", r.Charts)
	}
	for _, s := range r.Charts[0].Series {
		for _, p := range s.Points {
			if p.T.Year() < 2000 {
				t.Errorf("duplicates chart point at %v: a record without a timestamp taken for 1969", p.T)
			}
		}
	}
}
