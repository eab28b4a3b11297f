package catalog

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/topicsnap/topicsnap/internal/safefile"
)

// ErrConflict is a manifest (or lock) that another writer replaced between
// this writer's read and its conditional write: the other one committed
// first, and this one must stop rather than overwrite it.
var ErrConflict = exit.New(exit.Locked, "another writer committed first",
	"another dumper committed this partition first; give each dumper its own --partitions, then see what is committed: topicsnap ls --dir DIR")

// ErrDenied is a bucket that refused these credentials: unknown key, bad
// signature, or a policy that does not grant the request.
var ErrDenied = exit.New(exit.Auth, "access denied by the bucket",
	"check the AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/credentials) and that their policy grants what README's \"Snapshots in a bucket\" lists")

// S3Config says how to reach a bucket. Credentials, region and (unless
// Endpoint is set) the endpoint come from the AWS SDK's default chain:
// the environment (AWS_ACCESS_KEY_ID, AWS_PROFILE, AWS_ENDPOINT_URL_S3,
// ...), then the shared config and credentials files, then the instance's
// role. Secrets are never printed: errors name the bucket and the key.
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
}

// IsURL reports whether loc names a bucket (s3://bucket/prefix), not a folder.
func IsURL(loc string) bool { return strings.HasPrefix(loc, "s3://") }

// parseS3URL splits s3://bucket/prefix into the bucket and the prefix
// (no leading or trailing slash; empty for the bucket's root).
func parseS3URL(loc string) (bucket, prefix string, err error) {
	rest := strings.TrimPrefix(loc, "s3://")
	bucket, prefix, _ = strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%w: %q names no bucket (write s3://BUCKET/PREFIX)", ErrNoCatalog, loc)
	}
	if strings.Contains(prefix, "//") {
		return "", "", fmt.Errorf("%w: %q has an empty path element", ErrNoCatalog, loc)
	}
	return bucket, prefix, nil
}

// s3Store is a snapshot folder in a bucket: the same keys as the local
// layout, under prefix. It keeps the ETag of each manifest it read or
// wrote, so its next write of that manifest is conditional on it.
type s3Store struct {
	ctx            context.Context // the command's: every request is cancelled with it
	cl             *s3.Client
	bucket, prefix string
	lockTTL        time.Duration
	log            func(string)

	mu    sync.Mutex
	etags map[TopicPartition]string // "" = read as absent: create with If-None-Match
}

// OpenAt opens loc, a local folder or s3://bucket/prefix, as Open does.
// ctx bounds every request to the bucket for the life of the Dir.
func OpenAt(ctx context.Context, loc string, cfg S3Config) (*Dir, error) {
	if !IsURL(loc) {
		return Open(loc)
	}
	d, err := newS3Dir(ctx, loc, cfg)
	if err != nil {
		return nil, err
	}
	return d, d.s3.open(loc)
}

// CreateAt is Create for a local folder or s3://bucket/prefix.
func CreateAt(ctx context.Context, loc string, cfg S3Config) (*Dir, error) {
	if !IsURL(loc) {
		return Create(loc)
	}
	d, err := newS3Dir(ctx, loc, cfg)
	if err != nil {
		return nil, err
	}
	if err := d.s3.open(loc); err != nil {
		return nil, err
	}
	b, _ := json.MarshalIndent(folderInfo{FormatVersion, "topicsnap"}, "", "  ")
	_, err = d.s3.put(folderFile, append(b, '\n'), "", true)
	if err != nil && !errors.Is(err, ErrConflict) { // there already: fine
		return nil, fmt.Errorf("create %s: %w", loc, err)
	}
	return d, nil
}

// CheckCreateAt is CheckCreate for a local folder or s3://bucket/prefix:
// for a bucket, that it exists, can be reached with these credentials, and
// holds no foreign files under the prefix. It writes nothing.
func CheckCreateAt(ctx context.Context, loc string, cfg S3Config) error {
	if !IsURL(loc) {
		return CheckCreate(loc)
	}
	d, err := newS3Dir(ctx, loc, cfg)
	if err != nil {
		return err
	}
	return d.s3.open(loc)
}

