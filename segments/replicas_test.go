package segments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportTwoReplicas: two brokers' folders of one partition, one
// holding offsets 0-149 in one segment, the other 0-99, imported into a
// folder that already held 0-49. When the longer replica sorted first, the
// import skipped its segment (the other's segment, of the same base, was
// taken for the next one of the same log), read 50-99 from the shorter,
// and ended at 99: offsets 100-149, on the disk, were not imported and no
// lost range said so. Now a segment is skipped only by the next segment of
// its own folder; every offset is imported once, and a warning says the
// partition came from two folders.
func TestImportTwoReplicas(t *testing.T) {
	batches := func(n int64, v string) [][]byte {
		var bs [][]byte
		for i := int64(0); i < n; i++ {
			bs = append(bs, data(i, 0, -1, v))
		}
		return bs
	}
	for _, longFirst := range []bool{true, false} {
		name := map[bool]string{true: "the longer replica first", false: "the longer replica second"}[longFirst]
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			long, short := filepath.Join(tmp, "a", "r-0"), filepath.Join(tmp, "b", "r-0")
			if !longFirst {
				long, short = short, long
			}
			first := filepath.Join(tmp, "first", "r-0")
			for _, d := range []string{long, short, first} {
				os.MkdirAll(d, 0o755)
			}
			writeSegment(t, long, 0, batches(150, "x")...)
			writeSegment(t, short, 0, batches(100, "x")...)
			writeSegment(t, first, 0, batches(50, "x")...)
			dir := t.TempDir()
			if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{first}}); err != nil {
				t.Fatal(err)
			}
			var warns []string
			if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{long, short}, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
				t.Fatal(err)
			}
			m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "r", Partition: 0})
			if len(rows) != 150 || m.NextOffset != 150 || len(m.Lost) != 0 {
				t.Fatalf("%d rows, next offset %d, lost %+v; want 150, 150, none", len(rows), m.NextOffset, m.Lost)
			}
			for i, r := range rows {
				if r.Offset != int64(i) {
					t.Fatalf("row %d has offset %d", i, r.Offset)
				}
			}
			if w := strings.Join(warns, "\n"); !strings.Contains(w, "partition r/0 is in 2 folders") {
				t.Fatalf("warnings %q", warns)
			}
		})
	}
}
