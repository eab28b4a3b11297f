package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/topicsnap/topicsnap/catalog/folder"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// Errors a caller can tell apart with errors.Is. Those a backend returns
// too are declared in catalog/store and are the same values.
// NoManifest says why a topic whose folder holds no partition's manifest
// is no topic of the snapshot folder (ls, sql, check, serve, compact and
// restore say it alike).
const NoManifest = "its folder holds no partition's manifest (a dump made it and wrote nothing of the topic: refused it, e.g. without READ on it, or stopped before its first file)"

var (
	ErrNewerFormat = exit.New(exit.BadFolder, "snapshot folder written by a newer topicsnap", "use a newer topicsnap build for this folder")
	ErrLocked      = store.ErrLocked
	ErrBadLock     = store.ErrBadLock
	ErrNotWritable = store.ErrNotWritable
	ErrDiskFull    = store.ErrDiskFull
	// ErrTooManyFiles: the limit of open files reached (store.ErrTooManyFiles).
	ErrTooManyFiles = store.ErrTooManyFiles
	ErrBadManifest  = exit.New(exit.BadFolder, "manifest is not valid", "run: topicsnap catalog verify --dir DIR")
	// ErrNotFolder is a topic's or a partition's folder, or a topic's
	// folder of cuts, that is a symbolic link (or a file): it is not read,
	// as a link may lead out of the snapshot folder (README "Security").
	ErrNotFolder = exit.New(exit.BadFolder, "not a folder",
		"replace each link named with the folder it points to (move the folder back into the snapshot folder), or mount that folder at the link's name instead (mount --bind OTHER DIR/topic=T); links are not followed")
	// ErrNoTopic is a topic named (catalog compact --topic) that the
	// folder holds no folder of.
	ErrNoTopic = exit.New(exit.UnknownTopic, "topic not in the snapshot folder",
		"topicsnap ls --dir DIR lists the topics the folder holds")
	// ErrNoCatalog is a path that holds no snapshot folder: it does not
	// exist, is not a folder, or holds files topicsnap did not write.
	ErrNoCatalog = store.ErrNoCatalog
	// ErrConflict is a manifest (or lock) that another writer replaced
	// between this writer's read and its conditional write: the other one
	// committed first, and this one must stop rather than overwrite it.
	ErrConflict = store.ErrConflict
	// ErrDenied is a bucket that refused these credentials: unknown key,
	// bad signature, or a policy that does not grant the request.
	ErrDenied = store.ErrDenied
)

const (
	folderFile   = "topicsnap.json"
	manifestName = "manifest.json"
	tmpPrefix    = ".tmp-"
	lockName     = ".lock"
	snapshotsDir = "snapshots"
)

// Store is where a Dir's objects live (catalog/store): a local folder
// (catalog/folder) or a bucket (catalog/bucket, registered for s3://).
type Store = store.Store

// Dir is a snapshot folder.
type Dir struct {
	// Path is the folder, or s3://bucket/prefix for a bucket.
	Path string
	// st holds the objects; nil (a Dir{Path: p} literal) is the folder p.
	st store.Store
	// versions is the version (a bucket's ETag) of each manifest this Dir
	// read or wrote, so that its next write of it is conditional on it;
	// "" = read as absent (create only if still absent).
	mu       sync.Mutex
	versions map[TopicPartition]string
}

func newDir(st store.Store) *Dir {
	return &Dir{Path: st.Root(), st: st, versions: map[TopicPartition]string{}}
}

// Store is the store d reads and writes.
func (d *Dir) Store() Store { return d.store() }

func (d *Dir) store() store.Store {
	if d.st == nil {
		return folder.New(d.Path)
	}
	return d.st
}

// where names rel in d for messages and readers: a path or a URL.
func (d *Dir) where(rel string) string { return d.store().Where(rel) }

// S3Config says how to reach a bucket. Credentials, region and (unless
// Endpoint is set) the endpoint come from the AWS SDK's default chain:
// the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL_S3,
// ...), then the shared config and credentials files, then the instance's
// role. Secrets are never printed: errors name the bucket and the key.
// It is read by the backend registered for s3:// (catalog/bucket).
type S3Config struct {
	// Endpoint is an S3-compatible server's URL (http://127.0.0.1:9000);
	// set, it is addressed path-style (bucket in the path, not the host).
	Endpoint string
	// LockTTL is how long a partition lock lives without being renewed:
	// a dumper killed while holding it blocks the next one for at most
	// this long. The holder renews it every LockTTL/3. Default 2 minutes.
	LockTTL time.Duration
	// Log receives what the bucket client retries (a server down, slow or
	// answering 503 SlowDown); nil writes to os.Stderr.
	Log func(string)
	// PartSize is the size of each part of a multipart upload; a file up
	// to it goes in one PUT. 0: 16 MiB (S3 takes no part under 5 MiB).
	PartSize int64
}

