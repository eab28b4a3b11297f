package dump

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"

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
