package queries

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// A compact --grace 0 that commits and removes the files it merged while
// the engine opens (between its read of the manifests and its check of the
// files) costs no partition: before, the partition was left out with a
// warning that it was damaged, and count(*) answered the others' rows.
func TestOpenDuringCompactLeavesNoPartitionOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	var files [][]catalog.Row
	for i := range 10 {
		files = append(files, catalogtest.Rows(0, int64(i*20), 20))
	}
	d := catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{0: files, 1: {catalogtest.Rows(1, 0, 5)}})
	compacted := false
	defer func(f func(string)) { afterReadTopic = f }(afterReadTopic)
	afterReadTopic = func(string) {
		if compacted {
			return
		}
		compacted = true
		st, err := d.Compact(t.Context(), catalog.CompactOptions{TargetBytes: catalog.DefaultCompactTarget})
		if err != nil || st.Merged == 0 {
			t.Fatalf("compact: %+v %v", st, err)
		}
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !compacted {
		t.Fatal("the engine opened without reading the topic")
	}
	if p := e.Problems(); len(p) > 0 {
		t.Errorf("problems: %q", p)
	}
	rows, err := e.Query(ctx, `SELECT count(*) FROM orders`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n int64
	rows.Next()
	if err := rows.Scan(&n); err != nil || n != 205 {
		t.Fatalf("count(*) = %d (%v), want 205", n, err)
	}
}
