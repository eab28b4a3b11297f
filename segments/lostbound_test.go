package segments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportLostRangesPastTheBound: a kcat file of a transactional topic
// passes over a marker per transaction, and a segment can hold a damaged
// batch between every two good ones; past the 10,000 lost ranges a
// manifest lists, the import failed whole (manifest is not valid: 10099
// lost ranges, exit 9) and left a data file no manifest listed. Now every
// readable record is imported, the ranges past the bound are counted in the
// snapshot's note, and the folder reads; a second import changes nothing.
func TestImportLostRangesPastTheBound(t *testing.T) {
	const n = catalog.MaxLostRanges + 50
	tp := catalog.TopicPartition{Topic: "t", Partition: 0}
	tests := []struct {
		name   string
		run    func(t *testing.T, dir string, warn func(string)) error
		kind   string
		reason string // in the note
		lost   int    // ranges lost, of one offset each
	}{
		{"kcat -J, a marker after each record", func(t *testing.T, dir string, warn func(string)) error {
			var b strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, `{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":%d,"key":null,"payload":"v"}`+"\n", 2*i, 1000+i)
			}
			file := filepath.Join(t.TempDir(), "kcat.jsonl")
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t", Warn: warn})
			return err
		}, catalog.LostNotInFile, "not-in-file ranges", n - 1},
		{"segment, a damaged batch after each good one", func(t *testing.T, dir string, warn func(string)) error {
			pdir := filepath.Join(t.TempDir(), "t-0")
			os.Mkdir(pdir, 0o755)
			var batches [][]byte
			for i := int64(0); i < n; i++ {
				batches = append(batches, data(2*i, 0, -1, "good"),
					testBatch{base: 2*i + 1, lastDelta: -1, corruptCRC: true, recs: []testRec{{value: []byte("bad"), delta: -1}}}.encode())
			}
			writeSegment(t, pdir, 0, batches...)
			_, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: warn})
			return err
		}, catalog.LostDamaged, "damaged ranges", n}, // the last one too: its header says its offsets
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var warns []string
			warn := func(s string) { warns = append(warns, s) }
			for run := 0; run < 2; run++ {
				if err := tc.run(t, dir, warn); err != nil {
					t.Fatalf("import %d: %v", run+1, err)
				}
				m, rows := readRows(t, dir, tp)
				if len(rows) != n {
					t.Fatalf("import %d: %d rows, want %d", run+1, len(rows), n)
				}
				if len(m.Lost) > catalog.MaxLostRanges || len(m.Snapshots) != 1 {
					t.Fatalf("import %d: %d lost ranges, %d snapshots", run+1, len(m.Lost), len(m.Snapshots))
				}
				listed := int64(0)
				for _, l := range m.Lost {
					if l.Kind != tc.kind {
						t.Fatalf("lost range %+v", l)
					}
					listed += l.To - l.From + 1
				}
				want := fmt.Sprintf("%d more %s (%d offsets) past the bound of %d lost ranges", tc.lost-len(m.Lost), tc.reason, int64(tc.lost)-listed, catalog.MaxLostRanges)
				if note := m.Snapshots[0].Note; !strings.Contains(note, want) {
					t.Fatalf("note %q lacks %q", note, want)
				}
				if m.NextOffset != int64(n+tc.lost) {
					t.Fatalf("next offset %d", m.NextOffset)
				}
			}
			said := false
			for _, w := range warns {
				said = said || strings.Contains(w, "counted in the snapshot's note, not listed one by one")
			}
			if !said {
				t.Errorf("no warning says the ranges past the bound are not listed")
			}
		})
	}
}
