// Package bucket keeps a snapshot folder's objects in an S3 bucket, under
// s3://BUCKET/PREFIX: the catalog/store.Store of a bucket, registered with
// catalog for s3:// locations when a program imports it (as a
// database/sql driver registers itself):
//
//	import _ "github.com/topicsnap/topicsnap/catalog/bucket"
//
// It is the one package of topicsnap that imports the AWS SDK.
//
// The folder's promises are kept by other means: a data file is uploaded
// whole (multipart above S3Config.PartSize, 16 MiB) before the manifest
// that lists it is replaced, and an upload a kill cut short is not an
// object (the partition's next writer aborts it); a manifest is replaced
// only by a conditional PUT (If-Match on the ETag catalog read;
// If-None-Match: * to create), so of two writers one commits and the
// other gets ErrConflict; a data file is created only if absent (its name
// is never reused: one there is another writer's); the partition lock is
// an object created only if absent, with an owner and an expiry, renewed
// while held and taken over when stale. Every metadata object is read by a capped GET
// (ContentLength, then a LimitReader).
package bucket

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

func init() {
	catalog.Register("s3", func(ctx context.Context, loc string, cfg catalog.S3Config) (catalog.Store, error) {
		return Open(ctx, loc, cfg)
	})
}

// Store is a snapshot folder in a bucket: the same keys as the local
// layout, under prefix.
type Store struct {
	cl             *s3.Client
	bucket, prefix string
	lockTTL        time.Duration
	partSize       int64
	log            func(string)
}

var _ store.Store = (*Store)(nil)

// ParseURL splits s3://bucket/prefix into the bucket and the prefix
// (no leading or trailing slash; empty for the bucket's root).
func ParseURL(loc string) (bucket, prefix string, err error) {
	rest := strings.TrimPrefix(loc, "s3://")
	bucket, prefix, _ = strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%w: %q names no bucket (write s3://BUCKET/PREFIX)", store.ErrNoCatalog, loc)
	}
	if strings.Contains(prefix, "//") {
		return "", "", fmt.Errorf("%w: %q has an empty path element", store.ErrNoCatalog, loc)
	}
	return bucket, prefix, nil
}

// Open is the store of loc (s3://bucket/prefix), reached as cfg says. It
// sends no request: ctx is the one the SDK's configuration is loaded with.
func Open(ctx context.Context, loc string, cfg catalog.S3Config) (*Store, error) {
	bucket, prefix, err := ParseURL(loc)
	if err != nil {
		return nil, err
	}
	s := &Store{bucket: bucket, prefix: prefix, lockTTL: cfg.LockTTL, partSize: cfg.PartSize, log: cfg.Log}
	if s.lockTTL <= 0 {
		s.lockTTL = 2 * time.Minute
	}
	if s.partSize <= 0 {
		s.partSize = 16 << 20
	}
	if s.log == nil {
		s.log = func(s string) { fmt.Fprintln(os.Stderr, s) }
	}
	if s.cl, err = newClient(ctx, cfg, s.log); err != nil {
		return nil, err
	}
	return s, nil
}

// Client is the S3 client the store sends its requests with.
func (s *Store) Client() *s3.Client { return s.cl }

func (s *Store) Root() string { return "s3://" + path.Join(s.bucket, s.prefix) }

func (s *Store) key(rel string) string {
	if s.prefix == "" {
		return rel
	}
	return s.prefix + "/" + rel
}

// Key is rel's key in the bucket (the prefix, then rel).
func (s *Store) Key(rel string) string { return s.key(rel) }

// Bucket is the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

func (s *Store) Where(rel string) string { return "s3://" + s.bucket + "/" + s.key(rel) }

func (s *Store) Traits() store.Traits {
	return store.Traits{Partition: "the partition's objects", ETags: true, LeasedLocks: true}
}

// s3Error maps a bucket error to the catalog's kinds, naming the object.
func (s *Store) s3Error(verb, rel string, err error) error {
	var kind error
	switch {
	case codeOf(err) == "NoSuchBucket":
		kind = fmt.Errorf("%w: bucket %s does not exist", store.ErrNoCatalog, s.bucket)
	case statusOf(err) == http.StatusForbidden || codeOf(err) == "AccessDenied" || codeOf(err) == "InvalidAccessKeyId" || codeOf(err) == "SignatureDoesNotMatch":
		kind = fmt.Errorf("%w (%s)", store.ErrDenied, codeOf(err))
	}
	if kind != nil {
		return fmt.Errorf("%s %s: %w", verb, s.Where(rel), kind)
	}
	return fmt.Errorf("%s %s: %w", verb, s.Where(rel), err)
}

