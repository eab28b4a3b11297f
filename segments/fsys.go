package segments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Bucket is a bucket's objects as an import reads them: listed under a
// prefix and read by byte ranges, each call with its context. A key or
// bucket that is not there is an error wrapping fs.ErrNotExist.
// bucket.Source (catalog/bucket) is one.
type Bucket interface {
	// List calls fn with each object whose key starts with prefix, in key
	// order; past max objects it fails.
	List(ctx context.Context, prefix string, max int, fn func(key string, size int64)) error
	// ReadRange reads exactly len(p) bytes of key from off.
	ReadRange(ctx context.Context, key string, off int64, p []byte) error
}

// OpenBucket reaches a bucket by its name.
type OpenBucket func(ctx context.Context, bucket string) (Bucket, error)

// Bounds of what an import reads from a bucket.
const (
	// MaxBucketObjects bounds the objects one s3:// PATH may list.
	MaxBucketObjects = 200_000
	// MaxSegmentBytes bounds a segment object: Kafka's segment.bytes is a
	// 32-bit int, so a larger one is not a segment.
	MaxSegmentBytes = 1<<31 - 1
	// bucketChunk is what one ranged read of a segment fetches.
	bucketChunk = 8 << 20
)

// fileInfo is a file or folder of a fileSystem.
type fileInfo struct {
	name    string
	size    int64
	dir     bool
	regular bool
	// other names what an entry that is neither a folder nor a regular
	// file is (a symbolic link, a FIFO, a device, a socket); "" otherwise.
	other string
}

// otherKind names a file mode that is neither a folder nor a regular file.
func otherKind(m fs.FileMode) string {
	switch {
	case m.IsDir() || m.IsRegular():
		return ""
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// fileSystem is where an import's PATHs lie: the local disk, or one
// s3:// PATH's listing. Paths are its own (s3://BUCKET/KEY for a bucket).
type fileSystem interface {
	stat(p string) (fileInfo, error)
	readDir(p string) ([]fileInfo, error)
	open(p string) (io.ReaderAt, io.Closer, error)
	readFile(p string, max int64) ([]byte, error)
	join(elem ...string) string
	dir(p string) string
	base(p string) string
	clean(p string) string
}

// osFS is the local disk.
type osFS struct{}

func (osFS) stat(p string) (fileInfo, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{name: fi.Name(), size: fi.Size(), dir: fi.IsDir(), regular: fi.Mode().IsRegular()}, nil
}

func (osFS) readDir(p string) ([]fileInfo, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]fileInfo, len(ents))
	for i, e := range ents {
		out[i] = fileInfo{name: e.Name(), dir: e.IsDir(), regular: e.Type().IsRegular(), other: otherKind(e.Type())}
	}
	return out, nil
}

func (osFS) open(p string) (io.ReaderAt, io.Closer, error) {
	// Non-blocking: a FIFO put in the file's place after it was listed
	// would hold open(2) until a writer came; it is refused below.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, exit.Errorf(ErrBadInput, "%v", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, exit.Errorf(ErrBadInput, "%s is not a regular file", p)
	}
	return f, f, nil
}

func (osFS) readFile(p string, max int64) ([]byte, error) { return safefile.ReadFile(p, max) }
func (osFS) join(elem ...string) string                   { return filepath.Join(elem...) }
func (osFS) dir(p string) string                          { return filepath.Dir(p) }
func (osFS) base(p string) string                         { return filepath.Base(p) }
func (osFS) clean(p string) string                        { return filepath.Clean(p) }

// bucketFS is the objects under one s3:// PATH, listed once: folders are
// the keys' slash-separated prefixes.
type bucketFS struct {
	ctx    context.Context
	b      Bucket
	bucket string
	files  map[string]fileInfo            // path -> object
	dirs   map[string]map[string]fileInfo // path -> its entries
}

// newBucketFS lists the objects of loc (s3://BUCKET/PREFIX): the prefix as
// a folder and, when it names a .log object, its folder.
func newBucketFS(ctx context.Context, loc string, open OpenBucket) (*bucketFS, string, error) {
	if open == nil {
		return nil, "", exit.Errorf(ErrBadInput, "%s: this import cannot read buckets", loc)
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(loc, "s3://"), "/")
	key = strings.Trim(key, "/")
	if bucket == "" || strings.Contains(key, "//") {
		return nil, "", exit.Errorf(ErrBadInput, "%q names no bucket and prefix (write s3://BUCKET/PREFIX)", loc)
	}
	b, err := open(ctx, bucket)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", exit.Errorf(ErrBadInput, "%v", err)
		}
		return nil, "", err
	}
	f := &bucketFS{ctx: ctx, b: b, bucket: bucket, files: map[string]fileInfo{}, dirs: map[string]map[string]fileInfo{}}
	prefix := key
	if strings.HasSuffix(key, ".log") {
		prefix = path.Dir(key) // its folder: the indexes and the segments beside it
		if prefix == "." {
			prefix = ""
		}
	}
	listPrefix := prefix
	if listPrefix != "" {
		listPrefix += "/"
	}
	var tooBig []string
	err = b.List(ctx, listPrefix, MaxBucketObjects, func(k string, size int64) {
		if strings.HasSuffix(k, "/") {
			return // a folder marker
		}
		if size > MaxSegmentBytes {
			tooBig = append(tooBig, k)
			return
		}
		f.add(k, size)
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", exit.Errorf(ErrBadInput, "%v", err)
		}
		return nil, "", err
	}
	if len(tooBig) > 0 {
		return nil, "", exit.Errorf(ErrBadInput, "s3://%s/%s: %d bytes or more, larger than any Kafka segment (segment.bytes is a 32-bit int); not a log directory", bucket, tooBig[0], MaxSegmentBytes)
	}
	p := f.path(key)
	if _, ok := f.files[p]; !ok && f.dirs[p] == nil {
		return nil, "", exit.Errorf(ErrBadInput, "%s: no such object or prefix in bucket %s", loc, bucket)
	}
	return f, p, nil
}