func newS3Dir(ctx context.Context, loc string, cfg S3Config) (*Dir, error) {
	bucket, prefix, err := parseS3URL(loc)
	if err != nil {
		return nil, err
	}
	st := &s3Store{ctx: ctx, bucket: bucket, prefix: prefix, lockTTL: cfg.LockTTL, log: cfg.Log, etags: map[TopicPartition]string{}}
	if st.lockTTL <= 0 {
		st.lockTTL = 2 * time.Minute
	}
	if st.log == nil {
		st.log = func(s string) { fmt.Fprintln(os.Stderr, s) }
	}
	st.cl, err = newS3Client(ctx, cfg, st.log)
	if err != nil {
		return nil, err
	}
	return &Dir{Path: "s3://" + path.Join(bucket, prefix), s3: st}, nil
}

// newS3Client loads the SDK's default configuration chain and adds what
// a bucket of snapshots needs: an endpoint and path-style addressing for
// S3-compatible servers, and retries with backoff that say what they do.
func newS3Client(ctx context.Context, cfg S3Config, log func(string)) (*s3.Client, error) {
	// A server that accepts a connection and then says nothing is cut off
	// after 30 s without a response header, and the request retried; a
	// long upload or download is not (its headers come quickly).
	hc := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 10 * time.Second }).
		WithTransportOptions(func(tr *http.Transport) { tr.ResponseHeaderTimeout = 30 * time.Second })
	ac, err := config.LoadDefaultConfig(ctx, config.WithHTTPClient(hc), config.WithRetryer(func() aws.Retryer {
		return &loudRetryer{RetryerV2: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 10
			o.MaxBackoff = 20 * time.Second
			o.RateLimiter = ratelimit.None // every attempt may retry: an outage is waited out, not given up on
		}), log: log}
	}))
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	if ac.Region == "" {
		ac.Region = "us-east-1" // S3-compatible servers sign with it; AWS redirects
	}
	return s3.NewFromConfig(ac, func(o *s3.Options) {
		o.DisableLogOutputChecksumValidationSkipped = true // a line per GET of a server without checksums
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		if cfg.Endpoint != "" || o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
	}), nil
}

// loudRetryer is the SDK's standard retryer (exponential backoff with
// jitter; throttling such as 503 SlowDown, 5xx and connection errors are
// retried) that says on stderr each time it waits.
type loudRetryer struct {
	aws.RetryerV2
	log func(string)
}

func (r *loudRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	d, derr := r.RetryerV2.RetryDelay(attempt, err)
	if derr == nil {
		r.log(fmt.Sprintf("s3: %s; retrying in %s (attempt %d of %d)", shortS3Error(err), d.Round(time.Millisecond), attempt+1, r.MaxAttempts()))
	}
	return d, derr
}

// shortS3Error is an error's code and status, or its message.
func shortS3Error(err error) string {
	var ae smithy.APIError
	var re *awshttp.ResponseError
	switch {
	case errors.As(err, &ae) && errors.As(err, &re):
		return fmt.Sprintf("%s (HTTP %d)", ae.ErrorCode(), re.HTTPStatusCode())
	case errors.As(err, &ae):
		return ae.ErrorCode()
	}
	return err.Error()
}

func (s *s3Store) key(rel string) string {
	if s.prefix == "" {
		return rel
	}
	return s.prefix + "/" + rel
}

func (s *s3Store) url(rel string) string { return "s3://" + s.bucket + "/" + s.key(rel) }