// Opener makes the Store of a location of its scheme (s3://BUCKET/PREFIX),
// sending no request: Open and Create ask it what they need.
type Opener func(ctx context.Context, loc string, cfg S3Config) (Store, error)

var (
	backendsMu sync.RWMutex
	backends   = map[string]Opener{}
)

// Register makes open the backend of locations scheme://...; a program
// registers the bucket backend by importing catalog/bucket (as a
// database/sql driver registers itself). A second registration of a
// scheme panics.
func Register(scheme string, open Opener) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[scheme]; dup {
		panic("catalog: Register called twice for " + scheme)
	}
	backends[scheme] = open
}

// IsURL reports whether loc names a bucket (s3://bucket/prefix), not a folder.
func IsURL(loc string) bool { return strings.HasPrefix(loc, "s3://") }

// storeAt is the store of loc: a registered backend's for a URL, else the
// folder loc.
func storeAt(ctx context.Context, loc string, cfg S3Config) (store.Store, error) {
	if !IsURL(loc) {
		return folder.New(loc), nil
	}
	scheme, _, _ := strings.Cut(loc, "://")
	backendsMu.RLock()
	open := backends[scheme]
	backendsMu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("open %s: %w: this program reads no %s:// location (it registers one by importing github.com/topicsnap/topicsnap/catalog/bucket)", loc, ErrNoCatalog, scheme)
	}
	return open(ctx, loc, cfg)
}

type folderInfo struct {
	FormatVersion int    `json:"format_version"`
	CreatedBy     string `json:"created_by"`
}

// FolderFileError is a snapshot folder's topicsnap.json that cannot be
// read: empty, not JSON, not a regular file, past its cap. It is what
// marks the folder as topicsnap's, so nothing of the folder is read
// without it; its hint says what it holds. errors.Is finds ErrBadManifest
// (and the cause: safefile.ErrNotRegular, safefile.ErrTooLarge) through it.
type FolderFileError struct {
	Path   string // the file: its path, or its s3:// URL
	Detail string // what is wrong with it
	Err    error  // why it could not be read, if it could not
}

func (e *FolderFileError) Error() string {
	return fmt.Sprintf("%s is damaged (%s): it marks the snapshot folder and holds its layout's version", e.Path, e.Detail)
}

func (e *FolderFileError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrBadManifest) hold.
func (e *FolderFileError) Is(target error) bool { return target == ErrBadManifest }

// ExitCode is exit.BadFolder (9).
func (e *FolderFileError) ExitCode() exit.Code { return exit.BadFolder }

// Hint says what the file holds, as Create writes it.
func (e *FolderFileError) Hint() string {
	b := fmt.Sprintf(`{"format_version": %d, "created_by": "topicsnap"}`, FolderFormatVersion)
	return fmt.Sprintf("make it a regular file holding %s (what topicsnap writes there when it makes a folder; nothing else is in it), or put it back from a backup; then check the rest: topicsnap catalog verify --dir DIR", b)
}

// Open checks that path is a snapshot folder this build can read: a folder
// with a topicsnap.json, or an empty folder (an empty catalog). A path that
// does not exist, is not a folder, or holds other files is ErrNoCatalog:
// reading it as empty would answer questions about a catalog that is not
// there. Open never writes.
func Open(path string) (*Dir, error) {
	return OpenAt(context.Background(), path, S3Config{})
}

