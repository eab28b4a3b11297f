package segments

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// memBucket is a Bucket in memory, for the tests that need no S3 server.
type memBucket struct {
	objs  map[string][]byte
	sizes map[string]int64 // a listed size other than the bytes' (a huge object)
	reads int
}

func (b *memBucket) List(_ context.Context, prefix string, max int, fn func(string, int64)) error {
	var keys []string
	for k := range b.objs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) > max {
		return fmt.Errorf("more than %d objects", max)
	}
	for _, k := range keys {
		size, ok := b.sizes[k]
		if !ok {
			size = int64(len(b.objs[k]))
		}
		fn(k, size)
	}
	return nil
}

func (b *memBucket) ReadRange(_ context.Context, key string, off int64, p []byte) error {
	b.reads++
	o, ok := b.objs[key]
	if !ok {
		return fmt.Errorf("%s: %w", key, fs.ErrNotExist)
	}
	if off+int64(len(p)) > int64(len(o)) {
		return fmt.Errorf("%s: short", key)
	}
	copy(p, o[off:])
	return nil
}

// upload puts every file under dir into the bucket under prefix.
func (b *memBucket) upload(t *testing.T, dir, prefix string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, _ := os.ReadFile(p)
		b.objs[prefix+"/"+filepath.ToSlash(rel)] = data
		return nil
	})
}

// TestImportBucketCodeMade: a log directory made by code, uploaded to a
// bucket in memory, imports from s3:// as from the disk (a log directory,
// a partition folder, one .log; the checkpoint beside the folder read in
// the bucket); a missing prefix, a foreign huge object and a bucket that
// cannot be reached are clear errors.
func TestImportBucketCodeMade(t *testing.T) {
	logs := logDirFixture(t, "0\n1\nd 0 3\n")
	os.WriteFile(filepath.Join(logs, "d-0", fmt.Sprintf("%020d.txnindex", 0)), nil, 0o644)
	b := &memBucket{objs: map[string][]byte{}, sizes: map[string]int64{}}
	b.upload(t, logs, "backup/kafka")
	open := func(_ context.Context, name string) (Bucket, error) {
		if name != "bk" {
			return nil, fmt.Errorf("s3://%s: no such bucket: %w", name, fs.ErrNotExist)
		}
		return b, nil
	}
	d0 := catalog.TopicPartition{Topic: "d", Partition: 0}
	local := t.TempDir()
	if _, err := Import(context.Background(), Options{Dir: local, Paths: []string{logs}}); err != nil {
		t.Fatal(err)
	}
	want, _ := rowsAndLost(t, local, d0)
	for _, path := range []string{"s3://bk/backup/kafka", "s3://bk/backup/kafka/", "s3://bk/backup/kafka/d-0", "s3://bk/backup/kafka/d-0/00000000000000000000.log"} {
		t.Run(path, func(t *testing.T) {
			out := t.TempDir()
			var warns []string
			if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{path}, OpenBucket: open, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
				t.Fatal(err)
			}
			got, m := rowsAndLost(t, out, d0)
			if got != want || len(warns) != 0 {
				t.Fatalf("from the bucket %s, from the disk %s; warnings %q", got, want, warns)
			}
			if m.Files[0].Source != "s3://bk/backup/kafka/d-0/00000000000000000000.log" || !strings.Contains(m.Lost[0].Reason, "s3://bk/backup/kafka/log-start-offset-checkpoint") {
				t.Errorf("source %q, reason %q", m.Files[0].Source, m.Lost[0].Reason)
			}
		})
	}
	b.objs["other/huge.bin"] = nil
	b.sizes["other/huge.bin"] = 3 << 30
	for _, tc := range []struct{ path, want string }{
		{"s3://bk/backup/nothing", "no such object or prefix"},
		{"s3://bk/backup/kafka/d-0/00000000000000000009.log", "no such object or prefix"},
		{"s3://nope/x", "no such bucket"},
		{"s3://bk/other", "larger than any Kafka segment"},
		{"s3:///x", "names no bucket"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			_, err := Import(context.Background(), Options{Dir: t.TempDir(), Paths: []string{tc.path}, OpenBucket: open})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Import(context.Background(), Options{Dir: t.TempDir(), Paths: []string{"s3://bk/backup/kafka"}}); err == nil || !strings.Contains(err.Error(), "cannot read buckets") {
		t.Fatalf("no OpenBucket: %v", err)
	}
}

// TestBucketReaderChunks: a segment read from a bucket costs a request
// per chunk, not per batch.
func TestBucketReaderChunks(t *testing.T) {
	var batches [][]byte
	for i := range int64(2000) {
		batches = append(batches, data(i, 0, -1, "v"))
	}
	var all []byte
	for _, x := range batches {
		all = append(all, x...)
	}
	b := &memBucket{objs: map[string][]byte{"l/c-0/00000000000000000000.log": all}}
	out := t.TempDir()
	sum, err := Import(context.Background(), Options{Dir: out, Paths: []string{"s3://bk/l/c-0"},
		OpenBucket: func(context.Context, string) (Bucket, error) { return b, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != 2000 || b.reads > 2*(len(all)/bucketChunk+1) {
		t.Fatalf("%d records in %d reads of a %d-byte object", sum.Records, b.reads, len(all))
	}
}
