// Package folder keeps a snapshot folder's objects in a local folder: the
// catalog/store.Store of a path. Every write goes temp file → fsync →
// rename → fsync folder ([WriteFileAtomic]); a data file is written under
// a temp name in its partition's folder and renamed into place whole; the
// partition lock is a flock on its .lock file, dropped by the kernel when
// its holder dies. Every file is read as someone else's: opened inside the
// root through os.Root (a link leading out of it is refused),
// non-blocking (a FIFO never hangs a reader), regular files only, and
// metadata size-capped before and during the read (internal/safefile).
package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Names of the folder's layout this backend needs to know: the version
// file that makes a folder a catalog, and the folders an empty catalog may
// already hold.
const (
	folderFile   = "topicsnap.json"
	snapshotsDir = "snapshots"
	tmpPrefix    = ".tmp-"
)

// Store is a snapshot folder on this machine.
type Store struct{ root string }

// New is the store of the folder root; it touches nothing.
func New(root string) *Store { return &Store{root: root} }

var _ store.Store = (*Store)(nil)

func (s *Store) Root() string { return s.root }

func (s *Store) Where(rel string) string {
	if rel == "" {
		return s.root
	}
	return filepath.Join(s.root, filepath.FromSlash(rel))
}

func (s *Store) Traits() store.Traits { return store.Traits{Partition: "the partition folder"} }

// Vacant accepts a folder without topicsnap.json when it is empty (dot
// files aside) or already holds topic folders, and names what is wrong
// otherwise, with ErrNoCatalog.
func (s *Store) Vacant(context.Context) error {
	path := s.root
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %s does not exist", store.ErrNoCatalog, path)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%w: %s is not a folder: %s", store.ErrNoCatalog, path, linkLoop(path))
	case err != nil:
		return fmt.Errorf("open %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is a file, not a folder", store.ErrNoCatalog, path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	var other []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir() && (strings.HasPrefix(name, "topic=") || name == snapshotsDir):
			return nil // topic folders without a version file: read them
		default:
			other = append(other, name)
		}
	}
	if len(other) == 0 {
		return nil
	}
	shown := other
	if len(shown) > 3 {
		shown = append(shown[:3:3], "...")
	}
	return fmt.Errorf("%w: %s has no %s and holds other files (%s)", store.ErrNoCatalog, path, folderFile, strings.Join(shown, ", "))
}

// Writable checks the folder, or the nearest existing folder on its way
// when it is yet to be made, is one this process may write: not under a
// file, not read-only.
func (s *Store) Writable(context.Context) (bool, error) {
	path := s.root
	p := filepath.Clean(path)
	for {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && filepath.Dir(p) != p {
			p = filepath.Dir(p) // the folder will be created: check its nearest existing parent
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) || err == nil && !st.IsDir() {
			return false, fmt.Errorf("create %s: %w: %s is a file, not a folder", path, store.ErrNotWritable, p)
		}
		if errors.Is(err, syscall.ELOOP) {
			return false, fmt.Errorf("create %s: %w: %s is not a folder: %s", path, store.ErrNotWritable, p, linkLoop(p))
		}
		if err != nil {
			return false, fmt.Errorf("create %s: %w", path, store.Classify(err))
		}
		break
	}
	if err := syscall.Access(p, 2 /* W_OK */); err != nil {
		return false, fmt.Errorf("create %s: %w: %s: %w", path, store.ErrNotWritable, p, err)
	}
	return p == filepath.Clean(path), nil
}

func (s *Store) Create(context.Context) error {
	if err := os.MkdirAll(s.root, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", s.root, store.Classify(err))
	}
	return nil
}

