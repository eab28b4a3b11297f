package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeManifest commits a data file of offsets first..last for tp in d,
// and the manifest that lists it.
func writeManifest(t *testing.T, d *Dir, tp TopicPartition, first, last int64) {
	t.Helper()
	var rows []Row
	for o := first; o <= last; o++ {
		rows = append(rows, Row{Partition: tp.Partition, Offset: o, Timestamp: 1700000000000 + o, Value: []byte("v")})
	}
	fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Topic: tp.Topic, Partition: tp.Partition, NextOffset: last + 1, Files: []FileEntry{fe}}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// snapshotOf lists every path under dir, so a test can tell it is untouched.
func snapshotOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return nil
	})
	return out
}

func TestOpenRefusesWhatIsNotASnapshotFolder(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	foreign := filepath.Join(root, "home")
	os.MkdirAll(filepath.Join(foreign, "src"), 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	made := filepath.Join(root, "made")
	if _, err := Create(made); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		want       error  // nil: opens
		text       string // in the error
	}{
		{"missing", filepath.Join(root, "nope"), ErrNoCatalog, "does not exist"},
		{"a file", file, ErrNoCatalog, "not a folder"},
		{"a folder of other files", foreign, ErrNoCatalog, "topicsnap.json"},
		{"an empty folder", empty, nil, ""},
		{"a folder topicsnap made", made, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshotOf(t, root)
			_, err := Open(c.path)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Open(%s): %v", c.path, err)
				}
			} else if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("Open(%s) = %v, want %v naming the path and %q", c.path, err, c.want, c.text)
			}
			if after := snapshotOf(t, root); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Fatalf("Open wrote to the disk: %v -> %v", before, after)
			}
		})
	}
}

func TestCheckCreateWritesNothing(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	foreign := filepath.Join(root, "home")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	cases := []struct {
		name, path string
		want       error
	}{
		{"a new folder", filepath.Join(root, "new", "snaps"), nil},
		{"under a file", filepath.Join(file, "snaps"), ErrNotWritable},
		{"a file", file, ErrNotWritable},
		{"a folder of other files", foreign, ErrNoCatalog},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshotOf(t, root)
			err := CheckCreate(c.path)
			if (c.want == nil) != (err == nil) || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("CheckCreate(%s) = %v, want %v", c.path, err, c.want)
			}
			if after := snapshotOf(t, root); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Fatalf("CheckCreate wrote to the disk: %v -> %v", before, after)
			}
		})
	}
}

