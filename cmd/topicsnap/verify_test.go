package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// damagedFolder is a folder of two topics, "orders" (partitions 0 and 1)
// and "audit" (partition 0), one data file a partition and one cut a
// topic, written by the catalog's own writer.
func damagedFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snap")
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
	return dir
}

// rotPages flips bytes at the end of the value column's chunk of the data
// file at path: its size, footer, partition and offset columns intact.
func rotPages(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(strings.NewReader(string(b)), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := pf.Schema().Lookup("value")
	cc := pf.Metadata().RowGroups[0].Columns[leaf.ColumnIndex].MetaData
	start := cc.DataPageOffset
	if cc.DictionaryPageOffset > 0 && cc.DictionaryPageOffset < start {
		start = cc.DictionaryPageOffset
	}
	for i := start + cc.TotalCompressedSize - 8; i < start+cc.TotalCompressedSize-2; i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// moveOut moves path out of the folder and links it back: a folder moved
// to another disk.
func moveOut(t *testing.T, path string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.Rename(path, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, path); err != nil {
		t.Fatal(err)
	}
}

// TestLsAndVerifyNameEachDamage (bughunt F3, F5, F7, F8): each damage
// below costs ls only what is damaged (it lists the rest, exit 0, and warns
// naming it by its path in the folder), and catalog verify names it, exits
// 9 and says what it found ("1 data file damaged", plurals right) with a
// Try: that says what to do, not to run verify again. A damaged
// topicsnap.json stops both, naming the file and what it holds.
func TestLsAndVerifyNameEachDamage(t *testing.T) {
	file := func(topic string, p int32) string {
		return filepath.Join("topic="+topic, "partition="+string(rune('0'+p)), catalog.FileName(0, 2999))
	}
	everything := []string{"audit/0", "orders/0", "orders/1"}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		// ls: the partitions listed (nil: ls fails, exit 9) and what its
		// warning names ("" none).
		listed []string
		warns  string
		// verify: what its output names, its error's summary, its Try.
		names, found, try string
		// sql: what its warning names ("" not asked).
		sqlWarns string
	}{
		{"untouched", func(*testing.T, string) {}, everything, "", "", "", "", ""},
		{"corrupt value pages", func(t *testing.T, dir string) { rotPages(t, filepath.Join(dir, file("orders", 1))) },
			everything, "", file("orders", 1) + `: corrupt data in row group 0, column "value"`, "1 data file damaged", "back from a copy", ""},
		{"two data files cut short", func(t *testing.T, dir string) {
			for _, p := range []int32{0, 1} {
				if err := os.Truncate(filepath.Join(dir, file("orders", p)), 100); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"audit/0"}, file("orders", 0), file("orders", 1), "2 data files damaged", "dump the partition again", ""},
		{"an empty cut", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "snapshots", "topic=orders", "s1.json"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, everything, "snapshots/topic=orders/s1.json", "snapshots/topic=orders/s1.json: empty", "1 cluster snapshot damaged", "move it out of the folder", ""},
		{"a cut linked out", func(t *testing.T, dir string) { moveOut(t, filepath.Join(dir, "snapshots", "topic=audit", "s1.json")) },
			everything, "snapshots/topic=audit/s1.json", "snapshots/topic=audit/s1.json", "1 cluster snapshot damaged", "back from a backup", ""},
		{"a topic's folder linked out", func(t *testing.T, dir string) { moveOut(t, filepath.Join(dir, "topic=orders")) },
			[]string{"audit/0"}, "topic=orders: not a folder but a symbolic link", "topic=orders: not a folder but a symbolic link",
			"1 folder not read", "mount --bind", "topic=orders: not a folder but a symbolic link"},
		{"a partition's folder linked out", func(t *testing.T, dir string) { moveOut(t, filepath.Join(dir, "topic=orders", "partition=1")) },
			[]string{"audit/0", "orders/0"}, "topic=orders/partition=1", "topic=orders/partition=1: not a folder but a symbolic link",
			"1 folder not read", "replace each link", ""},
		{"an empty topicsnap.json", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "topicsnap.json"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "topicsnap.json is damaged (empty)", "", "topicsnap.json is damaged (empty)", `holding {"format_version": 2, "created_by": "topicsnap"}`, ""},
		{"a garbage topicsnap.json", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "topicsnap.json"), []byte("garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "topicsnap.json is damaged (not JSON", "", "topicsnap.json is damaged (not JSON", `holding {"format_version": 2, "created_by": "topicsnap"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := damagedFolder(t)
			c.damage(t, dir)

			code, out, errs := cli(t, "ls", "--dir", dir)
			var listed []string
			for _, l := range strings.Split(out, "\n") {
				if f := strings.Fields(l); len(f) > 1 && f[0] != "TOPIC" {
					listed = append(listed, f[0]+"/"+f[1])
				}
			}
			switch {
			case c.listed == nil:
				if code != exitBadFolder || !strings.Contains(errs, c.warns) {
					t.Errorf("ls: exit %d %q, want %d naming %q", code, errs, exitBadFolder, c.warns)
				}
			case code != exitOK || !slices.Equal(listed, c.listed):
				t.Errorf("ls: exit %d, listed %v, want 0 and %v: %s", code, listed, c.listed, errs)
			case c.warns == "" && errs != "":
				t.Errorf("ls warns %q", errs)
			case c.warns != "" && (!strings.HasPrefix(errs, "warning: ") || !strings.Contains(errs, c.warns) || strings.Contains(errs, filepath.Dir(dir)+"/snap/")):
				t.Errorf("ls stderr %q, want a warning naming %q by its path in the folder", errs, c.warns)
			}

			code, out, errs = cli(t, "catalog", "verify", "--dir", dir)
			if c.found == "" {
				if code != exitOK || !strings.Contains(out, "all match") {
					t.Errorf("verify of an untouched folder: exit %d %q %q", code, out, errs)
				}
				if !strings.Contains(out, "3 data files and 2 cluster snapshots checked") {
					t.Errorf("verify: %q, want 3 data files and 2 cluster snapshots checked", out)
				}
				return
			}
			try, _, _ := strings.Cut(errs[strings.Index(errs, "Try: ")+1:], "\n")
			if code != exitBadFolder || !strings.Contains(out+errs, c.names) || !strings.Contains(errs, c.found) ||
				!strings.Contains(errs, "Try: ") || !strings.Contains(try, c.try) || strings.HasPrefix(try, "ry: run: topicsnap catalog verify") {
				t.Errorf("verify: exit %d\nstdout %q\nstderr %q\nwant %d naming %q, %q and a Try: with %q",
					code, out, errs, exitBadFolder, c.names, c.found, c.try)
			}
			if strings.Contains(errs, "problems") || strings.Contains(errs, "manifest is not valid") && !strings.Contains(c.found, "manifest") {
				t.Errorf("verify's error says problems or a manifest: %q", errs)
			}

			if c.sqlWarns != "" {
				// A question about the topic left out says why it is not there.
				code, _, errs = cli(t, "sql", "--dir", dir, "-c", "SELECT count(*) AS n FROM orders", "--format", "csv")
				if code == exitOK || !strings.Contains(errs, "warning: "+c.sqlWarns) {
					t.Errorf("sql on orders: exit %d %q, want a warning naming %q", code, errs, c.sqlWarns)
				}
				if code, out, errs := cli(t, "sql", "--dir", dir, "-c", "SELECT count(*) AS n FROM audit", "--format", "csv"); code != exitOK || out != "n\n50\n" {
					t.Errorf("sql on audit: exit %d %q %q, want its 50 records", code, out, errs)
				}
			}
		})
	}
}