// Get reads a metadata file as a regular file inside the root, at most max
// bytes. A root that is not a folder holds nothing (os.ErrNotExist: Vacant
// says what it is); every other failure but a missing file is the file's
// own (Damaged).
func (s *Store) Get(_ context.Context, rel string, max int64) ([]byte, string, error) {
	b, err := safefile.ReadFileIn(s.root, filepath.FromSlash(rel), max)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		if st, serr := os.Stat(s.root); serr != nil || !st.IsDir() {
			return nil, "", fmt.Errorf("read %s: %w", s.Where(rel), os.ErrNotExist)
		}
		return nil, "", store.Damaged(err)
	}
	return b, "", err
}

// Put makes rel's folder and writes rel atomically; cond is not needed
// (see store.Store.Put).
func (s *Store) Put(_ context.Context, rel string, b []byte, _ store.Cond) (string, error) {
	dir := s.Where(path.Dir(rel))
	if err := mkdirSynced(dir); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, store.Classify(err))
	}
	return "", WriteFileAtomic(s.Where(rel), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func (s *Store) List(_ context.Context, rel string) ([]store.Entry, error) {
	dir := s.Where(rel)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, store.Damaged(fmt.Errorf("list %s: %w", dir, err))
	}
	out := make([]store.Entry, 0, len(entries))
	for _, e := range entries {
		en := store.Entry{Name: e.Name(), Dir: e.IsDir(), Mode: e.Type(), Size: -1}
		if e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				en.Size = fi.Size()
			}
		}
		out = append(out, en)
	}
	return out, nil
}

// Delete removes rel and fsyncs its folder.
func (s *Store) Delete(_ context.Context, rel string) error {
	p := s.Where(rel)
	if err := os.Remove(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(p))
}

// Lock takes a flock on rel (made if absent), at once or not at all.
func (s *Store) Lock(_ context.Context, rel, what string) (store.Held, error) {
	dir := s.Where(path.Dir(rel))
	if err := mkdirSynced(dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, store.Classify(err))
	}
	// A handed-over folder is hostile: a lock file that is a link (maybe
	// dangling, to a path O_CREATE would make outside the folder), a
	// folder or a device is refused, never opened nor followed.
	p := s.Where(rel)
	if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("lock %s: %s is %s: %w", what, p, lockKind(st.Mode()), store.ErrBadLock)
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EISDIR) {
			return nil, fmt.Errorf("lock %s: %s is not a regular file: %w", what, p, store.ErrBadLock)
		}
		return nil, fmt.Errorf("open lock of %s: %w", what, store.Classify(err))
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		kind := "not a regular file"
		if err == nil {
			kind = lockKind(st.Mode())
		}
		return nil, fmt.Errorf("lock %s: %s is %s: %w", what, p, kind, store.ErrBadLock)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s in %s: %w", what, s.root, store.ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", what, err)
	}
	return flock{f}, nil
}

type flock struct{ f *os.File }

func (l flock) Unlock() {
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}

// CheckData is nil when rel is a regular file inside the root (a link is
// followed only while it stays inside), without opening it.
func (s *Store) CheckData(_ context.Context, rel string) (int64, error) {
	dir, name := path.Split(rel)
	size, err := regularIn(s.Where(dir), name)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		err = store.Damaged(err)
	}
	return size, err
}

func (s *Store) TempFile(_ context.Context, dirRel, pattern string) (*os.File, error) {
	dir := s.Where(dirRel)
	if err := mkdirSynced(dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, store.Classify(err))
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("create temp file in %s: %w", dir, store.Classify(err))
	}
	return f, nil
}

// Place renames tmp (in rel's folder, from TempFile) to rel and fsyncs the
// folder.
func (s *Store) Place(_ context.Context, tmp, rel string) error {
	final := s.Where(rel)
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename %s: %w", final, store.Classify(err))
	}
	return syncDir(filepath.Dir(final))
}

// Upload writes the size bytes r yields into rel atomically
// (WriteFileAtomic); more or fewer is an error.
func (s *Store) Upload(_ context.Context, rel string, r io.Reader, size int64) error {
	dir := s.Where(path.Dir(rel))
	if err := mkdirSynced(dir); err != nil {
		return fmt.Errorf("create %s: %w", dir, store.Classify(err))
	}
	return WriteFileAtomic(s.Where(rel), func(w io.Writer) error {
		n, err := io.Copy(w, io.LimitReader(r, size+1)) // a file that grows stops here
		if err == nil && n != size {
			err = fmt.Errorf("%d bytes read, %d expected", n, size)
		}
		return err
	})
}

