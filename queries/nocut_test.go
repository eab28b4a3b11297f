package queries

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestLagAndFreshnessWithoutACut: a topic the folder holds no cut of (an
// import writes none; a folder handed over may come without its snapshots
// folder) has no recorded consumer groups and no time to be stale at. lag
// said "OK no consumer group had committed offsets on the topic at the
// snapshots" and freshness "OK ... the newest record of each partition is
// at most 0 seconds older than the cut", of no snapshot and no cut. Both
// now say what they could not judge (warn, never ok); with a cut, they
// judge as before.
func TestLagAndFreshnessWithoutACut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	d := catalogtest.Folder(t, dir, "uncut", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 5)}})
	catalogtest.Folder(t, dir, "cut", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 5)}})
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "20231114T221400.000Z-aaaaaa", Topic: "cut", AsOf: time.UnixMilli(1_700_000_040_000).UTC(),
		PartitionCount: 1, ReplicationFactor: 1, Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 5}}, Dumped: []int32{0}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, check := range []string{"lag", "freshness"} {
		r, err := e.RunCheck(t.Context(), check, CheckOptions{Topic: "uncut"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusWarn || !strings.Contains(r.Message, "the folder holds no cut of uncut") || r.Summary.Get("cuts") != int64(0) {
			t.Errorf("%s on a topic without a cut: %s %q; want not judged", check, r.Status, r.Message)
		}
		r, err = e.RunCheck(t.Context(), check, CheckOptions{Topic: "cut"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Message, "holds no cut") {
			t.Errorf("%s on a topic with a cut: %s %q", check, r.Status, r.Message)
		}
	}
}
