package notebooks

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Shipped holds the notebooks that come with topicsnap, by file name.
//
//go:embed did-kafka-lose-my-event.md the-group-that-ate-six-partitions.md
var Shipped embed.FS

// Entry is one notebook found by List.
type Entry struct {
	Name   string            // file name without .md
	Path   string            // path of the file
	Title  string            // the notebook's title
	Params map[string]string // declared parameters and defaults
	Cells  int               // sql cells
	Err    error             // set when the file does not parse
}

// Load reads and parses a notebook file.
func Load(path string) (*Notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// LoadShipped parses one of the shipped notebooks by name, with or without
// .md.
func LoadShipped(name string) (*Notebook, error) {
	if !strings.HasSuffix(name, ".md") {
		name += ".md"
	}
	b, err := Shipped.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("no shipped notebook %s", strings.TrimSuffix(name, ".md"))
	}
	return Parse(name, b)
}

// List lists the notebooks in each folder (not its subfolders): the *.md
// files with at least one sql cell, sorted by name within each folder. A
// file that does not parse is listed with Err set, so a typo is seen rather
// than hidden. A folder that cannot be read is an error.
func List(dirs ...string) ([]Entry, error) {
	var out []Entry
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("list notebooks in %s: %w", d, err)
		}
		var found []Entry
		for _, e := range entries {
			if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".md") {
				continue
			}
			path := filepath.Join(d, e.Name())
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
			if ent, ok := entryOf(path, b); ok {
				found = append(found, ent)
			}
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
		out = append(out, found...)
	}
	return out, nil
}

// ListShipped lists the shipped notebooks.
func ListShipped() []Entry {
	var out []Entry
	names, _ := fs.Glob(Shipped, "*.md")
	sort.Strings(names)
	for _, n := range names {
		b, _ := Shipped.ReadFile(n)
		if ent, ok := entryOf(n, b); ok {
			out = append(out, ent)
		}
	}
	return out
}

func entryOf(path string, b []byte) (Entry, bool) {
	base := filepath.Base(path)
	ent := Entry{Name: strings.TrimSuffix(base, filepath.Ext(base)), Path: path}
	nb, err := Parse(path, b)
	if err != nil {
		// Only a file that looks like a notebook is reported broken.
		if !strings.Contains(strings.ToLower(string(b)), "```sql") && !strings.Contains(strings.ToLower(string(b)), "~~~sql") {
			return ent, false
		}
		ent.Err, ent.Title = err, ent.Name
		return ent, true
	}
	ent.Title, ent.Params, ent.Cells = nb.Title, nb.Params, len(nb.Cells())
	return ent, ent.Cells > 0
}
