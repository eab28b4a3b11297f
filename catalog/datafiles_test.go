package catalog

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestDamagedDataFileCostsItsPartition: a data file missing, cut short,
// grown, or replaced by a link or a FIFO makes its partition damaged (named,
// with its path inside the folder), and the topic's other partitions read
// as before.
func TestDamagedDataFileCostsItsPartition(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(path string) error
		want   string
	}{
		{"missing", os.Remove, "missing"},
		{"cut short", func(p string) error { st, _ := os.Stat(p); return os.Truncate(p, st.Size()/2) }, "bytes where the manifest says"},
		{"grown", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.Write([]byte("x"))
			return err
		}, "bytes where the manifest says"},
		{"a link to /dev/zero", func(p string) error { os.Remove(p); return os.Symlink("/dev/zero", p) }, "escapes"},
		{"a FIFO", func(p string) error { os.Remove(p); return syscall.Mkfifo(p, 0o644) }, "not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			var damaged string
			for p := range int32(3) {
				tp := TopicPartition{Topic: "t", Partition: p}
				fe, err := d.WriteDataFile(t.Context(), tp, []Row{{Partition: p, Offset: 0, Value: []byte(`{"a":1}`)}, {Partition: p, Offset: 1}}, "s1")
				if err != nil {
					t.Fatal(err)
				}
				if err := d.WriteManifest(t.Context(), &Manifest{Topic: "t", Partition: p, NextOffset: 2, Files: []FileEntry{fe}}); err != nil {
					t.Fatal(err)
				}
				if p == 1 {
					damaged = d.FilePath(tp, fe.Name)
				}
			}
			if err := c.damage(damaged); err != nil {
				t.Fatal(err)
			}
			tm, err := d.ReadTopic(t.Context(), "t")
			if err != nil {
				t.Fatal(err)
			}
			if len(tm.Manifests) != 2 || tm.Manifests[0].Partition != 0 || tm.Manifests[1].Partition != 2 {
				t.Fatalf("readable partitions: %d, want 0 and 2", len(tm.Manifests))
			}
			if len(tm.Damaged) != 1 || tm.Damaged[0].TP.Partition != 1 || !errors.Is(tm.Damaged[0], ErrBadDataFile) {
				t.Fatalf("damaged: %v", tm.Damaged)
			}
			msg := tm.Damaged[0].Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "topic=t/partition=1/0") || strings.Contains(msg, dir) {
				t.Fatalf("damaged partition's message: %s", msg)
			}
		})
	}
}
