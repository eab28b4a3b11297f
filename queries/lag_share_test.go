package queries

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagJudgesShareGroups: a share group (KIP-932) commits no offsets;
// lag judges it by Kafka's own count of what it has not acknowledged, a
// start offset below the log start (records deleted before the group
// acknowledged them) fails, a lag Kafka did not give is said, never 0,
// and a consumer group beside it is judged as before, the worse status
// winning. Before, every case read "OK: no consumer group had committed
// offsets" (or the consumer group's verdict alone).
func TestLagJudgesShareGroups(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name     string
		share    []catalog.ShareOffset
		consumer bool // a consumer group caught up on every partition
		status   string
		message  string
		maxLag   any
	}{
		{"all acknowledged", []catalog.ShareOffset{{Partition: 0, StartOffset: 10, Lag: 0}, {Partition: 1, StartOffset: 10, Lag: 0}}, false,
			StatusOK, "1 share group (which commit no offsets), every record acknowledged by Kafka's count", int64(0)},
		{"behind", []catalog.ShareOffset{{Partition: 0, StartOffset: 6, Lag: 4}, {Partition: 1, StartOffset: 10, Lag: 0}}, false,
			StatusWarn, "Kafka counts up to 4 records not yet acknowledged on a partition", int64(4)},
		{"below the log start", []catalog.ShareOffset{{Partition: 0, StartOffset: 2, Lag: 3}, {Partition: 1, StartOffset: 10, Lag: 0}}, false,
			StatusFail, "share group queue starts at offset 2 on partition 0, below its log start 5: 3 records it had not acknowledged were deleted", int64(3)},
		{"lag not given", []catalog.ShareOffset{{Partition: 0, StartOffset: -1, Lag: -1}, {Partition: 1, StartOffset: -1, Lag: -1}}, false,
			StatusWarn, "Kafka gave no share lag on 2 partitions", nil},
		{"beside a consumer group", []catalog.ShareOffset{{Partition: 0, StartOffset: 6, Lag: 4}, {Partition: 1, StartOffset: 10, Lag: 0}}, true,
			StatusWarn, "1 group, all caught up at the cut; 1 share group (which commit no offsets): Kafka counts up to 4 records", int64(4)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			cs := &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: at, PartitionCount: 2}
			for p := int32(0); p < 2; p++ {
				var rows []catalog.Row
				for o := int64(5); o < 10; o++ {
					rows = append(rows, catalog.Row{Partition: p, Offset: o, Timestamp: at.Add(-time.Minute).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
				}
				writePartition(t, d, "orders", p, "s1", 10, rows)
				cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, LogStart: 5, HighWatermark: 10, LastStable: 10})
			}
			cs.Groups = []catalog.GroupState{{Group: "queue", State: "Stable", ProtocolType: catalog.ProtocolShare, Share: c.share,
				Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "barista-1", Assigned: []int32{0, 1}}}}}
			if c.consumer {
				cs.Groups = append(cs.Groups, catalog.GroupState{Group: "billing", State: "Stable",
					Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 10}, {Partition: 1, Offset: 10}}})
			}
			if err := d.WriteClusterSnapshot(ctx, cs); err != nil {
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
				t.Errorf("%s %q, want %s containing %q", r.Status, r.Message, c.status, c.message)
			}
			if got := r.Summary.Get("max_share_lag_records"); got != c.maxLag || asInt(r.Summary.Get("share_groups")) != 1 {
				t.Errorf("summary %v, want max_share_lag_records %v and 1 share group", r.Summary.Vals, c.maxLag)
			}
			shares, members := 0, 0
			for _, row := range r.Rows {
				switch row.Get("kind") {
				case "share":
					shares++
				case "member":
					if row.Get("group_id") == "queue" && row.Get("client_id") == "barista-1" {
						members++
					}
				}
			}
			if shares != 2 || members != 1 {
				t.Errorf("%d share rows and %d of its member, want 2 and 1", shares, members)
			}
			// reset says what the group is, not that it never committed.
			rr, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: "orders", Group: "queue", ToTime: at.Add(-time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			if rr.Status != StatusWarn || !strings.Contains(rr.Message, "group queue is a share group (KIP-932) at 1 cut of orders: it commits no offsets") {
				t.Errorf("reset: %s %q", rr.Status, rr.Message)
			}
			// The share group's state is no committed offset: none of
			// it is a consumer's lag.
			if !c.consumer && (asInt(r.Summary.Get("groups")) != 0 || asInt(r.Summary.Get("max_lag_records")) != 0) {
				t.Errorf("a share group counted as a consumer group: %v", r.Summary.Vals)
			}
		})
	}
}
