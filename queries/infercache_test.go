package queries

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInferCache: the second open of a folder takes the structure from the
// cache, and a changed file (a new key) is inferred again.
func TestInferCache(t *testing.T) {
	ctx := context.Background()
	old := inferCacheDir
	inferCacheDir = t.TempDir()
	defer func() { inferCacheDir = old }()
	dir := fixture(t)
	typeOf := func() string {
		e, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		return query1(t, e, `SELECT any_value(typeof(value)) FROM "shop.events-v2"`)
	}
	full := `STRUCT(event_id VARCHAR, event_name VARCHAR, "order" STRUCT(total UBIGINT))`
	if got := typeOf(); got != full {
		t.Fatalf("first open: %s", got)
	}
	entries, _ := filepath.Glob(filepath.Join(inferCacheDir, "*.json"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %d entries, want 1", len(entries))
	}
	// Prove the second open reads the entry: plant a different structure.
	if err := os.WriteFile(entries[0], []byte(`{"structure":"{\"event_id\":\"VARCHAR\"}","json":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(); got != "STRUCT(event_id VARCHAR)" {
		t.Fatalf("second open did not use the cache: %s", got)
	}
	// A sampled file that changed is a new key: inferred afresh.
	files, _ := filepath.Glob(filepath.Join(dir, "topic=shop.events-v2", "partition=0", "*.parquet"))
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(files[0], later, later); err != nil {
		t.Fatal(err)
	}
	if got := typeOf(); got != full {
		t.Fatalf("after the file changed: %s", got)
	}
	// A broken entry is ignored.
	entries, _ = filepath.Glob(filepath.Join(inferCacheDir, "*.json"))
	for _, e := range entries {
		os.WriteFile(e, []byte("{not json"), 0o644)
	}
	if got := typeOf(); got != full {
		t.Fatalf("with a broken cache entry: %s", got)
	}
}
