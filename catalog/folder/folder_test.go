package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// TestGetSaysTheKind: what Get cannot read says its kind: missing
// (os.ErrNotExist, unmarked), or the file's own (Damaged: a FIFO, past
// the cap, a link out of the root), so catalog names a damaged file and
// goes on.
func TestGetSaysTheKind(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	s := New(root)
	if _, err := s.Put(t.Context(), "a/ok.json", []byte("{}"), store.Cond{IfAbsent: true}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "a", "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "x.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(root, "a", "out.json")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		rel     string
		max     int64
		damaged bool
		want    error
	}{
		{"a/ok.json", 10, false, nil},
		{"a/none.json", 10, false, os.ErrNotExist},
		{"a/fifo.json", 10, true, safefile.ErrNotRegular},
		{"a/ok.json", 1, true, safefile.ErrTooLarge},
		{"a/out.json", 10, true, nil},
	}
	for _, c := range cases {
		t.Run(c.rel, func(t *testing.T) {
			b, _, err := s.Get(t.Context(), c.rel, c.max)
			if store.IsDamaged(err) != c.damaged || c.want != nil && !errors.Is(err, c.want) ||
				err == nil && (c.damaged || c.want != nil || string(b) != "{}") {
				t.Fatalf("Get(%s, %d) = %q, %v; want damaged %v, %v", c.rel, c.max, b, err, c.damaged, c.want)
			}
		})
	}
}

// TestPutReplacesAndLeavesNoTemp: a folder's Put replaces what is there
// (its writers are kept apart by Lock, not by conditions) and leaves no
// temp file; Delete of what is gone is fine; List of a missing folder is
// empty.
func TestPutReplacesAndLeavesNoTemp(t *testing.T) {
	root := t.TempDir()
	s := New(root)
	for _, b := range []string{"one", "two"} {
		if _, err := s.Put(t.Context(), "p/m.json", []byte(b), store.Cond{IfMatch: "stale"}); err != nil {
			t.Fatal(err)
		}
	}
	es, err := s.List(t.Context(), "p")
	if err != nil || len(es) != 1 || es[0].Name != "m.json" || es[0].Size != 3 || es[0].Dir {
		t.Fatalf("List = %+v, %v; want m.json alone, 3 bytes", es, err)
	}
	if b, _, _ := s.Get(t.Context(), "p/m.json", 10); string(b) != "two" {
		t.Fatalf("holds %q, want the second write", b)
	}
	if err := s.Delete(t.Context(), "p/gone.json"); err != nil {
		t.Fatalf("Delete of a missing file: %v", err)
	}
	if es, err := s.List(t.Context(), "nowhere"); err != nil || len(es) != 0 {
		t.Fatalf("List of a missing folder = %v, %v", es, err)
	}
}

// TestLockIsExclusive: a second Lock of the same file fails at once with
// ErrLocked naming the partition; after Unlock it is taken.
func TestLockIsExclusive(t *testing.T) {
	s := New(t.TempDir())
	h, err := s.Lock(t.Context(), "topic=t/partition=0/.lock", "t-0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(t.Context(), "topic=t/partition=0/.lock", "t-0"); !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "t-0") {
		t.Fatalf("second Lock = %v, want ErrLocked naming t-0", err)
	}
	h.Unlock()
	h2, err := s.Lock(t.Context(), "topic=t/partition=0/.lock", "t-0")
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	h2.Unlock()
}

// TestVacantNamesWhatIsThere: a root without topicsnap.json is an empty
// catalog only when empty or holding topic folders.
func TestVacantNamesWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), nil, 0o644)
	topics := filepath.Join(dir, "topics")
	os.MkdirAll(filepath.Join(topics, "topic=a"), 0o755)
	os.WriteFile(filepath.Join(topics, "notes.txt"), nil, 0o644)
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	cases := []struct{ root, want string }{
		{filepath.Join(dir, "nope"), "does not exist"},
		{file, "is a file, not a folder"},
		{other, "holds other files (notes.txt)"},
		{topics, ""},
		{empty, ""},
	}
	for _, c := range cases {
		err := New(c.root).Vacant(t.Context())
		if c.want == "" && err != nil || c.want != "" && (!errors.Is(err, store.ErrNoCatalog) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Vacant(%s) = %v, want %q", c.root, err, c.want)
		}
	}
}

// TestWritableNamesALinkLoop: a dump's --dir that is a loop of symbolic
// links is a folder that cannot be written (exit 7) naming the loop, where
// it was "stat l1: too many levels of symbolic links" (exit 2).
func TestWritableNamesALinkLoop(t *testing.T) {
	dir := t.TempDir()
	l1, l2 := filepath.Join(dir, "l1"), filepath.Join(dir, "l2")
	if err := os.Symlink(l2, l1); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(l1, l2); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{l1, filepath.Join(l1, "x")} {
		_, err := New(root).Writable(t.Context())
		if !errors.Is(err, store.ErrNotWritable) || !strings.Contains(err.Error(), "loop of symbolic links") {
			t.Errorf("Writable(%s) = %v, want ErrNotWritable naming the loop", root, err)
		}
	}
}
