package queries

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestKeysSaysTheRecordsBeforeTheChange: across a change from 3 to 6
// partitions, keys says both figures: the keyed records that predate the
// change (a range when records that agree on both placements were written
// between the last old-only and the first new-only record) and the subset
// whose old placement differs from the new one (old_placement_records).
func TestKeysSaysTheRecordsBeforeTheChange(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	type rec struct {
		key  []byte
		p    int32
		ts   time.Time
		diff bool // % 3 and % 6 place it differently
	}
	cases := []struct {
		name string
		// agreeingLast: the records whose placements agree are written
		// after the others in each phase, before them otherwise.
		agreeingLast bool
	}{{"records of unknown side", true}, {"exact", false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var recs []rec
			for phase, rounds := range []int{3, 2} {
				var ph []rec
				n := int32(3 + 3*phase)
				for r := 0; r < rounds; r++ {
					for k := 0; k < 60; k++ {
						key := []byte(fmt.Sprintf("k%02d", k))
						ph = append(ph, rec{key: key, p: catalog.JavaPartition(key, n), diff: catalog.JavaPartition(key, 3) != catalog.JavaPartition(key, 6)})
					}
				}
				// With agreeingLast, the agreeing records come after the
				// differing ones before the change and before them after it
				// (their side cannot be told); else the other way round.
				rank := func(r rec) int {
					if (phase == 0) == (r.diff != c.agreeingLast) {
						return 1
					}
					return 0
				}
				sort.SliceStable(ph, func(i, j int) bool { return rank(ph[i]) < rank(ph[j]) })
				recs = append(recs, ph...)
			}
			var seamAfter, seamBefore time.Time
			for i := range recs {
				recs[i].ts = t0.Add(time.Duration(i) * time.Second)
				if recs[i].diff && i < 180 {
					seamAfter = recs[i].ts
				}
				if recs[i].diff && i >= 180 && seamBefore.IsZero() {
					seamBefore = recs[i].ts
				}
			}
			var wantMin, wantMax, wantOld int64
			for i, r := range recs {
				if !r.ts.After(seamAfter) {
					wantMin++
				}
				if r.ts.Before(seamBefore) {
					wantMax++
				}
				if i < 180 && r.diff {
					wantOld++
				}
			}
			if c.agreeingLast == (wantMin == wantMax) {
				t.Fatalf("fixture: min %d max %d", wantMin, wantMax)
			}
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			byPart := map[int32][]catalog.Row{}
			for _, r := range recs {
				rows := byPart[r.p]
				byPart[r.p] = append(rows, catalog.Row{Partition: r.p, Offset: int64(len(rows)), Key: r.key, Value: []byte("{}"),
					Timestamp: r.ts.UnixMilli(), TimestampType: catalog.TimestampCreate})
			}
			cuts := []*catalog.ClusterSnapshot{
				{ID: "s1", Topic: "t", AsOf: t0.Add(179*time.Second + 500*time.Millisecond), PartitionCount: 3},
				{ID: "s2", Topic: "t", AsOf: t0.Add(time.Hour), PartitionCount: 6},
			}
			for p := int32(0); p < 6; p++ {
				writePartition(t, d, "t", p, "s2", int64(len(byPart[p])), byPart[p])
				cuts[1].Partitions = append(cuts[1].Partitions, catalog.PartitionState{Partition: p, HighWatermark: int64(len(byPart[p]))})
			}
			for _, cs := range cuts {
				if err := d.WriteClusterSnapshot(ctx, cs); err != nil {
					t.Fatal(err)
				}
			}
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "keys", CheckOptions{Topic: "t"})
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(r.Summary.Get("partition_count_from"), r.Summary.Get("partition_count_to"), r.Summary.Get("records_before_change_min"),
				r.Summary.Get("records_before_change_max"), r.Summary.Get("old_placement_records"))
			if want := fmt.Sprint(3, 6, wantMin, wantMax, wantOld); got != want {
				t.Errorf("from, to, before min, max, old placement: %s, want %s (%s)", got, want, r.Message)
			}
			predate := fmt.Sprintf("%d keyed records predate the change, placed by murmur2(key) %% 3; %d of them sit where %% 3 and %% 6 differ", wantMin, wantOld)
			if wantMin != wantMax {
				predate = fmt.Sprintf("between %d and %d keyed records predate the change, placed by murmur2(key) %% 3; %d of them sit where %% 3 and %% 6 differ", wantMin, wantMax, wantOld)
			}
			if !strings.Contains(r.Message, predate) {
				t.Errorf("message %q\nwant %q", r.Message, predate)
			}
		})
	}
}
