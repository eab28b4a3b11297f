package restore

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// A restore that read the manifest before a catalog compact --grace 0
// merged and removed its files meets a missing file: that is the folder
// changing under it (exit 8, run again), not a damaged folder (exit 9,
// whose hint says to remove the partition folder and dump it again). A
// file missing that the manifest still lists stays exit 9.
func TestScanPlanFileCompactedAway(t *testing.T) {
	for _, c := range []struct {
		name    string
		change  func(t *testing.T, d *catalog.Dir, m *catalog.Manifest)
		want    error
		code    exit.Code
		notWant error
	}{
		{"compacted away", func(t *testing.T, d *catalog.Dir, _ *catalog.Manifest) {
			if st, err := d.Compact(t.Context(), catalog.CompactOptions{}); err != nil || st.Merged == 0 {
				t.Fatalf("compact: %+v %v", st, err)
			}
		}, ErrSourceChanged, exit.Locked, catalog.ErrBadDataFile},
		{"removed, still listed", func(t *testing.T, d *catalog.Dir, m *catalog.Manifest) {
			if err := os.Remove(d.FilePath(m.TP(), m.Files[0].Name)); err != nil {
				t.Fatal(err)
			}
		}, catalog.ErrBadDataFile, exit.BadFolder, ErrSourceChanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := catalogtest.Folder(t, t.TempDir(), "t", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 50), catalogtest.Rows(0, 50, 50)}})
			tp := catalog.TopicPartition{Topic: "t", Partition: 0}
			m, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			c.change(t, d, m)
			pl := &plan{m: m, part: &Partition{Partition: 0, From: 0, Until: m.NextOffset, OpenAt: -1}}
			err = scanPlan(context.Background(), d, pl, "t2", nil, nil, func([]*kgo.Record, *batchMem, int64, bool, int64) error { return nil })
			code, _ := exit.Of(err)
			if !errors.Is(err, c.want) || errors.Is(err, c.notWant) || code != c.code {
				t.Fatalf("exit %d: %v", code, err)
			}
		})
	}
}