// statusOf is the HTTP status of a failed request, 0 if it got none.
func statusOf(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func codeOf(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func isNotFound(err error) bool {
	c := codeOf(err)
	return c == "NoSuchKey" || c == "NotFound" || statusOf(err) == http.StatusNotFound && c != "NoSuchBucket"
}

func isPrecondition(err error) bool {
	st := statusOf(err)
	return st == http.StatusPreconditionFailed || codeOf(err) == "PreconditionFailed" ||
		codeOf(err) == "ConditionalRequestConflict" || st == http.StatusConflict
}

// s3Error maps a bucket error to the catalog's kinds, naming the object.
func (s *s3Store) s3Error(verb, rel string, err error) error {
	var kind error
	switch {
	case codeOf(err) == "NoSuchBucket":
		kind = fmt.Errorf("%w: bucket %s does not exist", ErrNoCatalog, s.bucket)
	case statusOf(err) == http.StatusForbidden || codeOf(err) == "AccessDenied" || codeOf(err) == "InvalidAccessKeyId" || codeOf(err) == "SignatureDoesNotMatch":
		kind = fmt.Errorf("%w (%s)", ErrDenied, codeOf(err))
	}
	if kind != nil {
		return fmt.Errorf("%s %s: %w", verb, s.url(rel), kind)
	}
	return fmt.Errorf("%s %s: %w", verb, s.url(rel), err)
}

// get reads a metadata object whole, of at most max bytes (the folder's
// cap for its kind, bounds.go); a missing one is os.ErrNotExist, a larger
// one a *safefile.TooLargeError naming it by rel.
func (s *s3Store) get(rel string, max int64) ([]byte, string, error) {
	return s.getCtx(s.ctx, rel, max)
}

func (s *s3Store) getCtx(ctx context.Context, rel string, max int64) ([]byte, string, error) {
	out, err := s.cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel))})
	if err != nil {
		if isNotFound(err) {
			return nil, "", fmt.Errorf("read %s: %w", s.url(rel), os.ErrNotExist)
		}
		return nil, "", s.s3Error("read", rel, err)
	}
	defer out.Body.Close()
	// Refused before reading when the server says its size, and cut off
	// past the cap when it does not (or lies).
	// Its ETag comes back with the error, so a lock past its cap can still
	// be taken over conditionally.
	if aws.ToInt64(out.ContentLength) > max {
		return nil, aws.ToString(out.ETag), &safefile.TooLargeError{Name: rel, Max: max}
	}
	b, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", s.url(rel), err)
	}
	if int64(len(b)) > max {
		return nil, aws.ToString(out.ETag), &safefile.TooLargeError{Name: rel, Max: max}
	}
	return b, aws.ToString(out.ETag), nil
}

// put writes an object whole. ifMatch set: only over that version;
// create: only if absent. A failed condition is ErrConflict, unless the
// object already holds exactly b (our own write, whose answer was lost
// and whose retry found it done).
func (s *s3Store) put(rel string, b []byte, ifMatch string, create bool) (string, error) {
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
	out, err := s.cl.PutObject(s.ctx, in)
	if err != nil {
		if (ifMatch != "" || create) && (isPrecondition(err) || ifMatch != "" && isNotFound(err)) {
			if cur, etag, gerr := s.get(rel, int64(len(b))); gerr == nil && bytes.Equal(cur, b) {
				return etag, nil
			}
			return "", fmt.Errorf("write %s: %w", s.url(rel), ErrConflict)
		}
		return "", s.s3Error("write", rel, err)
	}
	return aws.ToString(out.ETag), nil
}

func (s *s3Store) del(rel string) error {
	_, err := s.cl.DeleteObject(s.ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(rel))})
	if err != nil && !isNotFound(err) {
		return s.s3Error("remove", rel, err)
	}
	return nil
}

// object is one listed object: its name relative to the listed folder.
type object struct {
	Name string
	Size int64
	ETag string
}

