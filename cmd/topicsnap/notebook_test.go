package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/notebooks"
)

// shippedNotebookData is, for each shipped notebook, the demo command
// that makes its data (what notebook ls must say) and the same folder made
// by code.
var shippedNotebookData = []struct {
	name   string
	demo   string
	folder func(t *testing.T) string
}{
	{"did-kafka-lose-my-event", "topicsnap demo --dir DIR", func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "tea")
		if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 300, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return dir
	}},
	{"the-group-that-ate-six-partitions", "topicsnap demo --scenario windfarm --dir DIR", func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "wind")
		if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1); err != nil {
			t.Fatal(err)
		}
		return dir
	}},
}

// notebook ls says what data each shipped notebook needs, and each runs
// green with notebook run on the folder that data's demo makes.
func TestShippedNotebooksRunOnTheirDemoFolders(t *testing.T) {
	if len(shippedNotebookData) != len(notebooks.ListShipped()) {
		t.Fatalf("%d shipped notebooks, %d in this test", len(notebooks.ListShipped()), len(shippedNotebookData))
	}
	code, ls, errs := cli(t, "notebook", "ls")
	if code != 0 {
		t.Fatalf("notebook ls: %d %q", code, errs)
	}
	for _, c := range shippedNotebookData {
		t.Run(c.name, func(t *testing.T) {
			_, after, ok := strings.Cut(ls, c.name)
			next, _, _ := strings.Cut(strings.TrimPrefix(after, "\n"), "\n")
			lines := strings.SplitN(after, "\n", 3)
			if !ok || len(lines) < 2 || !strings.Contains(lines[1], "needs ") || !strings.Contains(lines[1], c.demo+" makes") {
				t.Fatalf("notebook ls does not say that %s needs what %q makes:\n%s (%q)", c.name, c.demo, ls, next)
			}
			dir := c.folder(t)
			code, out, errs := cli(t, "notebook", "run", c.name+".md", "--dir", dir)
			if code != 0 || errs != "" || strings.Contains(out, "This cell failed") || strings.Contains(out, "**Error") {
				t.Fatalf("notebook run %s: exit %d, stderr %q\n%s", c.name, code, errs, out)
			}
		})
	}
}

// TestNotebookRunIsLocked: a notebook is code, and one may come inside a
// folder handed over: notebook run runs its cells as the server does (one
// read-only SELECT each), so a cell that writes a file or reads one outside
// the folder is refused in place and the rest still run; --unlocked runs
// them as sql does. Before, notebook run wrote the file.
func TestNotebookRunIsLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "written.csv")
	nb := filepath.Join(dir, "sent.md")
	os.WriteFile(nb, []byte("# sent to us\n\n```sql\nCOPY (SELECT 42 AS x) TO '"+out+"'\n```\n\n```sql\nSELECT * FROM read_csv('/etc/passwd')\n```\n\n```sql\nSELECT count(*) AS n FROM app_events\n```\n"), 0o644)
	code, stdout, stderr := cli(t, "notebook", "run", nb, "--dir", dir)
	if code != 1 || !strings.Contains(stdout, "refused: only a read-only SELECT") || !strings.Contains(stdout, "refused: read_csv()") || !strings.Contains(stderr, "2 of 3 cells failed") {
		t.Fatalf("locked: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a notebook's COPY wrote a file")
	}
	if code, stdout, stderr := cli(t, "notebook", "run", nb, "--dir", dir, "--unlocked"); code != 0 || strings.Contains(stdout, "refused") {
		t.Fatalf("--unlocked: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("--unlocked did not run the COPY: %v", err)
	}
}

// TestNotebookRunBoundsEachCell: a notebook that came inside a folder is
// run locked, each cell within --query-timeout (default
// defaultCellTimeout) and DuckDB's memory limit cellMemory, as serve runs
// it. Before, a cell with a recursive CTE without an end ran until
// killed, and one cell grew past 7 GB; now the cell says it ran past its
// timeout and the next cell still runs.
func TestNotebookRunBoundsEachCell(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	nb := filepath.Join(dir, "endless.md")
	os.WriteFile(nb, []byte("# sent to us\n\n```sql\nWITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) AS n FROM r\n```\n\n```sql\nSELECT 41 + 1 AS answer\n```\n"), 0o644)
	runBounded := func(t *testing.T, args ...string) (int, string, string) {
		t.Helper()
		// Past this the run is stopped as a user's Ctrl-C would: the old
		// code ran the first cell this long and longer.
		ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(ctx, args, strings.NewReader(""), &out, &errb)
		if took := time.Since(start); took > 30*time.Second {
			t.Fatalf("notebook run took %s", took)
		}
		return code, out.String(), errb.String()
	}
	t.Run("flag", func(t *testing.T) {
		code, stdout, stderr := runBounded(t, "notebook", "run", nb, "--dir", dir, "--query-timeout", "2s")
		if code != 1 || !strings.Contains(stdout, "query ran past its timeout of 2s") || !strings.Contains(stdout, "| 42 |") || !strings.Contains(stderr, "1 of 2 cells failed") {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("default", func(t *testing.T) {
		was := defaultCellTimeout
		defaultCellTimeout = 2 * time.Second
		defer func() { defaultCellTimeout = was }()
		code, stdout, stderr := runBounded(t, "notebook", "run", nb, "--dir", dir)
		if code != 1 || !strings.Contains(stdout, "query ran past its timeout of 2s") || !strings.Contains(stdout, "| 42 |") {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
	})
	if code, _, stderr := cli(t, "notebook", "run", nb, "--dir", dir, "--query-timeout", "0s"); code != 2 || !strings.Contains(stderr, "--query-timeout") {
		t.Fatalf("--query-timeout 0s: exit %d %q", code, stderr)
	}
	// The memory limit is DuckDB's, locked with its other settings: a cell
	// cannot SET it back (TestNotebookRunIsLocked), and it is set.
	if o := notebookEngine(&notebookOptions{timeout: time.Second}); !o.Locked || o.MemoryLimit != cellMemory || o.Timeout != time.Second {
		t.Fatalf("locked engine options %+v", o)
	}
	if o := notebookEngine(&notebookOptions{unlocked: true, timeout: time.Second}); o.Locked || o.MemoryLimit != "" || o.Timeout != 0 {
		t.Fatalf("--unlocked engine options %+v", o)
	}
}
