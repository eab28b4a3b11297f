package catalog_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// tampering is one way to rewrite the rows of a data file that keeps its
// size and row count in its manifest, so only a check of the rows finds
// it, and what that check must say.
type tampering struct {
	name   string
	change func([]catalog.Row) []catalog.Row
	detail string // in the problem
}

// tamperings rewrite the rows of a file of 40 rows, offsets first to
// first+39.
func tamperings(first int64) []tampering {
	return []tampering{
		{"offset past the file's range", func(rs []catalog.Row) []catalog.Row {
			rs[15].Offset = first + 45
			return rs
		}, "offset outside the file's range"},
		{"two rows swapped", func(rs []catalog.Row) []catalog.Row {
			rs[10], rs[11] = rs[11], rs[10]
			return rs
		}, "offsets out of order"},
		{"wrong partition", func(rs []catalog.Row) []catalog.Row {
			rs[5].Partition = 2
			return rs
		}, "partition column 2 in the folder of partition 1"},
		{"duplicated offset", func(rs []catalog.Row) []catalog.Row {
			rs[20].Offset = rs[19].Offset
			return rs
		}, "again"},
		{"a row dropped, the last duplicated", func(rs []catalog.Row) []catalog.Row {
			return append(rs[:39:39], rs[38])
		}, "again"},
		{"last row's offset lowered", func(rs []catalog.Row) []catalog.Row {
			rs[39].Offset--
			return rs
		}, "again"},
	}
}

