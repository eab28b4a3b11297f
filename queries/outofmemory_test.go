package queries

import (
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestOutOfMemorySaysWhatToDo: a query past the engine's memory limit
// fails with ErrOutOfMemory (DuckDB's error type, not its text), what it
// failed to allocate, and a hint the user can follow; DuckDB's advice, SET
// threads / memory_limit / preserve_insertion_order, which no surface runs,
// is gone. A message that merely says "Out of Memory" is not one.
func TestOutOfMemorySaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	if _, err := catalog.Create(dir); err != nil {
		t.Fatal(err)
	}
	e, err := Open(t.Context(), dir, Options{Locked: true, MemoryLimit: "64MB", Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := func(q string) error {
		rows, err := e.Query(t.Context(), q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	}
	err = run(`SELECT list(repeat('x', 1000)) FROM range(1000000)`)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("err = %v; want ErrOutOfMemory", err)
	}
	code, hint := exit.Of(err)
	msg := err.Error()
	if code != exit.Error || !strings.HasPrefix(msg, "query ran out of memory: failed to allocate") || !strings.Contains(hint, "LIMIT") {
		t.Fatalf("exit %d, %q, hint %q", code, msg, hint)
	}
	for _, advice := range []string{"SET", "threads", "memory_limit", "preserve_insertion_order", "Possible solutions"} {
		if strings.Contains(msg, advice) || strings.Contains(hint, advice) {
			t.Errorf("%q or its hint %q still advises %s", msg, hint, advice)
		}
	}
	// The text alone does not make one.
	err = run(`SELECT error('Out of Memory Error: failed to allocate data')`)
	if err == nil || errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("error() with out-of-memory words: %v", err)
	}
}