func (f *bucketFS) path(key string) string {
	if key == "" {
		return "s3://" + f.bucket
	}
	return "s3://" + f.bucket + "/" + key
}

// key is the object key of a path.
func (f *bucketFS) key(p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, "s3://"+f.bucket), "/")
}

func (f *bucketFS) add(key string, size int64) {
	p := f.path(key)
	f.files[p] = fileInfo{name: path.Base(key), size: size, regular: true}
	child := fileInfo{name: path.Base(key), size: size, regular: true}
	for k := key; k != "" && k != "."; {
		parent := path.Dir(k)
		if parent == "." {
			parent = ""
		}
		pp := f.path(parent)
		if f.dirs[pp] == nil {
			f.dirs[pp] = map[string]fileInfo{}
		}
		_, had := f.dirs[pp][child.name]
		f.dirs[pp][child.name] = child
		if had {
			return
		}
		child = fileInfo{name: path.Base(parent), dir: true}
		k = parent
	}
}

func (f *bucketFS) stat(p string) (fileInfo, error) {
	if fi, ok := f.files[p]; ok {
		return fi, nil
	}
	if f.dirs[p] != nil {
		return fileInfo{name: f.base(p), dir: true}, nil
	}
	return fileInfo{}, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
}

func (f *bucketFS) readDir(p string) ([]fileInfo, error) {
	d := f.dirs[p]
	if d == nil {
		return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
	}
	out := make([]fileInfo, 0, len(d))
	for _, fi := range d {
		out = append(out, fi)
	}
	slices.SortFunc(out, func(a, b fileInfo) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

func (f *bucketFS) open(p string) (io.ReaderAt, io.Closer, error) {
	fi, ok := f.files[p]
	if !ok {
		return nil, nil, exit.Errorf(ErrBadInput, "%s: no such object", p)
	}
	r := &bucketReader{ctx: f.ctx, b: f.b, key: f.key(p), size: fi.size}
	return r, io.NopCloser(nil), nil
}

// readFile reads a small object whole: one listed, or one beside what was
// listed (a log directory's checkpoint above a partition folder given),
// found by listing its key.
func (f *bucketFS) readFile(p string, max int64) ([]byte, error) {
	fi, ok := f.files[p]
	if !ok {
		key := f.key(p)
		found := false
		err := f.b.List(f.ctx, key, 1000, func(k string, size int64) {
			if k == key {
				fi, found = fileInfo{name: path.Base(k), size: size, regular: true}, true
			}
		})
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
		}
	}
	if fi.size > max {
		return nil, &safefile.TooLargeError{Name: p, Max: max}
	}
	b := make([]byte, fi.size)
	if err := f.b.ReadRange(f.ctx, f.key(p), 0, b); err != nil {
		return nil, err
	}
	return b, nil
}

func (f *bucketFS) join(elem ...string) string {
	if len(elem) == 0 {
		return ""
	}
	return "s3://" + path.Join(append([]string{strings.TrimPrefix(elem[0], "s3://")}, elem[1:]...)...)
}

func (f *bucketFS) dir(p string) string {
	d := path.Dir(strings.TrimPrefix(p, "s3://"))
	return "s3://" + d
}

func (f *bucketFS) base(p string) string { return path.Base(strings.TrimPrefix(p, "s3://")) }
func (f *bucketFS) clean(p string) string {
	return "s3://" + path.Clean(strings.TrimPrefix(p, "s3://"))
}

// bucketReader reads a segment object by ranged reads of bucketChunk
// bytes (a batch larger than that in one read of its own), so that the
// scanner's small reads of a batch's header and its body cost one request
// per chunk, not two per batch.
type bucketReader struct {
	ctx  context.Context
	b    Bucket
	key  string
	size int64
	buf  []byte
	off  int64 // of buf[0]
}

func (r *bucketReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	want := p
	short := false
	if off+int64(len(p)) > r.size {
		want, short = p[:r.size-off], true
	}
	if off < r.off || off+int64(len(want)) > r.off+int64(len(r.buf)) {
		n := max(int64(len(want)), min(bucketChunk, r.size-off))
		if cap(r.buf) < int(n) {
			r.buf = make([]byte, n)
		}
		r.buf = r.buf[:n]
		if err := r.b.ReadRange(r.ctx, r.key, off, r.buf); err != nil {
			r.buf = r.buf[:0]
			return 0, &bucketReadError{err}
		}
		r.off = off
	}
	n := copy(want, r.buf[off-r.off:])
	if short {
		return n, io.EOF
	}
	return n, nil
}

// bucketReadError is a bucket's failure to answer a read: the bucket's
// error (unreachable, denied), not bad input.
type bucketReadError struct{ err error }

func (e *bucketReadError) Error() string { return e.err.Error() }
func (e *bucketReadError) Unwrap() error { return e.err }

// readErr is the error of a segment that could not be read: the bucket's
// own when a bucket failed, else bad input.
func readErr(path string, err error) error {
	var be *bucketReadError
	if errors.As(err, &be) {
		return fmt.Errorf("%s: %w", path, be.err)
	}
	return exit.Errorf(ErrBadInput, "%s: %v", path, err)
}
