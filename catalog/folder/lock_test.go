package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/catalog/store"
)

// A partition's lock file in a handed-over folder that is not a regular
// file is refused by name (exit 9), never opened nor followed: a dangling
// link would have the lock create a file where it points, outside the
// folder.
func TestLockFileNotRegularIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, lock, outside string)
		kind string
	}{
		{"folder", func(t *testing.T, lock, _ string) { must(t, os.Mkdir(lock, 0o755)) }, "a folder"},
		{"link to a file outside", func(t *testing.T, lock, outside string) {
			must(t, os.WriteFile(outside, []byte("x"), 0o644))
			must(t, os.Symlink(outside, lock))
		}, "a symbolic link"},
		{"dangling link", func(t *testing.T, lock, outside string) { must(t, os.Symlink(outside, lock)) }, "a symbolic link"},
		{"FIFO", func(t *testing.T, lock, _ string) { must(t, syscall.Mkfifo(lock, 0o644)) }, "a FIFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			outside := filepath.Join(t.TempDir(), "elsewhere")
			part := filepath.Join(root, "topic=t", "partition=0")
			must(t, os.MkdirAll(part, 0o755))
			lock := filepath.Join(part, ".lock")
			tc.make(t, lock, outside)
			before, _ := os.ReadFile(outside)
			_, beforeErr := os.Stat(outside)
			h, err := New(root).Lock(t.Context(), "topic=t/partition=0/.lock", "t/0")
			if err == nil {
				h.Unlock()
				t.Fatalf("lock taken through %s", tc.name)
			}
			if !errors.Is(err, store.ErrBadLock) || !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), tc.kind) {
				t.Fatalf("err = %v; want ErrBadLock naming %s as %s", err, lock, tc.kind)
			}
			after, _ := os.ReadFile(outside)
			_, afterErr := os.Stat(outside)
			if string(after) != string(before) || (beforeErr == nil) != (afterErr == nil) {
				t.Fatalf("the lock touched %s outside the folder", outside)
			}
		})
	}
	// A regular lock file, and none at all, are taken.
	root := t.TempDir()
	s := New(root)
	h, err := s.Lock(t.Context(), "topic=t/partition=0/.lock", "t/0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lock(t.Context(), "topic=t/partition=0/.lock", "t/0"); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	h.Unlock()
	h, err = s.Lock(t.Context(), "topic=t/partition=0/.lock", "t/0")
	if err != nil {
		t.Fatal(err)
	}
	h.Unlock()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
