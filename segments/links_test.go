package segments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportSaysWhatItDoesNotFollow: a log directory's partition folder
// that is a symbolic link (moved to another disk and linked back), a
// segment that is one, a FIFO named as a segment, or a .log whose name is
// not a base offset of 20 digits, was left out without a word: the import said "1 partitions", exit 0, and the partition or the
// segment's offsets were simply not there. Each is now named in a warning,
// and what is beside it imported.
func TestImportSaysWhatItDoesNotFollow(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, logs, elsewhere string)
		rows int
		want string
	}{
		{"a partition folder that is a link", func(t *testing.T, logs, elsewhere string) {
			other := filepath.Join(elsewhere, "b-0")
			os.Mkdir(other, 0o755)
			writeSegment(t, other, 0, data(0, 0, -1, "b"))
			if err := os.Symlink(other, filepath.Join(logs, "b-0")); err != nil {
				t.Fatal(err)
			}
		}, 1, "b-0 is a symbolic link, not a folder: partition b/0 not imported"},
		{"a partition folder that is a FIFO", func(t *testing.T, logs, elsewhere string) {
			if err := syscall.Mkfifo(filepath.Join(logs, "b-0"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 1, "b-0 is a FIFO, not a folder"},
		{"a segment that is a link", func(t *testing.T, logs, elsewhere string) {
			seg := writeSegment(t, elsewhere, 1, data(1, 0, -1, "later"))
			if err := os.Symlink(seg, filepath.Join(logs, "a-0", "00000000000000000001.log")); err != nil {
				t.Fatal(err)
			}
		}, 1, "00000000000000000001.log is a symbolic link, not a regular file: not imported, so partition a/0 lacks the offsets it may hold"},
		{"a segment that is a FIFO", func(t *testing.T, logs, elsewhere string) {
			if err := syscall.Mkfifo(filepath.Join(logs, "a-0", "00000000000000000001.log"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 1, "00000000000000000001.log is a FIFO, not a regular file"},
		{"a segment that is a folder", func(t *testing.T, logs, elsewhere string) {
			os.Mkdir(filepath.Join(logs, "a-0", "00000000000000000001.log"), 0o755)
		}, 1, "00000000000000000001.log is a folder, not a regular file"},
		// Named otherwise than its base offset: left out without a word before.
		{"a segment of 21 digits", func(t *testing.T, logs, elsewhere string) {
			writeSegment(t, elsewhere, 1, data(1, 0, -1, "later"))
			os.Rename(filepath.Join(elsewhere, "00000000000000000001.log"), filepath.Join(logs, "a-0", "000000000000000000001.log"))
		}, 1, "000000000000000000001.log: not a segment's name (20 digits and .log, its base offset): not imported, so partition a/0 lacks the offsets it may hold"},
		{"a segment named segment.log", func(t *testing.T, logs, elsewhere string) {
			os.WriteFile(filepath.Join(logs, "a-0", "segment.log"), data(1, 0, -1, "later"), 0o644)
		}, 1, "segment.log: not a segment's name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs, elsewhere := t.TempDir(), t.TempDir()
			os.Mkdir(filepath.Join(logs, "a-0"), 0o755)
			writeSegment(t, filepath.Join(logs, "a-0"), 0, data(0, 0, -1, "a"))
			tc.make(t, logs, elsewhere)
			var warns []string
			dir := t.TempDir()
			sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{logs}, Warn: func(s string) { warns = append(warns, s) }})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Records != int64(tc.rows) {
				t.Fatalf("%d records", sum.Records)
			}
			if _, rows := readRows(t, dir, catalog.TopicPartition{Topic: "a", Partition: 0}); len(rows) != 1 {
				t.Fatalf("partition a/0: %d rows", len(rows))
			}
			if !strings.Contains(strings.Join(warns, "\n"), tc.want) {
				t.Fatalf("warnings %q lack %q", warns, tc.want)
			}
		})
	}
}
