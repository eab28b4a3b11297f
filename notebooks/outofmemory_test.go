package notebooks

import (
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/queries"
)

// TestCellOutOfMemoryHint: a cell past the engine's memory limit showed
// "query ran out of memory: failed to allocate …" without the hint the CLI
// gives (make the query smaller: …); now the cell says both, and its kind
// is ErrMemory. A cell whose rows fail while read (rows.Err) is the same.
func TestCellOutOfMemoryHint(t *testing.T) {
	dir := t.TempDir()
	if _, err := catalog.Create(dir); err != nil {
		t.Fatal(err)
	}
	e, err := queries.Open(t.Context(), dir, queries.Options{Locked: true, MemoryLimit: "64MB", Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{
		`SELECT list(repeat('x', 1000)) FROM range(1000000)`,
		`SELECT i, list(repeat('x', 1000)) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM range(1000000) t(i)`,
	} {
		nb, err := Parse("oom.md", []byte("```sql\n"+q+"\n```\n"))
		if err != nil {
			t.Fatal(err)
		}
		c := Run(t.Context(), e, nb, nil).Cells[0]
		if !strings.HasPrefix(c.Err, "query ran out of memory: failed to allocate") || !strings.Contains(c.Err, queries.ErrOutOfMemory.Hint()) || c.ErrKind != ErrMemory {
			t.Errorf("%s: cell error %q (%s); want the out-of-memory error with its hint %q, kind %s", q, c.Err, c.ErrKind, queries.ErrOutOfMemory.Hint(), ErrMemory)
		}
	}
}
