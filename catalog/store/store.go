// Package store is the contract between a snapshot folder's logic
// (package catalog) and the places its objects live: a local folder
// (catalog/folder) or a bucket (catalog/bucket). A backend implements
// [Store]; catalog knows the layout (which names, in which order, under
// which guarantees), a Store only how to keep bytes under a name.
//
// Names given to a Store are relative to its root, with forward slashes
// (topic=NAME/partition=N/manifest.json), never absolute and never with
// "..": catalog builds them from checked parts.
//
// Errors a backend returns say which kind they are so that catalog can
// answer alike over any backend: a missing object wraps os.ErrNotExist; an
// object that is there but cannot be used as it is (not a regular file,
// past its cap, a link out of the folder) is marked with [Damaged]; a
// request that failed (a bucket down, denied) is neither, and stops what
// asked for it. The kinds shared by every backend (ErrNoCatalog,
// ErrNotWritable, ErrDiskFull, ErrTooManyFiles, ErrLocked, ErrConflict,
// ErrDenied) are declared here and re-exported by catalog.
//
// This package imports nothing but the standard library and internal/exit.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// Store keeps a snapshot folder's objects under one root. Every call takes
// the context that bounds it (a bucket's requests end with it; a folder's
// calls are short and mostly ignore it).
type Store interface {
	// Root is the root as the user gave it: a folder's path, or
	// s3://BUCKET/PREFIX. It is catalog.Dir.Path.
	Root() string
	// Where names rel for messages and for readers that open by name: a
	// path on this machine (OS separators), or an s3:// URL.
	Where(rel string) string
	// Traits say what the backend is like.
	Traits() Traits

	// Vacant is asked when the root holds no topicsnap.json: nil when the
	// root may be read as an empty catalog (nothing there yet, or topic
	// folders only); else ErrNoCatalog naming what is there instead (it
	// does not exist, is a file, holds other files).
	Vacant(ctx context.Context) error
	// Writable says, writing nothing, whether Create could make or reuse
	// the root (ErrNotWritable if not), and whether it exists already.
	Writable(ctx context.Context) (exists bool, err error)
	// Create makes the root if it is not there (a folder; a bucket must
	// exist already).
	Create(ctx context.Context) error

	// Get reads the small object rel (metadata: topicsnap.json, a
	// manifest, a snapshot, a schema, a lock) whole, refusing one past max
	// bytes (a *safefile.TooLargeError, marked Damaged) before it is read
	// whole. version identifies what was read, for a conditional Put (a
	// bucket's ETag; "" in a folder).
	Get(ctx context.Context, rel string, max int64) (b []byte, version string, err error)
	// Put writes the small object rel whole, replacing what is there,
	// under cond. It returns the version written. A folder writes a temp
	// file, fsyncs it, renames it over rel and fsyncs the folder, making
	// rel's folder first; it ignores cond, as its writers are kept apart
	// by the partition's lock (Lock) and a rename replaces atomically. A
	// bucket honours cond with If-None-Match / If-Match: a failed
	// condition is ErrConflict, unless the object already holds exactly b
	// (a retried write of its own).
	Put(ctx context.Context, rel string, b []byte, cond Cond) (version string, err error)
	// List lists the folder rel ("" for the root): its subfolders (Dir)
	// and its objects, in name order. A folder that does not exist lists
	// nothing.
	List(ctx context.Context, rel string) ([]Entry, error)
	// Delete removes rel; one already gone is not an error.
	Delete(ctx context.Context, rel string) error
	// Lock takes the exclusive writer's lock at rel (what names the
	// locked partition in messages), or fails at once with ErrLocked. A
	// folder takes a flock (the kernel drops it with its process); a
	// bucket creates an object only if absent, with an owner and an
	// expiry, renews it while held (until Unlock or ctx ends) and takes
	// over one whose holder is gone.
	Lock(ctx context.Context, rel, what string) (Held, error)

	// CheckData says, without reading it, whether the data file rel may
	// be opened by a reader, and its size: a folder checks that it is a
	// regular file inside the root (not a FIFO, a device, a link out),
	// marking what is not Damaged. A bucket's objects are always plain:
	// it answers size -1 (not known without a request) and no error.
	CheckData(ctx context.Context, rel string) (size int64, err error)
	// TempFile makes the local file a data file of the folder dirRel is
	// written into before it is committed (pattern as os.CreateTemp's):
	// in that folder itself, or, for a bucket, in local temp space.
	TempFile(ctx context.Context, dirRel, pattern string) (*os.File, error)
	// Place makes the finished, closed temp file tmp (from TempFile) the
	// data file rel, complete or not at all: a rename and an fsync of the
	// folder, or an upload (then tmp is removed).
	Place(ctx context.Context, tmp, rel string) error
	// Upload stores size bytes read from r as the data file rel, complete
	// or not at all. r may be an *os.File, which a bucket uploads as it is.
	Upload(ctx context.Context, rel string, r io.Reader, size int64) error
	// Open opens the data file rel for reading, as a stream or at
	// random. A folder's is an *os.File (a regular file inside the root).
	Open(ctx context.Context, rel string) (File, error)
	// Unfinished names the writes begun under the folder dirRel and never
	// completed that are not objects (a bucket's multipart uploads; a
	// folder has none: its temp files are listed), aborting them when
	// abort is set.
	Unfinished(ctx context.Context, dirRel string, abort bool) ([]string, error)
}