// Vacant lists the prefix: nothing there, or only topic folders and
// snapshots, may be read as an empty catalog.
func (s *Store) Vacant(ctx context.Context) error {
	entries, err := s.List(ctx, "")
	if err != nil {
		return err
	}
	var other []string
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name, "."):
		case !e.Dir:
			other = append(other, e.Name)
		case !strings.HasPrefix(e.Name, "topic=") && e.Name != "snapshots":
			other = append(other, e.Name+"/")
		}
	}
	if len(other) > 0 {
		if len(other) > 3 {
			other = append(other[:3:3], "...")
		}
		return fmt.Errorf("%w: %s has no topicsnap.json and holds other objects (%s)", store.ErrNoCatalog, s.Root(), strings.Join(other, ", "))
	}
	return nil
}

// Writable: whether the bucket can be reached and written is learnt by the
// open that follows (it reads the prefix).
func (s *Store) Writable(context.Context) (bool, error) { return true, nil }

// Create: a bucket is not made; a prefix needs no making.
func (s *Store) Create(context.Context) error { return nil }

// Get reads a metadata object whole, of at most max bytes; a missing one
// is os.ErrNotExist, a larger one a *safefile.TooLargeError naming it by
// rel (Damaged), returned with its ETag so that a lock past its cap can
// still be taken over conditionally.
func (s *Store) Get(ctx context.Context, rel string, max int64) ([]byte, string, error) {
	out, err := s.cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel))})
	if err != nil {
		if isNotFound(err) {
			return nil, "", fmt.Errorf("read %s: %w", s.Where(rel), os.ErrNotExist)
		}
		return nil, "", s.s3Error("read", rel, err)
	}
	defer out.Body.Close()
	// Refused before reading when the server says its size, and cut off
	// past the cap when it does not (or lies).
	if aws.ToInt64(out.ContentLength) > max {
		return nil, aws.ToString(out.ETag), store.Damaged(&safefile.TooLargeError{Name: rel, Max: max})
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", s.Where(rel), err)
	}
	if int64(len(b)) > max {
		return nil, aws.ToString(out.ETag), store.Damaged(&safefile.TooLargeError{Name: rel, Max: max})
	}
	return b, aws.ToString(out.ETag), nil
}

// Put writes an object whole under cond (see store.Store.Put). Unread
// asks the object's current ETag first (a HEAD), so as not to overwrite
// blindly what another writer wrote.
func (s *Store) Put(ctx context.Context, rel string, b []byte, cond store.Cond) (string, error) {
	if cond.Unread {
		out, err := s.cl.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel))})
		switch {
		case err != nil && isNotFound(err):
			cond = store.Cond{IfAbsent: true}
		case err != nil:
			return "", s.s3Error("read", rel, err)
		default:
			cond = store.Cond{IfMatch: aws.ToString(out.ETag)}
		}
	}
	return s.put(ctx, rel, b, cond.IfMatch, cond.IfAbsent)
}

// put writes an object whole. ifMatch set: only over that version;
// create: only if absent. A failed condition is ErrConflict, unless the
// object already holds exactly b (our own write, whose answer was lost
// and whose retry found it done).
func (s *Store) put(ctx context.Context, rel string, b []byte, ifMatch string, create bool) (string, error) {
	in := &s3.PutObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel)), Body: bytes.NewReader(b),
		ContentLength: aws.Int64(int64(len(b)))}
	if strings.HasSuffix(rel, ".json") || strings.HasSuffix(rel, lockName) {
		in.ContentType = aws.String("application/json")
	}
	switch {
	case ifMatch != "":
		in.IfMatch = aws.String(ifMatch)
	case create:
		in.IfNoneMatch = aws.String("*")
	}
	out, err := s.cl.PutObject(ctx, in)
	if err != nil {
		if (ifMatch != "" || create) && (isPrecondition(err) || ifMatch != "" && isNotFound(err)) {
			if cur, etag, gerr := s.Get(ctx, rel, int64(len(b))); gerr == nil && bytes.Equal(cur, b) {
				return etag, nil
			}
			return "", fmt.Errorf("write %s: %w", s.Where(rel), store.ErrConflict)
		}
		return "", s.s3Error("write", rel, err)
	}
	return aws.ToString(out.ETag), nil
}

