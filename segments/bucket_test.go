package segments_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/topicsnap/topicsnap/catalog"
	s3bucket "github.com/topicsnap/topicsnap/catalog/bucket"
	"github.com/topicsnap/topicsnap/segments"
)

// TestImportBucketSegments: the broker's own partition folders of a topic
// (every codec, transactions, headers, nulls) and its log directory's
// checkpoint and meta.properties, uploaded to the test S3 server as a log
// directory under a prefix, import from s3:// equal to the import of the
// same folders from the disk, record for record and lost range for lost
// range; the manifest names the objects; a missing prefix and a missing
// bucket are bad input.
func TestImportBucketSegments(t *testing.T) {
	brokers, data := brokerEnv(t)
	ep := os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("needs the test S3 server: TOPICSNAP_TEST_S3_ENDPOINT")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	bucket := os.Getenv("TOPICSNAP_TEST_S3_BUCKET")
	cfg := catalog.S3Config{Endpoint: ep, Log: func(s string) { t.Log(s) }}

	topic := fmt.Sprintf("ts-import-s3-%d", time.Now().UnixNano())
	createTopic(t, brokers, topic, int32(len(codecs)), nil)
	produceAll(t, brokers, topic)

	// Upload the topic's folders and the log directory's own files.
	ac, err := config.LoadDefaultConfig(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cl := s3.NewFromConfig(ac, func(o *s3.Options) { o.BaseEndpoint, o.UsePathStyle = aws.String(ep), true })
	var rnd [4]byte
	rand.Read(rnd[:])
	prefix := "segments-" + hex.EncodeToString(rnd[:]) + "/kafka-data"
	var keys []string
	t.Cleanup(func() {
		for _, k := range keys {
			cl.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: &bucket, Key: aws.String(k)})
		}
	})
	put := func(rel string, b []byte) {
		keys = append(keys, prefix+"/"+rel)
		if _, err := cl.PutObject(t.Context(), &s3.PutObjectInput{Bucket: &bucket, Key: aws.String(prefix + "/" + rel), Body: bytes.NewReader(b)}); err != nil {
			t.Fatal(err)
		}
	}
	var folders []string
	for p := range codecs {
		f := filepath.Join(data, fmt.Sprintf("%s-%d", topic, p))
		folders = append(folders, f)
		ents, err := os.ReadDir(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(f, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			put(filepath.Base(f)+"/"+e.Name(), b)
		}
	}
	for _, name := range []string{segments.LogStartCheckpoint, "meta.properties"} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil {
			t.Fatal(err)
		}
		put(name, b)
	}

	local, remote := t.TempDir(), t.TempDir()
	if _, err := segments.Import(t.Context(), segments.Options{Dir: local, Paths: folders}); err != nil {
		t.Fatal(err)
	}
	open := func(ctx context.Context, b string) (segments.Bucket, error) { return s3bucket.OpenSource(ctx, cfg, b) }
	var warns []string
	sum, err := segments.Import(t.Context(), segments.Options{Dir: remote, Paths: []string{"s3://" + bucket + "/" + prefix}, OpenBucket: open,
		Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	for p, c := range codecs {
		tp := catalog.TopicPartition{Topic: topic, Partition: int32(p)}
		lm, lrows := readRows(t, local, tp)
		rm, rrows := readRows(t, remote, tp)
		if len(lrows) != 50+3*8 || len(rrows) != len(lrows) {
			t.Fatalf("%s: disk %d rows, bucket %d", c.name, len(lrows), len(rrows))
		}
		for i := range lrows {
			if a, b := rowText(lrows[i]), rowText(rrows[i]); a != b {
				t.Fatalf("%s row %d:\ndisk   %s\nbucket %s", c.name, i, a, b)
			}
		}
		want := fmt.Sprintf("s3://%s/%s/%s-%d/00000000000000000000.log", bucket, prefix, topic, p)
		if rm.NextOffset != lm.NextOffset || len(rm.Lost) != len(lm.Lost) || rm.Files[0].Source != want || rm.Files[0].SourceUntil != lm.Files[0].SourceUntil {
			t.Errorf("%s: bucket next %d lost %v source %q until %d; disk next %d lost %v until %d", c.name,
				rm.NextOffset, rm.Lost, rm.Files[0].Source, rm.Files[0].SourceUntil, lm.NextOffset, lm.Lost, lm.Files[0].SourceUntil)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"s3://" + bucket + "/" + prefix + "-nothing", "no such object or prefix"},
		{"s3://topicsnap-no-such-bucket-" + hex.EncodeToString(rnd[:]) + "/x", "no such bucket"},
	} {
		_, err := segments.Import(t.Context(), segments.Options{Dir: t.TempDir(), Paths: []string{tc.path}, OpenBucket: open})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.path, err, tc.want)
		}
	}
}
