package server

import (
	"encoding/json"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLOutOfMemorySaysWhatToDo: /api/sql past the engine's memory limit
// answers 400 with what the client can do (a smaller query, LIMIT) and
// what the operator can (--worker-memory), never DuckDB's SET advice,
// which the server refuses.
func TestSQLOutOfMemorySaysWhatToDo(t *testing.T) {
	_, ts := newTestServer(t, Options{engineMemory: "64MB"})
	b, _ := json.Marshal(map[string]string{"sql": `SELECT list(repeat('x', 1000)) FROM range(1000000)`})
	r := do(t, http.MethodPost, ts.URL+"/api/sql", strings.NewReader(string(b)), map[string]string{"Content-Type": "application/json"})
	var got struct{ Error string }
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatalf("%d %s: %v", r.code, r.body, err)
	}
	if r.code != http.StatusBadRequest {
		t.Fatalf("%d, want 400: %s", r.code, r.body)
	}
	for _, want := range []string{"query ran out of memory: failed to allocate", "LIMIT", "topicsnap serve --worker-memory"} {
		if !strings.Contains(got.Error, want) {
			t.Errorf("no %q in %q", want, got.Error)
		}
	}
	for _, advice := range []string{"SET", "threads", "memory_limit", "preserve_insertion_order"} {
		if strings.Contains(got.Error, advice) {
			t.Errorf("%q still advises %s", got.Error, advice)
		}
	}
}

// TestNotebookOutOfMemorySaysWhatToDo: a notebook cell past the memory
// limit showed "query ran out of memory: failed to allocate …" alone; it
// now says what /api/sql says: a smaller query, and --worker-memory.
func TestNotebookOutOfMemorySaysWhatToDo(t *testing.T) {
	nbDir := filepath.Join(t.TempDir(), "nbs")
	os.Mkdir(nbDir, 0o755)
	writeFile(t, filepath.Join(nbDir, "oom.md"), "# OOM\n\n```sql\nSELECT list(repeat('x', 1000)) FROM range(1000000)\n```\n")
	_, ts := newTestServer(t, Options{engineMemory: "64MB", NotebookDirs: []string{nbDir}})
	r := get(t, ts.URL+"/notebooks/oom.md")
	page := html.UnescapeString(r.body)
	for _, want := range []string{"query ran out of memory: failed to allocate", "make the query smaller", "LIMIT", "topicsnap serve --worker-memory"} {
		if !strings.Contains(page, want) {
			t.Errorf("%d: no %q in the notebook page", r.code, want)
		}
	}
}