func (s *Store) Delete(ctx context.Context, rel string) error {
	_, err := s.cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel))})
	if err != nil && !isNotFound(err) {
		return s.s3Error("remove", rel, err)
	}
	return nil
}

// List lists the folder rel ("" for the root): its subfolders' names (the
// common prefixes) and its objects, every page of them.
func (s *Store) List(ctx context.Context, rel string) ([]store.Entry, error) {
	pfx := s.key(rel)
	if pfx != "" && !strings.HasSuffix(pfx, "/") {
		pfx += "/"
	}
	var out []store.Entry
	p := s3.NewListObjectsV2Paginator(s.cl, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(pfx), Delimiter: aws.String("/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.s3Error("list", rel, err)
		}
		for _, cp := range page.CommonPrefixes {
			out = append(out, store.Entry{Name: strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), pfx), "/"), Dir: true, Size: -1})
		}
		for _, o := range page.Contents {
			out = append(out, store.Entry{Name: strings.TrimPrefix(aws.ToString(o.Key), pfx), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)})
		}
	}
	return out, nil
}

// CheckData: a bucket's objects are always plain, and their sizes are
// listed, not asked one by one.
func (s *Store) CheckData(context.Context, string) (int64, error) { return -1, nil }

// TempFile is in local temp space: the file is uploaded whole by Place.
func (s *Store) TempFile(_ context.Context, _, pattern string) (*os.File, error) {
	dir := os.TempDir()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("create temp file in %s: %w", dir, store.Classify(err))
	}
	return f, nil
}

// Place uploads the finished temp file under rel, complete before it
// returns, and removes the temp file.
func (s *Store) Place(ctx context.Context, tmp, rel string) error {
	defer os.Remove(tmp)
	f, err := os.Open(tmp)
	if err != nil {
		return fmt.Errorf("open %s: %w", tmp, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open %s: %w", tmp, err)
	}
	return s.uploadAs(ctx, rel, f, fi.Size(), true)
}

// errOurs is a conditional upload refused because its own earlier try
// succeeded.
var errOurs = errors.New("the object is this upload's own")

// Upload stores r at rel: a local file as it is, anything else spooled to
// a temp file first (a part is sent again when a request is retried).
func (s *Store) Upload(ctx context.Context, rel string, r io.Reader, size int64) error {
	if f, ok := r.(*os.File); ok {
		return s.upload(ctx, rel, f, size)
	}
	tmp, err := os.CreateTemp("", ".tmp-copy-*.parquet")
	if err != nil {
		return fmt.Errorf("create temp file: %w", store.Classify(err))
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := io.Copy(tmp, r); err != nil {
		return err
	}
	return s.upload(ctx, rel, tmp, size)
}

// upload stores the local file f (size bytes) at rel, complete or not at
// all: one PUT up to the part size, else a multipart upload of parts of
// that size whose completion makes it appear whole; on failure the upload
// is aborted. A kill -9 mid-way leaves an incomplete upload, which is not
// an object (no listing shows it) and which the partition's next writer
// aborts (Unfinished). The SDK sends a CRC32 checksum of every request
// body, which the server verifies.
func (s *Store) upload(ctx context.Context, rel string, f *os.File, size int64) error {
	return s.uploadAs(ctx, rel, f, size, false)
}

// uploadAs is upload; create makes it create rel only if absent
// (If-None-Match: *, on the PUT or on the multipart completion): a data
// file's name is never reused, so an object already there is another
// writer's (one whose lock expired under it, still uploading after the
// writer that took the lock over committed that name), never replaced:
// ErrConflict.
func (s *Store) uploadAs(ctx context.Context, rel string, f *os.File, size int64, create bool) error {
	key := aws.String(s.key(rel))
	partSize := s.partSize
	var ifNoneMatch *string
	if create {
		ifNoneMatch = aws.String("*")
	}
	conflict := func(err error) error {
		if !create || !isPrecondition(err) {
			return nil
		}
		// A retried request whose first try was done: the object is ours.
		if size <= partSize {
			h := md5.New()
			if _, herr := io.Copy(h, io.NewSectionReader(f, 0, size)); herr == nil {
				out, herr := s.cl.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: key})
				if herr == nil && aws.ToInt64(out.ContentLength) == size && strings.Trim(aws.ToString(out.ETag), `"`) == hex.EncodeToString(h.Sum(nil)) {
					return errOurs
				}
			}
		}
		return fmt.Errorf("upload %s: an object of that name is already there, written by another writer of the partition: %w", s.Where(rel), store.ErrConflict)
	}
	if size <= partSize {
		_, err := s.cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: key,
			Body: io.NewSectionReader(f, 0, size), ContentLength: aws.Int64(size), IfNoneMatch: ifNoneMatch})
		if err != nil {
			if cerr := conflict(err); cerr != nil {
				if cerr == errOurs {
					return nil
				}
				return cerr
			}
			return s.s3Error("upload", rel, err)
		}
		return nil
	}
	cu, err := s.cl.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: key})
	if err != nil {
		return s.s3Error("start upload of", rel, err)
	}
	abort := func(err error) error {
		// Even when interrupted; if this fails too, the partition's next
		// writer aborts the upload.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		s.cl.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: key, UploadId: cu.UploadId})
		return err
	}
	var parts []types.CompletedPart
	for n, off := int32(1), int64(0); off < size; n, off = n+1, off+partSize {
		l := min(partSize, size-off)
		up, err := s.cl.UploadPart(ctx, &s3.UploadPartInput{Bucket: &s.bucket, Key: key, UploadId: cu.UploadId,
			PartNumber: aws.Int32(n), Body: io.NewSectionReader(f, off, l), ContentLength: aws.Int64(l)})
		if err != nil {
			return abort(s.s3Error(fmt.Sprintf("upload part %d of", n), rel, err))
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: up.ETag})
	}
	_, err = s.cl.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &s.bucket, Key: key,
		UploadId: cu.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}, IfNoneMatch: ifNoneMatch})
	if err != nil {
		if cerr := conflict(err); cerr != nil && cerr != errOurs {
			return abort(cerr)
		}
		return abort(s.s3Error("complete upload of", rel, err))
	}
	return nil
}