// list lists the folder rel ("" for the root): its subfolders' names and
// its objects, every page of them.
func (s *s3Store) list(rel string) (dirs []string, objs []object, err error) {
	pfx := s.key(rel)
	if pfx != "" && !strings.HasSuffix(pfx, "/") {
		pfx += "/"
	}
	p := s3.NewListObjectsV2Paginator(s.cl, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(pfx), Delimiter: aws.String("/")})
	for p.HasMorePages() {
		page, err := p.NextPage(s.ctx)
		if err != nil {
			return nil, nil, s.s3Error("list", rel, err)
		}
		for _, cp := range page.CommonPrefixes {
			dirs = append(dirs, strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), pfx), "/"))
		}
		for _, o := range page.Contents {
			objs = append(objs, object{Name: strings.TrimPrefix(aws.ToString(o.Key), pfx), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag)})
		}
	}
	return dirs, objs, nil
}

// open checks the bucket and the prefix as Open checks a folder: a
// topicsnap.json of a format this build reads, or nothing yet, or topic
// folders; anything else under the prefix is ErrNoCatalog.
func (s *s3Store) open(loc string) error {
	b, _, err := s.get(folderFile, MaxFolderFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		dirs, objs, err := s.list("")
		if err != nil {
			return err
		}
		var other []string
		for _, o := range objs {
			if !strings.HasPrefix(o.Name, ".") {
				other = append(other, o.Name)
			}
		}
		for _, d := range dirs {
			if !strings.HasPrefix(d, "topic=") && d != snapshotsDir && !strings.HasPrefix(d, ".") {
				other = append(other, d+"/")
			}
		}
		if len(other) > 0 {
			if len(other) > 3 {
				other = append(other[:3:3], "...")
			}
			return fmt.Errorf("%w: %s has no %s and holds other objects (%s)", ErrNoCatalog, loc, folderFile, strings.Join(other, ", "))
		}
		return nil
	case err != nil:
		return fmt.Errorf("open %s: %w", loc, objectErr(err))
	}
	var fi folderInfo
	if err := json.Unmarshal(b, &fi); err != nil {
		return fmt.Errorf("read %s: %w: %v", s.url(folderFile), ErrBadManifest, err)
	}
	if fi.FormatVersion > FormatVersion {
		return fmt.Errorf("%s has format version %d, this build reads up to %d: %w", loc, fi.FormatVersion, FormatVersion, ErrNewerFormat)
	}
	return nil
}

func partitionRel(tp TopicPartition) string { return RelPartitionDir(tp) }

func (s *s3Store) readManifest(tp TopicPartition) (*Manifest, error) {
	m, _, err := s.readManifestIf(tp)
	return m, err
}

// readManifestIf is readManifest that also says whether the manifest exists.
func (s *s3Store) readManifestIf(tp TopicPartition) (*Manifest, bool, error) {
	if !ValidTopicName(tp.Topic) || tp.Partition < 0 {
		return nil, false, fmt.Errorf("read manifest of %s: %w: not a topic-partition", tp, ErrBadName)
	}
	rel := manifestRel(tp)
	b, etag, err := s.get(rel, MaxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		s.mu.Lock()
		s.etags[tp] = ""
		s.mu.Unlock()
		return &Manifest{FormatVersion: FormatVersion, Topic: tp.Topic, Partition: tp.Partition, NextOffset: -1}, false, nil
	}
	if err != nil {
		return nil, false, &ManifestError{TP: tp, Path: s.url(rel), Rel: rel, Err: objectErr(err), Detail: err.Error()}
	}
	m, err := parseManifestAt(tp, s.url(rel), rel, b)
	if err != nil {
		return nil, true, err
	}
	s.mu.Lock()
	s.etags[tp] = etag
	s.mu.Unlock()
	return m, true, nil
}

