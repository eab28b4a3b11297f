package notebooks

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
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
	Needs  string            // the data it is written for (front matter needs)
	Params map[string]string // declared parameters and defaults
	Cells  int               // sql cells
	Err    error             // set when the file does not parse
}

// Load reads and parses a notebook file: a regular file (a link is
// followed) of at most MaxFileBytes, opened without waiting, so a FIFO or a
// device (/dev/zero) is refused before anything is read from it.
func Load(path string) (*Notebook, error) {
	b, err := safefile.ReadFile(path, MaxFileBytes)
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

// MaxFileBytes bounds a notebook file that List and ReadFile read.
const MaxFileBytes = 4 << 20

// ErrNotRegular and ErrTooLarge are why ReadFile refuses a file.
var (
	ErrNotRegular = safefile.ErrNotRegular
	ErrTooLarge   = safefile.ErrTooLarge
)

// ReadFile reads the file name of the folder dir, which must be a regular
// file inside the folder of at most MaxFileBytes (safefile.ReadFileIn: a
// symbolic link is followed only while it stays inside dir, and a device,
// a pipe or a socket is refused without reading from it).
func ReadFile(dir, name string) ([]byte, error) {
	return safefile.ReadFileIn(dir, name, MaxFileBytes)
}

// List lists the notebooks in each folder (not its subfolders): the *.md
// files with at least one sql cell, sorted by name within each folder. A
// file that does not parse is listed with Err set, so a typo is seen rather
// than hidden. A folder that cannot be read is an error. Files are read
// with ReadFile: what is not a regular file inside the folder of at most
// MaxFileBytes is left out, as is what cannot be read.
func List(dirs ...string) ([]Entry, error) {
	return (&Lister{}).List(dirs...)
}

// A Lister lists notebooks as List does, and keeps what it read: a file
// whose size, modification time and inode have not changed is not read
// again. The zero Lister is ready; it is safe for concurrent use.
type Lister struct {
	mu   sync.Mutex
	seen map[string]listed // by path
}

type listed struct {
	size  int64
	mtime time.Time
	ino   uint64
	ent   Entry
	ok    bool
}

// List lists the notebooks of dirs; see the function List.
func (l *Lister) List(dirs ...string) ([]Entry, error) {
	var out []Entry
	live := map[string]bool{}
	listed := map[string]bool{}
	for _, d := range dirs {
		listed[filepath.Clean(d)] = true
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("list notebooks in %s: %w", d, err)
		}
		var found []Entry
		for _, e := range entries {
			t := e.Type()
			if t.IsDir() || !(t.IsRegular() || t&fs.ModeSymlink != 0) || !strings.EqualFold(filepath.Ext(e.Name()), ".md") {
				continue
			}
			path := filepath.Join(d, e.Name())
			live[path] = true
			if ent, ok := l.entry(d, e.Name(), path); ok {
				found = append(found, ent)
			}
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
		out = append(out, found...)
	}
	l.mu.Lock()
	for p := range l.seen { // forget files gone from the folders listed
		if listed[filepath.Dir(p)] && !live[p] {
			delete(l.seen, p)
		}
	}
	l.mu.Unlock()
	return out, nil
}

// entry lists one file, from what was kept when it has not changed.
func (l *Lister) entry(dir, name, path string) (Entry, bool) {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return Entry{}, false
	}
	st, err := root.Stat(name) // follows links inside dir only
	root.Close()
	if err != nil || !st.Mode().IsRegular() {
		return Entry{}, false
	}
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	l.mu.Lock()
	c, hit := l.seen[path]
	l.mu.Unlock()
	if hit && c.size == st.Size() && c.mtime.Equal(st.ModTime()) && c.ino == ino {
		return c.ent, c.ok
	}
	b, err := ReadFile(dir, name)
	if err != nil {
		return Entry{}, false
	}
	ent, ok := entryOf(path, b)
	l.mu.Lock()
	if l.seen == nil {
		l.seen = map[string]listed{}
	}
	l.seen[path] = listed{size: st.Size(), mtime: st.ModTime(), ino: ino, ent: ent, ok: ok}
	l.mu.Unlock()
	return ent, ok
}

// ListShipped lists the shipped notebooks. They are embedded in the
// binary and never change, so they are parsed once (a server lists them on
// every overview page); callers get their own slice and must not change
// the entries' maps.
func ListShipped() []Entry { return slices.Clone(shipped()) }

var shipped = sync.OnceValue(func() []Entry {
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
})

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
	ent.Title, ent.Needs, ent.Params, ent.Cells = nb.Title, nb.Needs, nb.Params, len(nb.Cells())
	return ent, ent.Cells > 0
}