// Traits say what a backend is like.
type Traits struct {
	// Partition is a partition's whole content in messages, as a fix
	// names what to remove: "the partition folder", "the partition's
	// objects".
	Partition string
	// ETags: List gives each object's own ETag (a bucket). A store
	// without them (a folder) keeps, beside data files copied from a
	// bucket, the ETags they had there (catalog's .etags.json), so a
	// second copy knows which files it holds unchanged.
	ETags bool
	// LeasedLocks: Lock is a lease that can expire under a holder that
	// still runs (stalled, or cut off from the store longer than the
	// lease), so two writers may each believe they hold a partition;
	// Put honours Cond, and that is what keeps them apart (a bucket). A
	// folder's flock cannot be held twice.
	LeasedLocks bool
}

// Cond says what a Put may replace; the zero Cond replaces anything.
type Cond struct {
	// IfAbsent: only if nothing is at rel (If-None-Match: *).
	IfAbsent bool
	// IfMatch: only the version read ("" for none).
	IfMatch string
	// Unread: the writer never read rel, so it knows no version: a store
	// that conditions its writes first asks for the current one, so as not
	// to overwrite blindly what another wrote.
	Unread bool
}

// Entry is one thing a List found.
type Entry struct {
	Name string
	Dir  bool
	// Mode is the file's type bits in a folder (os.ModeSymlink, ...); 0
	// in a bucket.
	Mode fs.FileMode
	// Size is a regular file's or an object's size; -1 for a folder.
	Size int64
	// ETag is a bucket's ETag of the object; "" in a folder.
	ETag string
}

// Held is a lock Lock took.
type Held interface {
	// Unlock releases it (a bucket: stops its renewal and removes the
	// object if it is still this holder's, without hanging on a server
	// that is down).
	Unlock()
}

