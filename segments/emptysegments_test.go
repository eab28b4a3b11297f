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

// TestImportEmptySegments: a partition whose records retention deleted
// keeps an empty active segment named by its log end offset. Its import
// left nothing in the folder and said "nothing new: every offset was
// already imported"; now the partition is there, its offsets below the
// segment's name lost before the first segment, its next offset that name.
// A partition that never held a record (one empty segment 0) still writes
// nothing.
func TestImportEmptySegments(t *testing.T) {
	tests := []struct {
		name  string
		bases []int64
		lost  string
		next  int64
	}{
		{"one empty segment at 12345", []int64{12345}, "expired-before-first-snapshot 0-12344", 12345},
		{"three empty segments", []int64{0, 500, 900}, "expired-before-first-snapshot 0-899", 900},
		{"never written", []int64{0}, "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pdir := filepath.Join(t.TempDir(), "e-0")
			os.Mkdir(pdir, 0o755)
			for _, b := range tc.bases {
				writeSegment(t, pdir, b)
				os.WriteFile(filepath.Join(pdir, fmt.Sprintf("%020d.index", b)), nil, 0o644)
			}
			dir := t.TempDir()
			sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.next < 0 {
				if sum.Partitions != 0 {
					t.Fatalf("summary %+v", sum)
				}
				return
			}
			m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "e", Partition: 0})
			var lost []string
			for _, l := range m.Lost {
				lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
			}
			if len(rows) != 0 || strings.Join(lost, ", ") != tc.lost || m.NextOffset != tc.next || len(m.Snapshots) != 1 || m.Snapshots[0].LogStart != tc.next {
				t.Fatalf("rows %d, lost %v, next %d, snapshots %+v", len(rows), lost, m.NextOffset, m.Snapshots)
			}
			if sum.Partitions != 1 || strings.Contains(sum.String(), "every offset was already imported") {
				t.Errorf("summary %s", sum)
			}
			// Later, retention deleted more: the new empty active segment's
			// name says where the log ends now.
			writeSegment(t, pdir, tc.next+100)
			if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}}); err != nil {
				t.Fatal(err)
			}
			m, _ = readRows(t, dir, catalog.TopicPartition{Topic: "e", Partition: 0})
			if l := m.Lost[len(m.Lost)-1]; l.Kind != catalog.LostBetween || l.From != tc.next || l.To != tc.next+99 || m.NextOffset != tc.next+100 {
				t.Fatalf("after a later import: lost %+v, next %d", m.Lost, m.NextOffset)
			}
		})
	}
}
