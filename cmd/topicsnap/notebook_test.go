package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
