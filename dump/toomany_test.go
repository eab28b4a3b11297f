package dump

import (
	"fmt"
	"io/fs"
	"net"
	"syscall"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/topicsnap/topicsnap/catalog/store"
)

// TestOpenFilesLimitStopsTheRound: the limit of open files met by one
// topic's snapshot is the process's, and the next topic would meet it too:
// it stops new snapshots from starting, as a full disk does. Before, it was
// a damaged manifest (exit 9), the topic's own failure, and every other
// topic went on to meet it.
func TestOpenFilesLimitStopsTheRound(t *testing.T) {
	err := fmt.Errorf("read manifest: %w", store.Damaged(&fs.PathError{Op: "openat", Path: "topic=t/partition=0/manifest.json", Err: syscall.EMFILE}))
	if !stopsTheRound(err) {
		t.Fatalf("%v does not stop the round", err)
	}
	if stopsTheRound(fmt.Errorf("read manifest: %w", store.Damaged(&fs.PathError{Op: "read", Path: "m", Err: syscall.EISDIR}))) {
		t.Fatal("a damaged manifest stops the round: it costs its topic")
	}
}

// TestFolderErrorsAreNoOutageToWaitOut: --follow waits out what transient
// calls an outage of the cluster. A syscall.Errno is a net.Error (it has
// Timeout and Temporary), so the limit of open files met in the folder was
// one: a follow of a cluster of 2,000 partitions under ulimit -n 1024 said
// "snapshot of T failed (... too many open files ...); trying again in 3s"
// for every topic every round, for ever, and never dumped them, where a
// one-shot dump stops with exit 2 and says to raise the limit. The folder's
// errors are not the cluster's; a full disk is still waited out.
func TestFolderErrorsAreNoOutageToWaitOut(t *testing.T) {
	emfile := &fs.PathError{Op: "openat", Path: "topic=t/partition=0/manifest.json", Err: syscall.EMFILE}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"open files, reading a manifest", fmt.Errorf("partition not read: %w", store.Damaged(emfile)), false},
		{"open files, writing", fmt.Errorf("write: %w", store.Classify(emfile)), false},
		{"folder not writable", fmt.Errorf("write: %w", store.Classify(&fs.PathError{Op: "open", Path: "x", Err: syscall.EACCES})), false},
		{"a file of the folder missing", fmt.Errorf("read: %w", &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}), false},
		{"disk full", fmt.Errorf("write: %w", store.Classify(&fs.PathError{Op: "write", Path: "x", Err: syscall.ENOSPC})), true},
		{"connection refused", fmt.Errorf("fetch: %w", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}), true},
		{"a retriable Kafka error", fmt.Errorf("list offsets: %w", kerr.NotLeaderForPartition), true},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("%s: transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