// writeManifest replaces the manifest of m's partition only if it is
// still the version this store last read or wrote (If-Match on its ETag;
// If-None-Match: * when there was none): of two writers, one commits and
// the other gets ErrConflict and must stop.
func (s *s3Store) writeManifest(m *Manifest, b []byte) error {
	tp := m.TP()
	s.mu.Lock()
	etag, read := s.etags[tp]
	s.mu.Unlock()
	if !read {
		// Never read by this writer: read it now, so as not to overwrite
		// what another wrote blindly.
		if _, err := s.readManifest(tp); err != nil {
			return err
		}
		s.mu.Lock()
		etag = s.etags[tp]
		s.mu.Unlock()
	}
	rel := partitionRel(tp) + "/" + manifestName
	next, err := s.put(rel, b, etag, etag == "")
	if err != nil {
		if errors.Is(err, ErrConflict) {
			return fmt.Errorf("commit manifest of %s: the manifest changed since this writer read it (another dumper wrote %s); this one stops without overwriting it: %w", tp, s.url(rel), ErrConflict)
		}
		return err
	}
	s.mu.Lock()
	s.etags[tp] = next
	s.mu.Unlock()
	return nil
}

// lockInfo is the content of a partition's lock object.
type lockInfo struct {
	Owner   string    `json:"owner"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Expires time.Time `json:"expires"`
}

// stale reports whether the lock's holder is gone: it let the lock
// expire, or it ran on this host and its process no longer exists (a
// dumper killed here is noticed at once; one on another host, after the
// expiry). Safety does not rest on it: a wrong guess makes two holders,
// and the manifest's conditional write still lets only one commit.
func (li lockInfo) stale(now time.Time, host string) bool {
	if !now.Before(li.Expires) {
		return true
	}
	return li.Host != "" && li.Host == host && li.PID > 0 && li.PID != os.Getpid() && !processAlive(li.PID)
}

// s3Lock is a held lock object, renewed in the background until Unlock.
type s3Lock struct {
	s      *s3Store
	rel    string
	owner  string
	mu     sync.Mutex
	etag   string
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// lockPartition takes tp's lock object: created if absent (If-None-Match:
// *), or taken over if its holder is gone (see lockInfo.stale) with
// If-Match on the version read, so of two takers one wins. The holder
// renews it every TTL/3.
func (s *s3Store) lockPartition(tp TopicPartition) (*Lock, error) {
	rel := partitionRel(tp) + "/" + lockName
	host, _ := os.Hostname()
	var rb [4]byte
	rand.Read(rb[:])
	owner := fmt.Sprintf("%s pid %d %s", host, os.Getpid(), hex.EncodeToString(rb[:]))
	body := func() []byte {
		b, _ := json.Marshal(lockInfo{Owner: owner, Host: host, PID: os.Getpid(), Expires: time.Now().Add(s.lockTTL).UTC()})
		return b
	}
	etag, err := s.put(rel, body(), "", true)
	if errors.Is(err, ErrConflict) {
		b, cur, gerr := s.get(rel, MaxLockBytes)
		var tl *safefile.TooLargeError
		if errors.As(gerr, &tl) {
			b, gerr = nil, nil // not ours to trust: unreadable, as a lock that is not JSON
		}
		if gerr != nil && !errors.Is(gerr, os.ErrNotExist) {
			return nil, gerr
		}
		var li lockInfo
		if gerr == nil {
			if jerr := json.Unmarshal(b, &li); jerr != nil {
				li = lockInfo{Owner: "unreadable lock"}
			}
		}
		if gerr == nil && !li.stale(time.Now(), host) {
			return nil, fmt.Errorf("lock %s in %s: held by %s until %s: %w", tp, s.url(""), li.Owner, li.Expires.Format(time.RFC3339), ErrLocked)
		}
		if gerr == nil {
			why := "expired at " + li.Expires.Format(time.RFC3339)
			if time.Now().Before(li.Expires) {
				why = "its process is gone"
			}
			s.log(fmt.Sprintf("s3: lock of %s held by %s: %s; taking it over", tp, li.Owner, why))
			etag, err = s.put(rel, body(), cur, false)
		} else {
			etag, err = s.put(rel, body(), "", true)
		}
		if errors.Is(err, ErrConflict) {
			return nil, fmt.Errorf("lock %s in %s: another dumper took it first: %w", tp, s.url(""), ErrLocked)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", tp, err)
	}
	l := &s3Lock{s: s, rel: rel, owner: owner, etag: etag, stop: make(chan struct{}), done: make(chan struct{})}
	go l.renew(body)
	return &Lock{s3: l}, nil
}

func (l *s3Lock) renew(body func() []byte) {
	defer close(l.done)
	t := time.NewTicker(l.s.lockTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.s.ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		etag, err := l.s.put(l.rel, body(), l.etag, false)
		if err == nil {
			l.etag = etag
		}
		l.mu.Unlock()
		if err != nil {
			// The manifest's conditional write still keeps a second writer
			// from committing; say that the lock is in doubt.
			l.s.log(fmt.Sprintf("s3: renew lock %s: %v", l.s.url(l.rel), err))
		}
	}
}

// unlock stops the renewal and removes the lock object if it is still ours.
func (l *s3Lock) unlock() {
	if l.closed {
		return
	}
	l.closed = true
	close(l.stop)
	<-l.done
	// Release even when the run was interrupted, but do not hang on a
	// server that is down: the lock then expires by itself.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(l.s.ctx), 10*time.Second)
	defer cancel()
	b, etag, err := l.s.getCtx(ctx, l.rel, MaxLockBytes)
	if err != nil {
		return
	}
	var li lockInfo
	if json.Unmarshal(b, &li) == nil && li.Owner == l.owner {
		l.s.cl.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &l.s.bucket, Key: aws.String(l.s.key(l.rel)), IfMatch: aws.String(etag)})
	}
}

// cleanPartition removes what an interrupted writer left under tp's
// folder: data files the manifest does not list, and multipart uploads
// never completed (they are not objects, so no reader lists them, but
// they cost storage until aborted).
func (s *s3Store) cleanPartition(m *Manifest) ([]string, error) {
	rel := partitionRel(m.TP())
	_, objs, err := s.list(rel)
	if err != nil {
		return nil, err
	}
	listed := m.known()
	var removed []string
	for _, o := range objs {
		if strings.HasPrefix(o.Name, tmpPrefix) || strings.HasSuffix(o.Name, ".parquet") && !listed[o.Name] {
			if err := s.del(rel + "/" + o.Name); err != nil {
				return removed, err
			}
			removed = append(removed, o.Name)
		}
	}
	p := s3.NewListMultipartUploadsPaginator(s.cl, &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: aws.String(s.key(rel) + "/")})
	for p.HasMorePages() {
		page, err := p.NextPage(s.ctx)
		if err != nil {
			return removed, s.s3Error("list uploads of", rel, err)
		}
		for _, u := range page.Uploads {
			_, err := s.cl.AbortMultipartUpload(s.ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: u.Key, UploadId: u.UploadId})
			if err != nil && codeOf(err) != "NoSuchUpload" {
				return removed, s.s3Error("abort upload of", strings.TrimPrefix(aws.ToString(u.Key), s.key("")), err)
			}
			removed = append(removed, path.Base(aws.ToString(u.Key))+" (incomplete upload)")
		}
	}
	return removed, nil
}

func (s *s3Store) topics() ([]string, error) {
	dirs, _, err := s.list("")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		if name, ok := strings.CutPrefix(d, "topic="); ok && ValidTopicName(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// partitions lists the partition numbers of topic that have a folder.
func (s *s3Store) partitions(topic string) ([]int32, error) {
	dirs, _, err := s.list("topic=" + topic)
	if err != nil {
		return nil, err
	}
	var out []int32
	for _, d := range dirs {
		ps, ok := strings.CutPrefix(d, "partition=")
		if !ok {
			continue
		}
		p, err := strconv.ParseInt(ps, 10, 32)
		if err != nil || p < 0 || strconv.FormatInt(p, 10) != ps {
			continue
		}
		out = append(out, int32(p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (s *s3Store) readTopic(topic string) (*TopicManifests, error) {
	tm := &TopicManifests{Topic: topic}
	parts, err := s.partitions(topic)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		tp := TopicPartition{topic, p}
		m, exists, err := s.readManifestIf(tp)
		var me *ManifestError
		switch {
		case errors.As(err, &me):
			tm.Damaged = append(tm.Damaged, me)
			continue
		case err != nil:
			return nil, err
		}
		if !exists {
			continue // nothing committed yet (a lock, or a first dump killed before its first file)
		}
		tm.Manifests = append(tm.Manifests, m)
	}
	return tm, nil
}

func (s *s3Store) writeClusterSnapshot(st *ClusterSnapshot, b []byte) error {
	_, err := s.put(snapshotsDir+"/"+st.ID+".json", b, "", true)
	if errors.Is(err, ErrConflict) {
		return fmt.Errorf("write snapshot %s: an object of that id exists: %w", st.ID, err)
	}
	return err
}

func (s *s3Store) clusterSnapshots() ([]*ClusterSnapshot, error) {
	_, objs, err := s.list(snapshotsDir)
	if err != nil {
		return nil, err
	}
	var out []*ClusterSnapshot
	var damaged []error
	for _, o := range objs {
		if !strings.HasSuffix(o.Name, ".json") || strings.HasPrefix(o.Name, ".") {
			continue
		}
		rel := snapshotsDir + "/" + o.Name
		b, _, err := s.get(rel, MaxSnapshotBytes)
		var tl *safefile.TooLargeError
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case errors.As(err, &tl):
			damaged = append(damaged, &SnapshotError{Rel: rel, Err: objectErr(err)})
			continue
		case err != nil:
			return nil, fmt.Errorf("read snapshot %s: %w", s.url(rel), err)
		}
		cs, err := ParseSnapshot(rel, b)
		if err != nil {
			damaged = append(damaged, err)
			continue
		}
		out = append(out, cs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(damaged...)
}

// partSize is the size of each part of a multipart upload; files up to
// it go in one PUT.
var partSize int64 = 16 << 20

// upload stores the local file f (size bytes) at rel, complete or not at
// all: one PUT up to partSize, else a multipart upload of partSize parts
// whose completion makes it appear whole; on failure the upload is
// aborted. A kill -9 mid-way leaves an incomplete upload, which is not an
// object (no listing shows it) and which the partition's next writer
// aborts. The SDK sends a CRC32 checksum of every request body, which the
// server verifies.
func (s *s3Store) upload(rel string, f *os.File, size int64) error {
	key := aws.String(s.key(rel))
	if size <= partSize {
		_, err := s.cl.PutObject(s.ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: key,
			Body: io.NewSectionReader(f, 0, size), ContentLength: aws.Int64(size)})
		if err != nil {
			return s.s3Error("upload", rel, err)
		}
		return nil
	}
	cu, err := s.cl.CreateMultipartUpload(s.ctx, &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: key})
	if err != nil {
		return s.s3Error("start upload of", rel, err)
	}
	abort := func(err error) error {
		// Even when interrupted; if this fails too, the partition's next
		// writer aborts the upload.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 10*time.Second)
		defer cancel()
		s.cl.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: key, UploadId: cu.UploadId})
		return err
	}
	var parts []types.CompletedPart
	for n, off := int32(1), int64(0); off < size; n, off = n+1, off+partSize {
		l := min(partSize, size-off)
		up, err := s.cl.UploadPart(s.ctx, &s3.UploadPartInput{Bucket: &s.bucket, Key: key, UploadId: cu.UploadId,
			PartNumber: aws.Int32(n), Body: io.NewSectionReader(f, off, l), ContentLength: aws.Int64(l)})
		if err != nil {
			return abort(s.s3Error(fmt.Sprintf("upload part %d of", n), rel, err))
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(n), ETag: up.ETag})
	}
	_, err = s.cl.CompleteMultipartUpload(s.ctx, &s3.CompleteMultipartUploadInput{Bucket: &s.bucket, Key: key,
		UploadId: cu.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
	if err != nil {
		return abort(s.s3Error("complete upload of", rel, err))
	}
	return nil
}

// readerAt reads an object by ranged GETs, for Parquet footers.
type readerAt struct {
	s   *s3Store
	rel string
}

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	out, err := r.s.cl.GetObject(r.s.ctx, &s3.GetObjectInput{Bucket: &r.s.bucket, Key: aws.String(r.s.key(r.rel)),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))})
	if err != nil {
		return 0, r.s.s3Error("read", r.rel, err)
	}
	defer out.Body.Close()
	n, err := io.ReadFull(out.Body, p)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = io.EOF
	}
	return n, err
}

// verify is Verify for a bucket: every manifest parses, every file it
// lists is there with its size, row count and columns (footers read by
// ranged GETs). Unlisted leftovers of an interrupted dump are not
// problems: no reader reads them, and the next dump removes them.
func (s *s3Store) verify() (files int, problems []Problem, err error) {
	topics, err := s.topics()
	if err != nil {
		return 0, nil, err
	}
	for _, topic := range topics {
		parts, err := s.partitions(topic)
		if err != nil {
			return files, problems, err
		}
		for _, p := range parts {
			tp := TopicPartition{topic, p}
			rel := partitionRel(tp)
			_, objs, err := s.list(rel)
			if err != nil {
				return files, problems, err
			}
			have := map[string]object{}
			for _, o := range objs {
				have[o.Name] = o
			}
			if _, ok := have[manifestName]; !ok {
				n := 0
				for name := range have {
					if strings.HasSuffix(name, ".parquet") {
						n++
					}
				}
				if n > 0 {
					problems = append(problems, Problem{s.url(rel), fmt.Sprintf("%d data files but no manifest", n),
						"remove the partition's objects and dump it again"})
				}
				continue
			}
			m, err := s.readManifest(tp)
			if err != nil {
				var me *ManifestError
				if errors.As(err, &me) {
					problems = append(problems, Problem{me.Path, strings.Replace(me.Error(), me.Rel+": ", "", 1),
						"restore the manifest from a backup, or remove the partition's objects and dump it again"})
					continue
				}
				return files, problems, err
			}
			for _, fe := range m.AllFiles() {
				files++
				frel := rel + "/" + fe.Name
				fix := fmt.Sprintf("restore the file from a backup, or re-dump offsets %d-%d while Kafka still has them", fe.FirstOffset, fe.LastOffset)
				o, ok := have[fe.Name]
				if !ok {
					problems = append(problems, Problem{s.url(frel), "missing", fix})
					continue
				}
				if o.Size != fe.Bytes {
					problems = append(problems, Problem{s.url(frel), fmt.Sprintf("size %d bytes, manifest says %d (truncated or rewritten)", o.Size, fe.Bytes), fix})
					continue
				}
				if err := checkParquet(readerAt{s, frel}, o.Size, fe); err != nil {
					problems = append(problems, Problem{s.url(frel), err.Error(), fix})
					continue
				}
				// Each row against the manifest, as restore checks it.
				var re *RowError
				switch err := checkRowsAt(s.ctx, frel, readerAt{s, frel}, o.Size, tp, fe); {
				case errors.As(err, &re):
					problems = append(problems, Problem{s.url(frel), re.What(), fix})
				case s.ctx.Err() != nil:
					return files, problems, s.ctx.Err()
				case err != nil:
					problems = append(problems, Problem{s.url(frel), err.Error(), fix})
				}
			}
		}
	}
	return files, problems, nil
}
