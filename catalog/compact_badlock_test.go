package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestCompactBadLockCostsItsPartition: a partition whose lock file is not
// a regular file (a folder, a link, a FIFO) is refused by name, the
// partitions before and after it are compacted, and the run still fails
// with the bad folder's code at the end: nothing is skipped silently.
func TestCompactBadLockCostsItsPartition(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, lock string)
		kind string
	}{
		{"folder", func(t *testing.T, lock string) { mustNil(t, os.Mkdir(lock, 0o755)) }, "a folder"},
		{"link", func(t *testing.T, lock string) {
			mustNil(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), lock))
		}, "a symbolic link"},
		{"FIFO", func(t *testing.T, lock string) { mustNil(t, syscall.Mkfifo(lock, 0o644)) }, "a FIFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			for p := range int32(3) {
				writeSmallFiles(t, d, TopicPartition{"events", p}, 4, 10, false, false)
			}
			bad := TopicPartition{"events", 1}
			lock := filepath.Join(d.PartitionDir(bad), lockName)
			_ = os.Remove(lock)
			tc.make(t, lock)
			st, err := d.Compact(t.Context(), CompactOptions{MinAge: time.Hour})
			if !errors.Is(err, ErrBadLock) {
				t.Fatalf("err = %v; want ErrBadLock", err)
			}
			if code, _ := exit.Of(err); code != exit.BadFolder {
				t.Fatalf("exit code %d, want %d", code, exit.BadFolder)
			}
			if !strings.Contains(err.Error(), lock) || !strings.Contains(err.Error(), tc.kind) {
				t.Fatalf("err = %v; want it to name %s as %s", err, lock, tc.kind)
			}
			if st.Written != 2 || st.Merged != 8 {
				t.Fatalf("stats %+v; want partitions 0 and 2 merged (2 written from 8)", st)
			}
			if len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], lock) || !strings.Contains(st.Skipped[0], tc.kind) {
				t.Fatalf("skipped %q; want the bad lock named", st.Skipped)
			}
			for p := range int32(3) {
				m, err := d.ReadManifest(t.Context(), TopicPartition{"events", p})
				if err != nil {
					t.Fatal(err)
				}
				want := 1
				if p == 1 {
					want = 4
				}
				if len(m.Files) != want {
					t.Fatalf("partition %d lists %d files, want %d", p, len(m.Files), want)
				}
			}
		})
	}
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