// File is a data file open for reading.
type File interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// Errors every backend returns for the same kinds of failure; catalog
// re-exports them under the same names.
var (
	ErrLocked      = exit.New(exit.Locked, "partition is locked by another dumper", "wait for the other dump to finish, or give each dumper its own --partitions")
	ErrNotWritable = exit.New(exit.Disk, "snapshot folder is not writable", "choose with --dir a folder you can write (not on a read-only mount, not under a file), or fix its permissions")
	ErrDiskFull    = exit.New(exit.Disk, "no space left on device", "free space in the snapshot folder, then run the same command: it resumes from the last committed file")
	// ErrTooManyFiles is the process's (EMFILE) or the system's (ENFILE)
	// limit of open files reached: nothing is wrong with the folder, and
	// the same command run with a higher limit, or on fewer partitions at
	// once, does what this one could not. Exit 2, a runtime error, not 7:
	// the folder is writable and the disk has room, and a reading command
	// (sql, check) meets it too.
	ErrTooManyFiles = exit.New(exit.Error, "the limit of open files is reached",
		"raise the limit of open files (ulimit -n 65536 in the shell that runs it, LimitNOFILE= in a systemd unit) and run the same command again (what was committed stays; it goes on from there), or give it fewer partitions or topics at once")
	// ErrBadLock is a partition's lock file that is not a regular file
	// (a folder, a symbolic link, a FIFO, a device): it is not opened, nor
	// followed out of the snapshot folder.
	ErrBadLock = exit.New(exit.BadFolder, "lock file is not a regular file",
		"remove the lock file named (topicsnap makes it again, an empty regular file; a link there is never followed), then run the same command")
	// ErrNoCatalog is a path that holds no snapshot folder: it does not
	// exist, is not a folder, or holds files topicsnap did not write.
	ErrNoCatalog = exit.New(exit.NoCatalog, "no snapshot folder", "point --dir (or TOPICSNAP_DIR) at a snapshot folder, or make one: topicsnap dump --brokers HOST:PORT --topic NAME --dir DIR")
	// ErrConflict is a manifest (or lock) that another writer replaced
	// between this writer's read and its conditional write: the other one
	// committed first, and this one must stop rather than overwrite it.
	ErrConflict = exit.New(exit.Locked, "another writer committed first",
		"another dumper committed this partition first; give each dumper its own --partitions, then see what is committed: topicsnap ls --dir DIR")
	// ErrDenied is a bucket that refused these credentials: unknown key,
	// bad signature, or a policy that does not grant the request.
	ErrDenied = exit.New(exit.Auth, "access denied by the bucket",
		"check the AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/credentials) and that their policy grants what README's \"Snapshots in a bucket\" lists")
)

// damagedError marks an error as the object's own; its text is the
// error's.
type damagedError struct{ err error }

func (e *damagedError) Error() string { return e.err.Error() }
func (e *damagedError) Unwrap() error { return e.err }

// Damaged marks err as the object's own: it is there but cannot be used
// as it is. Its text is unchanged; errors.Is and errors.As see through it.
// A limit of open files reached (EMFILE, ENFILE) is the process's, not
// the object's: it is returned as TooManyFiles makes it, unmarked.
func Damaged(err error) error {
	if err == nil {
		return nil
	}
	if isTooManyFiles(err) {
		return TooManyFiles(err)
	}
	return &damagedError{err}
}

func isTooManyFiles(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// TooManyFiles wraps an EMFILE or ENFILE error with ErrTooManyFiles and
// the limit that was reached; any other error is returned as it is.
func TooManyFiles(err error) error {
	if err == nil || !isTooManyFiles(err) || errors.Is(err, ErrTooManyFiles) {
		return err
	}
	if errors.Is(err, syscall.ENFILE) {
		return fmt.Errorf("%w: %w (the system's: fs.file-max)", err, ErrTooManyFiles)
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		return fmt.Errorf("%w: %w (this process's, ulimit -n, is %d)", err, ErrTooManyFiles, lim.Cur)
	}
	return fmt.Errorf("%w: %w (this process's, ulimit -n)", err, ErrTooManyFiles)
}

// IsDamaged reports whether err was marked by Damaged.
func IsDamaged(err error) bool {
	var d *damagedError
	return errors.As(err, &d)
}

// Classify maps an OS error of a write to the kinds above: a full disk
// (ErrDiskFull), a folder this process may not write (ErrNotWritable), a
// limit of open files reached (ErrTooManyFiles).
func Classify(err error) error {
	switch {
	case isTooManyFiles(err):
		return TooManyFiles(err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	return err
}
