package queries

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestDamagedSnapshotHidesOnlyItself: a cluster snapshot that cannot be
// read (its id a path, a FIFO in its place) is named in Problems by its
// path in the folder; the others still fill the snapshots table, and the
// engine opens without waiting on the FIFO.
func TestDamagedSnapshotHidesOnlyItself(t *testing.T) {
	dir := fixture(t)
	evil, _ := json.Marshal(catalog.ClusterSnapshot{FormatVersion: 1, ID: "../../x", Topic: "shop.events-v2"})
	if err := os.WriteFile(filepath.Join(dir, "snapshots", "x.json"), evil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "snapshots", "y.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT string_agg(snapshot_id, ',') FROM snapshots`); got != "s1" {
		t.Fatalf("snapshots = %q, want s1", got)
	}
	probs := strings.Join(e.Problems(), "\n")
	for _, want := range []string{"snapshots/x.json", "snapshots/y.json"} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems do not name %s:\n%s", want, probs)
		}
	}
	if strings.Contains(probs, dir) {
		t.Errorf("problems show the folder's path:\n%s", probs)
	}
}
