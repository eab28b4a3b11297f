package server

import (
	"encoding/json"
	"net/http"
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