// OpenAt opens loc, a local folder or s3://bucket/prefix, as Open does.
// ctx bounds the requests of the opening only: the Dir keeps none, and
// each of its methods takes its own.
func OpenAt(ctx context.Context, loc string, cfg S3Config) (*Dir, error) {
	st, err := storeAt(ctx, loc, cfg)
	if err != nil {
		return nil, err
	}
	d := newDir(st)
	if _, err := d.open(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// open checks the root as Open describes; version is its topicsnap.json's
// folder format version, 0 when it holds none.
func (d *Dir) open(ctx context.Context) (version int, err error) {
	st := d.store()
	b, _, err := st.Get(ctx, folderFile, MaxFolderFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return 0, st.Vacant(ctx)
	case store.IsDamaged(err) && !errors.Is(err, os.ErrPermission):
		return 0, &FolderFileError{Path: st.Where(folderFile), Detail: err.Error(), Err: err}
	case err != nil:
		return 0, fmt.Errorf("open %s: %w", d.Path, readErr(err))
	}
	var fi folderInfo
	if err := json.Unmarshal(b, &fi); err != nil {
		detail := "not JSON: " + err.Error()
		if len(strings.TrimSpace(string(b))) == 0 {
			detail = "empty"
		}
		return 0, &FolderFileError{Path: st.Where(folderFile), Detail: detail}
	}
	if fi.FormatVersion > FolderFormatVersion {
		return 0, fmt.Errorf("%s has format version %d, this build reads up to %d: %w",
			d.Path, fi.FormatVersion, FolderFormatVersion, ErrNewerFormat)
	}
	if fi.FormatVersion < 1 {
		// No topicsnap wrote a version below 1, or none ({}, null): a
		// file that only looks like the folder's, its layout unknown.
		detail := fmt.Sprintf("format_version %d, where topicsnap writes 1 or more", fi.FormatVersion)
		if !bytes.Contains(b, []byte(`"format_version"`)) {
			detail = "no format_version"
		}
		return 0, &FolderFileError{Path: st.Where(folderFile), Detail: detail}
	}
	return fi.FormatVersion, nil
}

// CheckCreate tells, without writing anything, whether Create(path) could
// make or reuse a snapshot folder there: ErrNotWritable for a path under a
// file or on a folder this process may not write, ErrNoCatalog for a
// folder that holds other files. A dump calls it before it checks its
// other options, so that nothing is written until they all are right.
func CheckCreate(path string) error {
	return CheckCreateAt(context.Background(), path, S3Config{})
}

// CheckCreateAt is CheckCreate for a local folder or s3://bucket/prefix:
// for a bucket, that it exists, can be reached with these credentials, and
// holds no foreign files under the prefix. It writes nothing.
func CheckCreateAt(ctx context.Context, loc string, cfg S3Config) error {
	st, err := storeAt(ctx, loc, cfg)
	if err != nil {
		return err
	}
	exists, err := st.Writable(ctx)
	if err != nil || !exists {
		return err
	}
	_, err = newDir(st).open(ctx)
	return err
}

// Create opens path for writing, creating the folder and its version file.
func Create(path string) (*Dir, error) {
	return CreateAt(context.Background(), path, S3Config{})
}

// CreateAt is Create for a local folder or s3://bucket/prefix.
func CreateAt(ctx context.Context, loc string, cfg S3Config) (*Dir, error) {
	st, err := storeAt(ctx, loc, cfg)
	if err != nil {
		return nil, err
	}
	// First the folder, so that a path that cannot be one (a file on the
	// way) is named as not writable rather than unreadable.
	if err := st.Create(ctx); err != nil {
		return nil, err
	}
	d := newDir(st)
	version, err := d.open(ctx)
	if err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(folderInfo{FolderFormatVersion, "topicsnap"}, "", "  ")
	switch {
	case version == 0:
		_, err := st.Put(ctx, folderFile, append(b, '\n'), store.Cond{IfAbsent: true})
		if err != nil && !errors.Is(err, ErrConflict) { // made by another since: fine
			return nil, err
		}
	case version < FolderFormatVersion:
		// A folder of an older layout: marked with this one before this
		// writer adds anything an older build would not see (see
		// FolderFormatVersion). Another writer marking it too writes the
		// same bytes.
		if _, err := st.Put(ctx, folderFile, append(b, '\n'), store.Cond{}); err != nil {
			return nil, fmt.Errorf("mark %s as format version %d: %w", d.Path, FolderFormatVersion, err)
		}
	}
	return d, nil
}

// WriteFileAtomic writes path through fill: to a temp file in the same folder,
// fsynced, renamed over path, and the folder fsynced. On any error nothing is
// left behind and path is untouched.
func WriteFileAtomic(path string, fill func(w io.Writer) error) error {
	return folder.WriteFileAtomic(path, fill)
}

// classify maps OS errors to the catalog's error kinds.
func classify(err error) error { return store.Classify(err) }

// openRegular opens a data file for reading (folder.OpenRegular).
func openRegular(dir, name string) (*os.File, error) { return folder.OpenRegular(dir, name) }
