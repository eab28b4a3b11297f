package queries

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagNamesUnownedPartitions: after the topic grew from 4 to 6
// partitions, a group whose members still own 0-3 and committed only
// there leaves 4 and 5 unread; lag names them as rows (kind unowned) and in
// the message, and warns. A partition the group committed on, or one a
// member owns, is not unowned; a group whose members own nothing of the
// topic (empty, or an assignment the cut could not decode) is not judged.
func TestLagNamesUnownedPartitions(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		owned     []int32 // by the group's one member
		committed []int32 // at each partition's end
		unowned   []int32
		status    string
		message   string
	}{
		{"two new partitions", []int32{0, 1, 2, 3}, []int32{0, 1, 2, 3}, []int32{4, 5}, StatusWarn,
			"all caught up at the cut; no member owns and no committed offset covers group billing: partitions 4, 5 (20 records at the cut): nobody in the group reads them"},
		{"a commit on one of them", []int32{0, 1, 2, 3}, []int32{0, 1, 2, 3, 4}, []int32{5}, StatusWarn, "group billing: partition 5 (10 records at the cut)"},
		{"rebalanced", []int32{0, 1, 2, 3, 4, 5}, []int32{0, 1, 2, 3}, nil, StatusOK, "all caught up at the cut"},
		{"no assignment known", nil, []int32{0, 1, 2, 3}, nil, StatusOK, "all caught up at the cut"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			cs := &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: at, PartitionCount: 6}
			for p := int32(0); p < 6; p++ {
				var rows []catalog.Row
				for o := int64(0); o < 10; o++ {
					rows = append(rows, catalog.Row{Partition: p, Offset: o, Timestamp: at.Add(-time.Minute).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
				}
				writePartition(t, d, "orders", p, "s1", 10, rows)
				cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: 10, LastStable: 10})
			}
			g := catalog.GroupState{Group: "billing", State: "Stable", Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "billing-1", Assigned: c.owned}}}
			for _, p := range c.committed {
				g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: 10})
			}
			cs.Groups = []catalog.GroupState{g}
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
			var got []int32
			for _, row := range r.Rows {
				if row.Get("kind") == "unowned" {
					got = append(got, int32(asInt(row.Get("partition"))))
					if row.Get("group_id") != "billing" {
						t.Errorf("unowned row %v", row)
					}
				}
			}
			if !slices.Equal(got, c.unowned) || asInt(r.Summary.Get("unowned_partitions")) != int64(len(c.unowned)) {
				t.Errorf("unowned %v (summary %v), want %v", got, r.Summary.Get("unowned_partitions"), c.unowned)
			}
			if r.Status != c.status || !strings.Contains(r.Message, c.message) {
				t.Errorf("%s %q; want %s containing %q", r.Status, r.Message, c.status, c.message)
			}
			if len(c.unowned) == 0 && strings.Contains(r.Message, "no member owns") {
				t.Errorf("message %q names unowned partitions", r.Message)
			}
		})
	}
}
