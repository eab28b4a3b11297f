// Package safefile reads small files that someone else chose: a snapshot
// folder handed over from another machine, a notebook, a schema kept
// beside the data. Every read is bounded before it happens:
//
//   - the file is opened through an os.Root, so a symbolic link is
//     followed only while it stays inside the folder;
//   - it is opened non-blocking and checked before the first read, so a
//     FIFO, a device (/dev/zero) or a socket is refused without reading
//     from it and without waiting for a writer;
//   - its size is checked against a cap before reading, and the read
//     itself is limited, so a file that grows while read is refused too.
//
// The errors are typed (ErrNotRegular, ErrTooLarge) so callers can name the
// file and the fix without matching text.
package safefile

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/topicsnap/topicsnap/internal/units"
)

// ErrNotRegular and ErrTooLarge are why a read is refused.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// TooLargeError is a file past its cap: errors.Is(err, ErrTooLarge).
type TooLargeError struct {
	Name string
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("read %s: larger than %s, the bound for this file", e.Name, units.Size(e.Max))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// OpenRoot is os.OpenRoot for a folder someone else may have chosen: it
// never waits. os.OpenRoot opens dir as any file, so a FIFO given as the
// folder (--dir, a link planted in its place) blocks it until a writer
// comes, and no signal ends the wait. Opening dir/. instead fails at once
// with ENOTDIR on anything but a folder, a FIFO included, with no window
// between a check and the open.
func OpenRoot(dir string) (*os.Root, error) {
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir + string(filepath.Separator) + ".")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = dir // name the folder as it was given, not dir/.
		}
		return nil, err
	}
	return root, nil
}

// ReadFileIn reads name (a path relative to dir, which may hold
// separators) of the folder dir: a regular file inside the folder of at
// most max bytes.
func ReadFileIn(dir, name string, max int64) ([]byte, error) {
	root, err := OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// os.Root refuses a link that leads outside the folder; say that,
		// not openat's "path escapes from parent".
		if fi, lerr := root.Lstat(name); lerr == nil && fi.Mode()&os.ModeSymlink != 0 && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s: a link that leads outside the folder: %w", name, ErrNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	return read(f, name, max)
}

// ReadFile reads path, which must be a regular file of at most max bytes.
// Unlike ReadFileIn it follows a symbolic link anywhere: for a file the
// user named on the command line, not one found inside a folder.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(f, filepath.Base(path), max)
}

func read(f *os.File, name string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular)
	}
	if st.Size() > max {
		return nil, &TooLargeError{Name: name, Max: max}
	}
	return readLimited(f, name, max) // a file that grows while read is refused too
}

// readLimited reads f to its end, refusing it past max bytes.
func readLimited(f *os.File, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Name: name, Max: max}
	}
	return b, nil
}

// readUntil is readLimited ended by ctx: when ctx ends, a read that waits
// is woken (a deadline on a file the poller holds, as a pipe opened
// non-blocking is; otherwise the file is closed under it) and the error is
// ctx's.
func readUntil(ctx context.Context, f *os.File, name string, max int64) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	stop := context.AfterFunc(ctx, func() {
		if f.SetReadDeadline(time.Now()) != nil {
			f.Close() // not pollable (a device): closing it ends the read
		}
	})
	b, err := readLimited(f, name, max)
	if !stop() && ctx.Err() != nil {
		return nil, fmt.Errorf("read %s: %w", name, ctx.Err())
	}
	return b, err
}

// MaxText bounds a text file a user names on the command line or in a
// config (SQL, a PEM certificate, key or CA bundle): 16 MiB.
const MaxText = 16 << 20

// ReadNamed reads a file the user named on the command line, of at most
// max bytes. Unlike ReadFile it takes a pipe or a character device, as a
// shell hands them over (sql -f <(...), --config /dev/stdin), and reads it
// through a limit: /dev/zero is refused once past max, not read without
// end. A folder, a socket or a block device is ErrNotRegular.
//
// A pipe or a device may never send its end (a FIFO whose writer is open
// and silent, a terminal): the read ends when ctx does, with ctx's error,
// so a Ctrl-C reaches a command waiting on it.
func ReadNamed(ctx context.Context, path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	switch m := st.Mode(); {
	case m.IsRegular():
		return read(f, name, max)
	case m&os.ModeNamedPipe != 0, m&os.ModeCharDevice != 0:
		if !inherited(path) {
			return readUntil(ctx, f, name, max)
		}
		// A descriptor the shell handed over (--config <(…)) gives its
		// bytes once: a command reads its config for the registry, the
		// bucket and each client, and the second read found it empty.
		// What was read whole is kept, by path, for the process.
		inheritedMu.Lock()
		defer inheritedMu.Unlock()
		if b, ok := inheritedRead[path]; ok {
			if int64(len(b)) > max {
				return nil, &TooLargeError{Name: name, Max: max}
			}
			return b, nil
		}
		b, err := readUntil(ctx, f, name, max)
		if err == nil {
			inheritedRead[path] = b
		}
		return b, err
	}
	return nil, fmt.Errorf("read %s: %w", name, ErrNotRegular)
}

// inheritedRead is what ReadNamed read whole of a descriptor the process
// inherited (inherited), by the path it was named by.
var (
	inheritedMu   sync.Mutex
	inheritedRead = map[string][]byte{}
)

// inherited tells whether path names a descriptor of this process (what
// a shell's <(…) or a redirection hands over), not a FIFO of the file
// system, which another writer may fill again.
func inherited(path string) bool {
	p := filepath.Clean(path)
	return p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// LoadX509KeyPair is tls.LoadX509KeyPair with the certificate and the key
// each read through ReadNamed, at most MaxText: /dev/zero is refused, not
// read without end.
func LoadX509KeyPair(ctx context.Context, certFile, keyFile string) (tls.Certificate, error) {
	cert, err := ReadNamed(ctx, certFile, MaxText)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := ReadNamed(ctx, keyFile, MaxText)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(cert, key)
}
