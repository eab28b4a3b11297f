package catalog

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// noMoreFiles lowers the process's limit of open files to the files open
// now, so that (after one listing, which closes its own) the next open
// fails with EMFILE, until the returned func puts it back.
func noMoreFiles(t *testing.T) func() {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	low := lim
	low.Cur = uint64(len(fds) - 1) // the listing's own fd is closed now
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	back := func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(back)
	return back
}

// TestReadTopicPastTheOpenFilesLimit: a manifest that could not be opened
// for the limit of open files left its partition out as "manifest
// damaged" (tm.Damaged), so readers judged the other partitions as the
// whole topic and said damage. Now ReadTopic fails, naming the limit (exit 2).
func TestReadTopicPastTheOpenFilesLimit(t *testing.T) {
	dir := t.TempDir()
	d, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		if err := d.WriteManifest(t.Context(), &Manifest{FormatVersion: FormatVersion, Topic: "t", Partition: p, NextOffset: -1}); err != nil {
			t.Fatal(err)
		}
	}
	back := noMoreFiles(t)
	tm, err := d.ReadTopic(t.Context(), "t")
	back()
	if err == nil {
		t.Fatalf("no error; %d manifests, %d damaged: %v", len(tm.Manifests), len(tm.Damaged), tm.Damaged)
	}
	if !errors.Is(err, ErrTooManyFiles) || errors.Is(err, ErrBadManifest) || strings.Contains(err.Error(), "damaged") {
		t.Fatalf("%v: want the limit of open files, not damage", err)
	}
	t.Log(err)
	if code, _ := exit.Of(err); code != exit.Error {
		t.Fatalf("exit %d, want 2", code)
	}
}
