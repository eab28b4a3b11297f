package queries

import (
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestRemoteCommitted: the predicate lag.spark.sql filters the joined
// records by lists every partition and offset any group committed on the
// topic at any cut (sorted, each once), other topics' apart; FALSE when no
// group committed (nothing to join), TRUE without a topic or past
// maxCommittedOffsets.
func TestRemoteCommitted(t *testing.T) {
	snap := func(topic string, offs ...[2]int64) *catalog.ClusterSnapshot {
		g := catalog.GroupState{Group: "g"}
		for _, o := range offs {
			g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: int32(o[0]), Offset: o[1]})
		}
		return &catalog.ClusterSnapshot{Topic: topic, Groups: []catalog.GroupState{g}}
	}
	many := snap("t")
	for i := range maxCommittedOffsets + 1 {
		many.Groups[0].Offsets = append(many.Groups[0].Offsets, catalog.GroupOffset{Partition: 0, Offset: int64(i)})
	}
	for _, c := range []struct {
		name  string
		snaps []*catalog.ClusterSnapshot
		topic string
		want  string
	}{
		{"two cuts, two groups' offsets", []*catalog.ClusterSnapshot{snap("t", [2]int64{2, 40}, [2]int64{0, 7}), snap("u", [2]int64{9, 99}), snap("t", [2]int64{0, 7}, [2]int64{0, 12})}, "t",
			`"partition" IN (0, 2) AND "offset" IN (7, 12, 40)`},
		{"no group", []*catalog.ClusterSnapshot{snap("u", [2]int64{1, 1})}, "t", "FALSE"},
		{"no cut", nil, "t", "FALSE"},
		{"no topic", []*catalog.ClusterSnapshot{snap("t", [2]int64{1, 1})}, "", "TRUE"},
		{"too many offsets", []*catalog.ClusterSnapshot{many}, "t", "TRUE"},
	} {
		if got := remoteCommitted(c.snaps, c.topic); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