// Open opens rel inside the root, non-blocking, a regular file only.
func (s *Store) Open(_ context.Context, rel string) (store.File, error) {
	f, err := OpenRegular(s.root, filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Unfinished: a folder's unfinished writes are its temp files, which List
// shows.
func (s *Store) Unfinished(context.Context, string, bool) ([]string, error) { return nil, nil }

// WriteFileAtomic writes path through fill: to a temp file in the same folder,
// fsynced, renamed over path, and the folder fsynced. On any error nothing is
// left behind and path is untouched.
func WriteFileAtomic(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("create temp file in %s: %w", dir, store.Classify(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, store.Classify(err))
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, store.Classify(err))
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, store.Classify(err))
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", path, store.Classify(err))
	}
	return syncDir(dir)
}

// mkdirSynced makes dir and the folders on its way that are missing, each
// fsynced into its parent, so that a file committed in a new folder (a
// topic's first cut, a partition's first file) survives a crash with the
// folder that names it.
func mkdirSynced(dir string) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	var made []string
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil || filepath.Dir(p) == p {
			break
		}
		made = append(made, p)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range made {
		if err := syncDir(filepath.Dir(p)); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, store.Classify(err))
	}
	return nil
}

// OpenRegular opens a data file for reading: non-blocking, so a FIFO in
// its place is refused rather than waited on, and only a regular file
// (safefile.ErrNotRegular otherwise). With a folder (dir != ""), name is
// opened inside it through os.Root, so a link leading out of the folder is
// refused too: a handed-over folder cannot make a copy upload a file of
// this machine.
func OpenRegular(dir, name string) (*os.File, error) {
	var f *os.File
	var err error
	if dir == "" {
		f, err = os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	} else {
		var root *os.Root
		if root, err = safefile.OpenRoot(dir); err != nil {
			return nil, err
		}
		defer root.Close()
		f, err = root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", filepath.Base(name), safefile.ErrNotRegular)
	}
	return f, nil
}

// regularIn is the size of name when it is a regular file inside folder
// dir (a link is followed only while it stays inside), without opening it.
func regularIn(dir, name string) (int64, error) {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	st, err := root.Stat(name)
	if err != nil {
		return 0, err
	}
	if !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s, %w", KindOf(st.Mode()), safefile.ErrNotRegular)
	}
	return st.Size(), nil
}

// lockKind names what a lock file that is not regular is.
func lockKind(m os.FileMode) string {
	if m&os.ModeSymlink != 0 {
		return "a symbolic link"
	}
	return KindOf(m)
}

// KindOf names what a file that is not regular is.
func KindOf(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "a " + m.Type().String()
}

// maxLinkHops bounds linkLoop's walk (the kernel gives up after 40).
const maxLinkHops = 40

// linkLoop names the symbolic links path goes round, "a -> b -> a", read
// one link at a time (bounded, nothing followed past maxLinkHops), or says
// the loop is on the way to path when path itself is not the link.
func linkLoop(path string) string {
	chain := []string{path}
	seen := map[string]bool{filepath.Clean(path): true}
	p := path
	for range maxLinkHops {
		target, err := os.Readlink(p)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		chain = append(chain, target)
		if seen[filepath.Clean(target)] {
			return "a loop of symbolic links: " + strings.Join(chain, " -> ")
		}
		seen[filepath.Clean(target)] = true
		p = target
	}
	if len(chain) == 1 {
		return "a loop of symbolic links on the way to it (too many levels of symbolic links)"
	}
	return "a chain of symbolic links that loops or is too long: " + strings.Join(chain, " -> ") + " -> ..."
}