// Open opens an object: read as a stream (one GET, sent at the first
// Read) or at random (a ranged GET per ReadAt, for Parquet footers).
func (s *Store) Open(ctx context.Context, rel string) (store.File, error) {
	return &object{s: s, ctx: ctx, rel: rel}, nil
}

type object struct {
	s    *Store
	ctx  context.Context
	rel  string
	body io.ReadCloser
}

func (o *object) Read(p []byte) (int, error) {
	if o.body == nil {
		out, err := o.s.cl.GetObject(o.ctx, &s3.GetObjectInput{Bucket: &o.s.bucket, Key: aws.String(o.s.key(o.rel))})
		if err != nil {
			return 0, o.s.s3Error("read", o.rel, err)
		}
		o.body = out.Body
	}
	return o.body.Read(p)
}

func (o *object) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	out, err := o.s.cl.GetObject(o.ctx, &s3.GetObjectInput{Bucket: &o.s.bucket, Key: aws.String(o.s.key(o.rel)),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))})
	if err != nil {
		return 0, o.s.s3Error("read", o.rel, err)
	}
	defer out.Body.Close()
	n, err := io.ReadFull(out.Body, p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return n, err
}

// Size is the object's size (a HEAD), for readers that ask it.
func (o *object) Size() int64 {
	out, err := o.s.cl.HeadObject(o.ctx, &s3.HeadObjectInput{Bucket: &o.s.bucket, Key: aws.String(o.s.key(o.rel))})
	if err != nil {
		return 0
	}
	return aws.ToInt64(out.ContentLength)
}

func (o *object) Close() error {
	if o.body != nil {
		return o.body.Close()
	}
	return nil
}

// Unfinished lists the multipart uploads begun under dirRel and never
// completed (aborting them when abort is set): they are not objects, so
// no reader lists them, but they cost storage until aborted.
func (s *Store) Unfinished(ctx context.Context, dirRel string, abort bool) ([]string, error) {
	var out []string
	p := s3.NewListMultipartUploadsPaginator(s.cl, &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: aws.String(s.key(dirRel) + "/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return out, s.s3Error("list uploads of", dirRel, err)
		}
		for _, u := range page.Uploads {
			if abort {
				_, err := s.cl.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: u.Key, UploadId: u.UploadId})
				if err != nil && codeOf(err) != "NoSuchUpload" {
					return out, s.s3Error("abort upload of", strings.TrimPrefix(aws.ToString(u.Key), s.key("")), err)
				}
			}
			out = append(out, path.Base(aws.ToString(u.Key))+" (incomplete upload)")
		}
	}
	return out, nil
}
