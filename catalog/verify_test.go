package catalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// verifyFolder is two topics, "orders" (partitions 0 and 1, one data
// file each) and "audit" (partition 0), each with one cut, written by the
// catalog's own writer.
func verifyFolder(t *testing.T) *catalog.Dir {
	t.Helper()
	dir := t.TempDir()
	d := catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{
		0: {catalogtest.Rows(0, 0, 3000)},
		1: {catalogtest.Rows(1, 0, 3000)},
	})
	catalogtest.Folder(t, dir, "audit", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 50)}})
	for _, topic := range []string{"orders", "audit"} {
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: topic, PartitionCount: 2}); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// corruptColumn flips bytes near the end of column's chunk in the data
// file at path (the last bytes of its last page), keeping the file's size
// and footer: bit rot that only a reader of that column's pages meets.
func corruptColumn(t *testing.T, path, column string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, ok := pf.Schema().Lookup(column)
	if !ok {
		t.Fatalf("no column %s", column)
	}
	cc := pf.Metadata().RowGroups[0].Columns[leaf.ColumnIndex].MetaData
	start := cc.DataPageOffset
	if cc.DictionaryPageOffset > 0 && cc.DictionaryPageOffset < start {
		start = cc.DictionaryPageOffset
	}
	end := start + cc.TotalCompressedSize
	for i := end - 8; i < end-2; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// linkOut moves path out of the folder and puts a symbolic link to it in
// its place: a folder moved to another disk and linked back.
func linkOut(t *testing.T, path string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.Rename(path, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, path); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyNamesEachDamage: catalog verify names each damage below, once,
// by its path, of the kind it is, with its fix, and checks every other
// file and cut (bughunt F3, F7, F8): a data file whose value pages are
// corrupt (its size, footer, partition and offset columns intact), a
// cluster snapshot empty, not JSON or a link out of the folder, a topic's
// folder, a partition's folder or a topic's folder of cuts that is a link
// out of the folder.
func TestVerifyNamesEachDamage(t *testing.T) {
	orders0 := catalog.TopicPartition{Topic: "orders", Partition: 0}
	cut := func(d *catalog.Dir, topic string) string {
		return filepath.Join(d.Path, "snapshots", "topic="+topic, "s1.json")
	}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, d *catalog.Dir) string // returns the path named
		kind   string
		detail string
		files  int // data files checked
	}{
		{"untouched", nil, "", "", 3},
		{"corrupt value pages", func(t *testing.T, d *catalog.Dir) string {
			p := d.FilePath(orders0, catalog.FileName(0, 2999))
			corruptColumn(t, p, "value")
			return p
		}, "data file", `column "value"`, 3},
		{"corrupt timestamp pages", func(t *testing.T, d *catalog.Dir) string {
			p := d.FilePath(orders0, catalog.FileName(0, 2999))
			corruptColumn(t, p, "timestamp")
			return p
		}, "data file", `column "timestamp"`, 3},
		{"an empty cut", func(t *testing.T, d *catalog.Dir) string {
			p := cut(d, "orders")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "cluster snapshot", "empty", 3},
		{"a cut cut short", func(t *testing.T, d *catalog.Dir) string {
			p := cut(d, "audit")
			if err := os.WriteFile(p, []byte(`{"id": `), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "cluster snapshot", "not JSON", 3},
		{"a cut linked out", func(t *testing.T, d *catalog.Dir) string {
			p := cut(d, "orders")
			linkOut(t, p)
			return p
		}, "cluster snapshot", "a link that leads outside the folder", 3},
		{"a topic's folder linked out", func(t *testing.T, d *catalog.Dir) string {
			p := filepath.Join(d.Path, "topic=orders")
			linkOut(t, p)
			return p
		}, "folder", "symbolic link", 1},
		{"a partition's folder linked out", func(t *testing.T, d *catalog.Dir) string {
			p := d.PartitionDir(orders0)
			linkOut(t, p)
			return p
		}, "folder", "symbolic link", 2},
		{"a topic's folder of cuts linked out", func(t *testing.T, d *catalog.Dir) string {
			p := filepath.Dir(cut(d, "audit"))
			linkOut(t, p)
			return p
		}, "folder", "symbolic link", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := verifyFolder(t)
			var path string
			if c.damage != nil {
				path = c.damage(t, d)
			}
			files, problems, err := d.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if files != c.files {
				t.Errorf("%d data files checked, want %d", files, c.files)
			}
			if c.damage == nil {
				if len(problems) > 0 {
					t.Fatalf("an untouched folder: %v", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("problems %v, want one naming %s", problems, path)
			}
			p := problems[0]
			if p.Path != path || !strings.Contains(p.Detail, c.detail) || p.Fix == "" || strings.Contains(p.Fix, "catalog verify") {
				t.Errorf("problem %+v, want %s %q with a fix", p, path, c.detail)
			}
			if kind := p.Kind; kind != c.kind {
				t.Errorf("problem of kind %q, want %q", kind, c.kind)
			}
		})
	}
}

// TestOpenNamesWhatTopicsnapJSONHolds: an empty or garbage topicsnap.json
// is an error naming the file, exit 9, whose hint says what it holds (as
// Create writes it) and not only to run catalog verify, which would say
// the same (bughunt F5).
func TestOpenNamesWhatTopicsnapJSONHolds(t *testing.T) {
	made, err := catalog.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(made.Path, "topicsnap.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, content, says string }{
		{"empty", "", "empty"},
		{"garbage", "garbage\n", "not JSON"},
		{"cut short", `{"format_version": `, "not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := catalog.Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(d.Path, "topicsnap.json")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = catalog.Open(d.Path)
			if !errors.Is(err, catalog.ErrBadManifest) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Open: %v, want an error naming %s: %s", err, p, c.says)
			}
			code, hint := exit.Of(err)
			if code != exit.BadFolder {
				t.Errorf("exit code %d, want 9", code)
			}
			var want map[string]any
			if err := json.Unmarshal(written, &want); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(hint, `"format_version": 2`) || !strings.Contains(hint, `"created_by": "topicsnap"`) || !strings.HasPrefix(hint, "make it a regular file holding") {
				t.Errorf("hint %q, want what Create writes (%s)", hint, written)
			}
			if len(want) != 2 || want["format_version"] != float64(2) || want["created_by"] != "topicsnap" {
				t.Errorf("Create writes %s; the hint says other fields", written)
			}
		})
	}
}
