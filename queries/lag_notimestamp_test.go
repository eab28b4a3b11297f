package queries

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagOfARecordWithNoTimestamp: a group's committed offset on a record
// whose timestamp is -1 (Kafka's "no timestamp", read as 1969-12-31
// 23:59:59.999). lag took that for the record's age: "FAIL lag on odd: a
// group is 9 records and 20794.7 days behind; its next record is deleted
// by retention in 0 seconds" (retention_headroom_seconds -20787 days). Its
// age is not known: lag_seconds and the headroom are NULL, the verdict
// says so (warn, lag_age_unknown_partitions), and max_lag_seconds is NULL
// when no partition behind has a known age. The lag_at macro (SQL,
// notebooks) gave the same 1.8e9 seconds: its lag_seconds is NULL with a
// reason.
func TestLagOfARecordWithNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	ms := now.Add(-time.Minute).UnixMilli()
	var rows []catalog.Row
	for i := range int64(10) {
		ts := ms + i
		if i == 5 {
			ts = -1
		}
		rows = append(rows, catalog.Row{Partition: 0, Offset: i, Timestamp: ts, TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte("v"), ProducerID: -1})
	}
	writePartition(t, d, "lagts", 0, "s1", 10, rows)
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "lagts", AsOf: now, PartitionCount: 1, ReplicationFactor: 1,
		Configs:    map[string]string{"retention.ms": "604800000"},
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 10}},
		Groups:     []catalog.GroupState{{Group: "g", State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 5, LeaderEpoch: -1}}}},
		Dumped:     []int32{0}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), "lag", CheckOptions{Topic: "lagts"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || strings.Contains(r.Message, "days") || strings.Contains(r.Message, "deleted by retention") ||
		!strings.Contains(r.Message, "5 records and an age not known") || !strings.Contains(r.Message, "the lag in time is not known on 1 partition behind") {
		t.Errorf("lag: %s %q", r.Status, r.Message)
	}
	for k, want := range map[string]any{"max_lag_records": int64(5), "max_lag_seconds": nil, "min_retention_headroom_seconds": nil, "lag_age_unknown_partitions": int64(1)} {
		if got := r.Summary.Get(k); got != want {
			t.Errorf("summary %s = %v, want %v", k, got, want)
		}
	}
	for _, row := range r.Rows {
		if row.Get("kind") == "offset" && (row.Get("lag_seconds") != nil || row.Get("retention_headroom_seconds") != nil) {
			t.Errorf("row %v: lag_seconds %v, retention_headroom_seconds %v; want NULL", row.Keys, row.Get("lag_seconds"), row.Get("retention_headroom_seconds"))
		}
	}
	var sec *float64
	var reason *string
	q := `SELECT lag_seconds, reason FROM lag_at('g', TIMESTAMPTZ '` + now.Format("2006-01-02 15:04:05.999999Z07:00") + `')`
	if err := e.DB().QueryRowContext(t.Context(), q).Scan(&sec, &reason); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if sec != nil || reason == nil || !strings.Contains(*reason, "no timestamp (-1)") {
		t.Errorf("lag_at: lag_seconds %v, reason %v; want NULL and the reason", deref(sec), deref(reason))
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
