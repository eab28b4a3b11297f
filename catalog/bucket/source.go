package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/topicsnap/topicsnap/catalog"
)

// Source reads objects of one bucket that are not a snapshot folder:
// the segment files `topicsnap import` reads from s3:// PATHs (it is a
// segments.Bucket). Every call takes its own context; nothing is written.
type Source struct {
	cl     *s3.Client
	bucket string
}

// OpenSource reaches bucket with cfg (the same credentials, endpoint and
// retries as a snapshot folder in a bucket). A bucket that is not there
// is an error wrapping fs.ErrNotExist; one that refuses these
// credentials, catalog.ErrDenied.
func OpenSource(ctx context.Context, cfg catalog.S3Config, bucket string) (*Source, error) {
	log := cfg.Log
	if log == nil {
		log = func(s string) { fmt.Fprintln(os.Stderr, s) }
	}
	cl, err := newClient(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	s := &Source{cl: cl, bucket: bucket}
	if _, err := cl.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &bucket}); err != nil {
		return nil, s.err("open", "", err)
	}
	return s, nil
}

// err maps a bucket error: a missing bucket or key wraps fs.ErrNotExist,
// a refusal catalog.ErrDenied.
func (s *Source) err(verb, key string, err error) error {
	url := "s3://" + s.bucket + "/" + key
	switch {
	case codeOf(err) == "NoSuchBucket" || key == "" && statusOf(err) == http.StatusNotFound:
		return fmt.Errorf("%s s3://%s: no such bucket: %w", verb, s.bucket, fs.ErrNotExist)
	case isNotFound(err):
		return fmt.Errorf("%s %s: %w", verb, url, fs.ErrNotExist)
	case statusOf(err) == http.StatusForbidden || codeOf(err) == "AccessDenied" || codeOf(err) == "InvalidAccessKeyId" || codeOf(err) == "SignatureDoesNotMatch":
		return fmt.Errorf("%s %s: %w (%s)", verb, url, catalog.ErrDenied, codeOf(err))
	}
	return fmt.Errorf("%s %s: %s", verb, url, shortError(err))
}

// List calls fn with each object under prefix (every page), in key
// order; more than max objects is an error, before fn has seen more.
func (s *Source) List(ctx context.Context, prefix string, max int, fn func(key string, size int64)) error {
	p := s3.NewListObjectsV2Paginator(s.cl, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(prefix)})
	n := 0
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return s.err("list", prefix, err)
		}
		for _, o := range page.Contents {
			if n++; n > max {
				return fmt.Errorf("list s3://%s/%s: more than %d objects; give a narrower prefix (a partition folder, or a log directory's)", s.bucket, prefix, max)
			}
			fn(aws.ToString(o.Key), aws.ToInt64(o.Size))
		}
	}
	return nil
}

// ReadRange reads len(p) bytes of object key from off: exactly, or an
// error (io.ErrUnexpectedEOF when the object is shorter).
func (s *Source) ReadRange(ctx context.Context, key string, off int64, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	out, err := s.cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(key),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))})
	if err != nil {
		return s.err("read", key, err)
	}
	defer out.Body.Close()
	if _, err := io.ReadFull(out.Body, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("read s3://%s/%s bytes %d-%d: %w", s.bucket, key, off, off+int64(len(p))-1, err)
	}
	return nil
}
