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

// TestImportDamagedEnds: what an import records when damage ends a
// partition or starts it, and when offsets go back. Before: a partition
// whose every batch was damaged left nothing in the folder, not even its
// manifest, and the summary said "nothing new: every offset was already
// imported"; of two damaged batches at the end only the first's offsets
// were lost, the second's not recorded; a damaged first segment's offsets
// were "expired-before-first-snapshot"; a batch whose offsets went back
// inside a file was left out without a word.
func TestImportDamagedEnds(t *testing.T) {
	bad := func(base int64, n int) []byte {
		var rs []testRec
		for i := 0; i < n; i++ {
			rs = append(rs, testRec{value: []byte("bad"), delta: -1})
		}
		return testBatch{base: base, lastDelta: -1, corruptCRC: true, recs: rs}.encode()
	}
	type seg struct {
		base    int64
		batches [][]byte
	}
	tests := []struct {
		name    string
		segs    []seg
		rows    string
		lost    string
		next    int64
		summary string
		warn    string
	}{
		{"one damaged batch, nothing else", []seg{{0, [][]byte{bad(0, 3)}}},
			"", "damaged 0-2", 3, "1 damaged batches", ""},
		{"two damaged batches in a segment of base 100", []seg{{100, [][]byte{bad(100, 1), bad(101, 2)}}},
			"", "expired-before-first-snapshot 0-99, damaged 100-102", 103, "2 damaged batches", ""},
		{"two damaged batches at the end", []seg{{0, [][]byte{data(0, 0, -1, "a"), bad(1, 1), bad(2, 2)}}},
			"0", "damaged 1-3", 4, "2 damaged batches", ""},
		{"a damaged first segment", []seg{{0, [][]byte{bad(0, 5)}}, {5, [][]byte{data(5, 0, -1, "a", "b")}}},
			"5 6", "damaged 0-4", 7, "1 damaged batches", ""},
		{"offsets that go back", []seg{{0, [][]byte{data(0, 0, -1, "a", "b"), data(100, 0, -1, "c"), data(50, 0, -1, "d")}}},
			"0 1 100", "compacted 2-99", 101, "imported 3 records", "a batch of offsets 50-50 after offset 100 in the same file: the offsets go back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pdir := filepath.Join(t.TempDir(), "d-0")
			os.Mkdir(pdir, 0o755)
			for _, sg := range tc.segs {
				writeSegment(t, pdir, sg.base, sg.batches...)
			}
			dir := t.TempDir()
			var warns []string
			sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: func(s string) { warns = append(warns, s) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := sum.String(); !strings.Contains(got, tc.summary) || strings.Contains(got, "every offset was already imported") {
				t.Errorf("summary %q, want %q", got, tc.summary)
			}
			m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "d", Partition: 0})
			var offs, lost []string
			for _, r := range rows {
				offs = append(offs, fmt.Sprint(r.Offset))
			}
			for _, l := range m.Lost {
				lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
			}
			if strings.Join(offs, " ") != tc.rows || strings.Join(lost, ", ") != tc.lost || m.NextOffset != tc.next || len(m.Snapshots) != 1 {
				t.Fatalf("rows %v, lost %v, next %d, %d snapshots; want rows %q, lost %q, next %d", offs, lost, m.NextOffset, len(m.Snapshots), tc.rows, tc.lost, tc.next)
			}
			if tc.warn != "" && !strings.Contains(strings.Join(warns, "\n"), tc.warn) {
				t.Errorf("warnings %q lack %q", warns, tc.warn)
			}
			// Again: nothing changes.
			before, _ := os.ReadFile(filepath.Join(dir, "topic=d", "partition=0", "manifest.json"))
			if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}}); err != nil {
				t.Fatal(err)
			}
			after, _ := os.ReadFile(filepath.Join(dir, "topic=d", "partition=0", "manifest.json"))
			if string(before) != string(after) {
				t.Errorf("a second import changed the manifest")
			}
		})
	}
}

// TestImportBatchPastNextSegment: a batch whose header claims offsets
// past the base of its folder's next segment (a last offset delta of a
// million over one record, its CRC made to match) moved the import's next
// offset past the next segment, whose records were then taken for
// imported before and left out without a word (offsets 1-1000000
// "compacted"). Now the batch is read up to the next segment's base, with
// a warning, and the next segment's records are imported.
func TestImportBatchPastNextSegment(t *testing.T) {
	pdir := filepath.Join(t.TempDir(), "p-0")
	os.Mkdir(pdir, 0o755)
	writeSegment(t, pdir, 0, testBatch{base: 0, lastDelta: 1_000_000, recs: []testRec{{value: []byte("a"), delta: -1}}}.encode())
	var later [][]byte
	for i := int64(10); i < 20; i++ {
		later = append(later, data(i, 0, -1, "b"))
	}
	writeSegment(t, pdir, 10, later...)
	dir := t.TempDir()
	var warns []string
	if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
		t.Fatal(err)
	}
	m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "p", Partition: 0})
	var lost []string
	for _, l := range m.Lost {
		lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
	}
	if len(rows) != 11 || strings.Join(lost, ", ") != "compacted 1-9" || m.NextOffset != 20 {
		t.Fatalf("%d rows, lost %v, next %d", len(rows), lost, m.NextOffset)
	}
	if !strings.Contains(strings.Join(warns, "\n"), "past the base offset 10 of the folder's next segment: read up to offset 9") {
		t.Errorf("warnings %q", warns)
	}
}
