package queries

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagCommittedBelowLogStart: a group whose committed offset the log
// start has passed (retention or DeleteRecords) has no retention headroom
// left, even when the dump still holds the record at that offset: its next
// fetch is out of range, auto.offset.reset decides what it skips, and lag
// counts the records it will skip (log start minus committed) and fails.
func TestLagCommittedBelowLogStart(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name                string
		logStart, committed int64
		status              string
		skipped, outOfRange int64
		headroom            bool // a retention headroom is reported
		message             string
	}{
		{"deleted by DeleteRecords", 110, 0, StatusFail, 110, 1, false, "below its log start 110: the group's next fetch is out of range and auto.offset.reset decides what it skips; 110 records it had not read are deleted"},
		{"one below the log start", 110, 109, StatusFail, 1, 1, false, "1 record it had not read"},
		{"at the log start", 110, 110, StatusWarn, 0, 0, true, "the furthest behind is 10 records"},
		{"caught up", 0, 120, StatusOK, 0, 0, false, "all caught up"},
		// Past the high watermark (kafka-consumer-groups: lag -30): not
		// caught up, its next fetch is out of range too.
		{"past the end", 0, 150, StatusWarn, 0, 0, false, "1 group, none behind the end offset; group billing committed offset 150 on partition 0, past its end offset 120 at the cut (on 1 partition): unless the group committed after the cut read the end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			group := "billing"
			// The dump read offsets 0-119 before the log start moved: the
			// record at the committed offset is still in the folder.
			var rows []catalog.Row
			for o := int64(0); o < 120; o++ {
				rows = append(rows, catalog.Row{Partition: 0, Offset: o, Timestamp: at.Add(-time.Hour).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
			}
			writePartition(t, d, "orders", 0, "s1", 120, rows)
			if err := d.WriteClusterSnapshot(ctx, &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: at, PartitionCount: 1,
				Configs:    map[string]string{"retention.ms": "604800000"},
				Partitions: []catalog.PartitionState{{Partition: 0, LogStart: c.logStart, HighWatermark: 120, LastStable: 120}},
				Groups: []catalog.GroupState{{Group: group, State: "Empty",
					Offsets: []catalog.GroupOffset{{Partition: 0, Offset: c.committed}}}}}); err != nil {
				t.Fatal(err)
			}
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.status || !strings.Contains(r.Message, c.message) {
				t.Errorf("%s %q; want %s containing %q", r.Status, r.Message, c.status, c.message)
			}
			if got := asInt(r.Summary.Get("skipped_records")); got != c.skipped {
				t.Errorf("skipped_records %d, want %d", got, c.skipped)
			}
			if got := asInt(r.Summary.Get("out_of_range_partitions")); got != c.outOfRange {
				t.Errorf("out_of_range_partitions %d, want %d", got, c.outOfRange)
			}
			if got, want := asInt(r.Summary.Get("past_end_partitions")), int64(0); c.committed > 120 && group == "billing" {
				if got != 1 {
					t.Errorf("past_end_partitions %d, want 1", got)
				}
			} else if got != want {
				t.Errorf("past_end_partitions %d, want 0", got)
			}
			if got := r.Summary.Get("min_retention_headroom_seconds"); (got != nil) != c.headroom {
				t.Errorf("min_retention_headroom_seconds %v, want reported: %v", got, c.headroom)
			}
			row := r.Rows[0]
			if asInt(row.Get("skipped_records")) != c.skipped || asInt(row.Get("log_start_offset")) != c.logStart {
				t.Errorf("row %v", row)
			}
		})
	}
}

// TestLagRetentionNotANumber: a cut's configs are text read from a folder
// that may come from elsewhere; a retention.ms that is not a number of
// milliseconds DuckDB can hold leaves the headroom unknown (NULL), and
// lag still judges the group. Before, the check failed whole (exit 2) on
// DuckDB's "Could not convert string '-99999999999999999999999' to INT64".
func TestLagRetentionNotANumber(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	for _, retention := range []string{"-99999999999999999999999", "99999999999999999999999", "a week", "", "604800000"} {
		t.Run(retention, func(t *testing.T) {
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			var rows []catalog.Row
			for o := int64(0); o < 120; o++ {
				rows = append(rows, catalog.Row{Partition: 0, Offset: o, Timestamp: at.Add(-time.Hour).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
			}
			writePartition(t, d, "orders", 0, "s1", 120, rows)
			if err := d.WriteClusterSnapshot(ctx, &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: at, PartitionCount: 1,
				Configs:    map[string]string{"retention.ms": retention},
				Partitions: []catalog.PartitionState{{Partition: 0, LogStart: 0, HighWatermark: 120, LastStable: 120}},
				Groups: []catalog.GroupState{{Group: "billing", State: "Empty",
					Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 110}}}}}); err != nil {
				t.Fatal(err)
			}
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders"})
			if err != nil {
				t.Fatalf("lag: %v", err)
			}
			if r.Status != StatusWarn || !strings.Contains(r.Message, "the furthest behind is 10 records") {
				t.Errorf("%s %q; want warn, 10 records behind", r.Status, r.Message)
			}
			known := retention == "604800000"
			if got := r.Summary.Get("min_retention_headroom_seconds"); (got != nil) != known {
				t.Errorf("min_retention_headroom_seconds %v, want reported: %v", got, known)
			}
		})
	}
}
