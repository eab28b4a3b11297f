package catalog_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestMirrorCopyMirrorsDamage: Copy refuses a source whose data file is
// cut short or missing; MirrorCopy (the bucket's local cache) copies the
// rest, names each, and leaves the damage in dst as the source has it, so
// that reading dst costs those partitions alone; once the source is whole
// again, the next MirrorCopy makes dst whole.
func TestMirrorCopyMirrorsDamage(t *testing.T) {
	src := catalogtest.Folder(t, t.TempDir(), "orders", map[int32][][]catalog.Row{
		0: {catalogtest.Rows(0, 0, 100)}, 1: {catalogtest.Rows(1, 0, 100)}, 2: {catalogtest.Rows(2, 0, 100)},
	})
	file := func(p int32) string {
		return src.FilePath(catalog.TopicPartition{Topic: "orders", Partition: p}, catalog.FileName(0, 99))
	}
	whole, err := os.ReadFile(file(1))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := catalog.Create(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.MirrorCopy(t.Context(), src, dst); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file(1), 500); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Copy(t.Context(), src, dstPath(t)); err == nil {
		t.Fatal("Copy of a damaged source: no error")
	}
	st, err := catalog.MirrorCopy(t.Context(), src, dst)
	if err != nil || len(st.Damaged) != 2 || !strings.Contains(st.Damaged[0], "500 bytes where the manifest says") || !strings.HasSuffix(st.Damaged[1], ": missing") {
		t.Fatalf("MirrorCopy = %+v, %v", st, err)
	}
	tm, err := dst.ReadTopic(t.Context(), "orders")
	if err != nil || len(tm.Manifests) != 1 || len(tm.Damaged) != 2 || !errors.Is(tm.Damaged[0], catalog.ErrBadDataFile) || !errors.Is(tm.Damaged[1], catalog.ErrBadDataFile) {
		t.Fatalf("dst: %+v %v", tm, err)
	}
	if err := os.WriteFile(file(1), whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := catalog.MirrorCopy(t.Context(), src, dst); err != nil || len(st.Damaged) != 1 {
		t.Fatalf("partition 1 put back: %+v %v", st, err)
	}
	if tm, err := dst.ReadTopic(t.Context(), "orders"); err != nil || len(tm.Manifests) != 2 || len(tm.Damaged) != 1 || tm.Damaged[0].TP.Partition != 2 {
		t.Fatalf("dst, partition 1 put back: %+v %v", tm, err)
	}
}

// dstPath is a fresh folder made for a copy.
func dstPath(t *testing.T) *catalog.Dir {
	t.Helper()
	d, err := catalog.Create(filepath.Join(t.TempDir(), "copy"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