// TestVerifyChecksRows: catalog verify passes a folder made by the
// catalog's writer, and names each data file whose rows were rewritten to
// contradict its manifest (by its path, with the row and what is wrong),
// and no other file.
func TestVerifyChecksRows(t *testing.T) {
	const topic = "orders"
	for _, tc := range append([]tampering{{name: "untouched"}}, tamperings(40)...) {
		t.Run(tc.name, func(t *testing.T) {
			d := catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{
				0: {catalogtest.Rows(0, 0, 40)},
				1: {catalogtest.Rows(1, 0, 40), catalogtest.Rows(1, 40, 40), catalogtest.Rows(1, 80, 40)},
			})
			tp := catalog.TopicPartition{Topic: topic, Partition: 1}
			name := catalog.FileName(40, 79)
			if tc.change != nil {
				catalogtest.Rewrite(t, d, tp, name, tc.change)
			}
			files, problems, err := d.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if files != 4 {
				t.Errorf("%d files checked, want 4", files)
			}
			if tc.change == nil {
				if len(problems) > 0 {
					t.Fatalf("an untouched folder: %v", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("%d problems, want 1 naming %s: %v", len(problems), name, problems)
			}
			p := problems[0]
			if p.Path != d.FilePath(tp, name) || !strings.Contains(p.Detail, tc.detail) || !strings.Contains(p.Fix, "re-dump offsets 40-79") {
				t.Errorf("problem %q, want the path %s and %q", p, d.FilePath(tp, name), tc.detail)
			}
		})
	}
}

// TestCheckRowsSaysWhichRow: the check's error is a *RowError naming the
// file by its path relative to the folder, the row and its offset.
func TestCheckRowsSaysWhichRow(t *testing.T) {
	for _, tc := range tamperings(0) {
		t.Run(tc.name, func(t *testing.T) {
			d := catalogtest.Folder(t, t.TempDir(), "t", map[int32][][]catalog.Row{1: {catalogtest.Rows(1, 0, 40)}})
			tp := catalog.TopicPartition{Topic: "t", Partition: 1}
			catalogtest.Rewrite(t, d, tp, catalog.FileName(0, 39), tc.change)
			m, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			err = catalog.CheckRows(context.Background(), d.FilePath(tp, m.Files[0].Name), tp, m.Files[0])
			var re *catalog.RowError
			if !errors.Is(err, catalog.ErrBadRows) || !errors.As(err, &re) {
				t.Fatalf("CheckRows: %v, want a *RowError", err)
			}
			if re.Path != catalog.RelFilePath(tp, catalog.FileName(0, 39)) || !strings.HasPrefix(re.Path, "topic=t/partition=1/") || filepath.IsAbs(re.Path) || !strings.HasPrefix(err.Error(), re.Path+": ") || !strings.Contains(err.Error(), tc.detail) {
				t.Errorf("error %q (path %q), want the relative path and %q", err, re.Path, tc.detail)
			}
		})
	}
}

// TestVerifyNamesWhatIsNotAFile: a FIFO or a link to a device in place of
// a manifest or a data file is a problem naming it, never a hang or an
// endless read, and a missing data file is said to be missing; the other
// partition is still checked.
func TestVerifyNamesWhatIsNotAFile(t *testing.T) {
	const topic = "orders"
	for _, tc := range []struct {
		name    string
		replace func(d *catalog.Dir) string // puts something in a file's place, returns its path
		detail  string
	}{
		{"a FIFO for a data file", func(d *catalog.Dir) string {
			p := d.FilePath(catalog.TopicPartition{Topic: topic, Partition: 1}, catalog.FileName(0, 39))
			mkfifo(t, p)
			return p
		}, "not a regular file"},
		{"a link to /dev/zero for a data file", func(d *catalog.Dir) string {
			p := d.FilePath(catalog.TopicPartition{Topic: topic, Partition: 1}, catalog.FileName(0, 39))
			relink(t, "/dev/zero", p)
			return p
		}, "escapes"},
		{"a data file missing", func(d *catalog.Dir) string {
			p := d.FilePath(catalog.TopicPartition{Topic: topic, Partition: 1}, catalog.FileName(0, 39))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "missing"},
		{"a FIFO for a manifest", func(d *catalog.Dir) string {
			p := filepath.Join(d.PartitionDir(catalog.TopicPartition{Topic: topic, Partition: 1}), "manifest.json")
			mkfifo(t, p)
			return p
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{
				0: {catalogtest.Rows(0, 0, 40)},
				1: {catalogtest.Rows(1, 0, 40)},
			})
			path := tc.replace(d)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, problems, err := d.Verify(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 1 || problems[0].Path != path || !strings.Contains(problems[0].Detail, tc.detail) {
				t.Fatalf("problems %v, want one naming %s: %q", problems, path, tc.detail)
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

func relink(t *testing.T, to, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, path); err != nil {
		t.Fatal(err)
	}
}

// TestRowCheck holds sequences of (partition, offset) to a manifest entry
// of partition 3, offsets 10-19, 5 rows: gaps are fine (compaction,
// markers), anything else names the first row that breaks it.
func TestRowCheck(t *testing.T) {
	fe := catalog.FileEntry{Name: catalog.FileName(10, 19), FirstOffset: 10, LastOffset: 19, Records: 5}
	type row struct {
		p int32
		o int64
	}
	for _, tc := range []struct {
		name   string
		rows   []row
		badRow int64  // -2: no error; -1: End's
		detail string // in the error
	}{
		{"exact with gaps", []row{{3, 10}, {3, 12}, {3, 13}, {3, 17}, {3, 19}}, -2, ""},
		{"another partition", []row{{3, 10}, {4, 12}}, 1, "partition column 4 in the folder of partition 3"},
		{"before the range", []row{{3, 9}}, 0, "outside the file's range 10-19"},
		{"past the range", []row{{3, 10}, {3, 20}}, 1, "outside the file's range 10-19"},
		{"negative", []row{{3, 10}, {3, -1}}, 1, "outside"},
		{"first not the first offset", []row{{3, 11}}, 0, "first offset 10"},
		{"repeated", []row{{3, 10}, {3, 12}, {3, 12}}, 2, "offset 12 again"},
		{"backwards", []row{{3, 10}, {3, 14}, {3, 12}}, 2, "out of order: 12 after 14"},
		{"too few rows", []row{{3, 10}, {3, 12}, {3, 13}, {3, 19}}, -1, "4 rows, its manifest says 5"},
		{"ends early", []row{{3, 10}, {3, 11}, {3, 12}, {3, 13}, {3, 14}}, -1, "last offset 14, its manifest says 19"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := catalog.NewRowCheck(catalog.TopicPartition{Topic: "t", Partition: 3}, fe)
			var err error
			for _, r := range tc.rows {
				if err = c.Row(r.p, r.o); err != nil {
					break
				}
			}
			if err == nil {
				err = c.End()
			}
			var re *catalog.RowError
			switch {
			case tc.badRow == -2 && err != nil:
				t.Fatalf("%v, want none", err)
			case tc.badRow == -2:
			case !errors.As(err, &re) || re.Row != tc.badRow || !strings.Contains(err.Error(), tc.detail) || re.Path != catalog.RelFilePath(catalog.TopicPartition{Topic: "t", Partition: 3}, fe.Name):
				t.Fatalf("%v, want row %d: %q", err, tc.badRow, tc.detail)
			}
		})
	}
}