// One damaged manifest costs its own partition, not the topic: ReadTopic
// returns the others and names the damaged one; Manifests, for callers
// that want all or nothing, still fails naming it.
func TestDamagedManifestSkipsOnlyItsPartition(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		writeManifest(t, d, TopicPartition{"orders", p}, 0, 9)
	}
	writeManifest(t, d, TopicPartition{"other", 0}, 0, 4)
	bad := filepath.Join(d.PartitionDir(TopicPartition{"orders", 1}), "manifest.json")
	if err := os.WriteFile(bad, []byte(`{"topic":"orders","partition":1,"files":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	tm, err := d.ReadTopic(t.Context(), "orders")
	if err != nil {
		t.Fatalf("ReadTopic: %v", err)
	}
	var got []int32
	for _, m := range tm.Manifests {
		got = append(got, m.Partition)
	}
	if len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Fatalf("readable partitions %v, want [0 2]", got)
	}
	if len(tm.Damaged) != 1 {
		t.Fatalf("damaged %v, want partition 1", tm.Damaged)
	}
	de := tm.Damaged[0]
	if de.TP != (TopicPartition{"orders", 1}) || de.Path != bad || !errors.Is(de, ErrBadManifest) ||
		!strings.HasPrefix(de.Error(), "topic orders partition 1: manifest damaged: topic=orders/partition=1/manifest.json: ") ||
		strings.Contains(de.Error(), d.Path) {
		t.Fatalf("damaged partition: %+v %q", de, de.Error())
	}
	ms, err := d.Manifests(t.Context(), "orders")
	if !errors.Is(err, ErrBadManifest) || !strings.Contains(err.Error(), "topic=orders/partition=1/manifest.json") || len(ms) != 2 {
		t.Fatalf("Manifests: %d manifests, %v", len(ms), err)
	}
	if tm, err := d.ReadTopic(t.Context(), "other"); err != nil || len(tm.Manifests) != 1 || len(tm.Damaged) != 0 {
		t.Fatalf("other topic: %+v %v", tm, err)
	}
	files, problems, err := d.Verify(t.Context())
	if err != nil || files != 3 || len(problems) != 1 || problems[0].Path != bad ||
		!strings.Contains(problems[0].Detail, "topic orders partition 1: manifest damaged") {
		t.Fatalf("verify: %d files, %+v, %v", files, problems, err)
	}
}

// TestVerifyNamesAManifestOfAnotherPartition: a manifest in a partition's
// folder that is another partition's is a problem catalog verify names,
// as ReadTopic does, in a folder as in a bucket (one Verify for both).
func TestVerifyNamesAManifestOfAnotherPartition(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeManifest(t, d, TopicPartition{"orders", 0}, 0, 9)
	writeManifest(t, d, TopicPartition{"orders", 2}, 0, 9)
	b, err := os.ReadFile(filepath.Join(d.PartitionDir(TopicPartition{"orders", 2}), manifestName))
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(d.PartitionDir(TopicPartition{"orders", 1}), manifestName)
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.WriteFile(moved, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, problems, err := d.Verify(t.Context())
	if err != nil || len(problems) != 1 || problems[0].Path != moved || !strings.Contains(problems[0].Detail, "not of the folder's") {
		t.Fatalf("Verify = %+v, %v; want the manifest of partition=1 named", problems, err)
	}
}

// TestCutsKeptByTopic: a cut is written in its topic's folder of cuts
// (snapshots/topic=NAME/ID.json); ClusterSnapshotsOf reads the named
// topics' folders and no other's, and the cuts of a folder written before
// cuts were kept by topic (snapshots/ID.json) by their content. A cut in a
// folder that is not its topic's is damaged, named as that folder's.
func TestCutsKeptByTopic(t *testing.T) {
	d, err := Create(filepath.Join(t.TempDir(), "dir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*ClusterSnapshot{{ID: "o1", Topic: "orders"}, {ID: "o2", Topic: "orders"}, {ID: "a1", Topic: "audit"}} {
		if err := d.WriteClusterSnapshot(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(d.Path, "snapshots", "topic=orders", "o2.json")); err != nil {
		t.Fatalf("the cut is not in its topic's folder: %v", err)
	}
	put := func(rel string, s ClusterSnapshot) {
		t.Helper()
		s.FormatVersion = FormatVersion
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d.Path, filepath.FromSlash(rel)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("snapshots/o0.json", ClusterSnapshot{ID: "o0", Topic: "orders"}) // the old layout
	put("snapshots/l0.json", ClusterSnapshot{ID: "l0", Topic: "legacy"})
	put("snapshots/topic=audit/stray.json", ClusterSnapshot{ID: "stray", Topic: "orders"})
	const stray = "snapshots/topic=audit/stray.json"
	cases := []struct {
		name    string
		all     bool
		topics  []string
		want    []string
		damaged string // the one SnapshotError's Rel, or ""
	}{
		{"orders", false, []string{"orders"}, []string{"o0", "o1", "o2"}, ""},
		{"audit", false, []string{"audit"}, []string{"a1"}, stray},
		{"old layout only", false, []string{"legacy"}, []string{"l0"}, ""},
		{"two", false, []string{"legacy", "orders", "orders"}, []string{"l0", "o0", "o1", "o2"}, ""},
		{"no such topic, not a name", false, []string{"nosuch", "../orders", "topic=orders"}, nil, ""},
		{"all", true, nil, []string{"a1", "l0", "o0", "o1", "o2"}, stray},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var snaps []*ClusterSnapshot
			var err error
			if c.all {
				snaps, err = d.ClusterSnapshots(context.Background())
			} else {
				snaps, err = d.ClusterSnapshotsOf(context.Background(), c.topics)
			}
			var ids []string
			for _, s := range snaps {
				ids = append(ids, s.ID)
			}
			if strings.Join(ids, ",") != strings.Join(c.want, ",") {
				t.Errorf("cuts %v, want %v", ids, c.want)
			}
			var se *SnapshotError
			switch {
			case c.damaged == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case c.damaged != "" && (!errors.As(err, &se) || se.Rel != c.damaged || !errors.Is(err, ErrBadManifest) || se.FolderTopic() != "audit"):
				t.Errorf("error %v, want a *SnapshotError naming %s, of audit's folder", err, c.damaged)
			}
		})
	}
}
