package segments

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportManySmallSegments: a partition of many small segments (a
// topic rolled every hour for a year) makes a file of each, and the
// manifest was committed after each file, written again whole each time:
// 10,000 one-record segments took 574 s, 2,000 here 2,000 commits. The
// manifest is now committed at most once a second and at the end: every
// record once, each file listed, a second import changing nothing.
func TestImportManySmallSegments(t *testing.T) {
	const n = 2000
	pdir := filepath.Join(t.TempDir(), "small-0")
	os.Mkdir(pdir, 0o755)
	for i := int64(0); i < n; i++ {
		writeSegment(t, pdir, i, data(i, 0, -1, "v"))
	}
	dir := t.TempDir()
	before := manifestCommits.Load()
	sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}})
	if err != nil {
		t.Fatal(err)
	}
	commits := manifestCommits.Load() - before
	secs := int64(sum.Elapsed.Seconds()) + 2
	if commits > secs+1 {
		t.Errorf("%d manifest commits in %v, want at most one a second and the last", commits, sum.Elapsed)
	}
	m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "small", Partition: 0})
	if len(rows) != n || len(m.Files) != n || m.NextOffset != n || sum.Records != n {
		t.Fatalf("%d rows in %d files, next %d, summary %+v", len(rows), len(m.Files), m.NextOffset, sum)
	}
	for i, r := range rows {
		if r.Offset != int64(i) {
			t.Fatalf("row %d has offset %d", i, r.Offset)
		}
	}
	if sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}}); err != nil || sum.Partitions != 0 || sum.Records != 0 {
		t.Fatalf("again: %+v %v", sum, err)
	}
}
