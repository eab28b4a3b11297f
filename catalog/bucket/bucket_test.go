package bucket

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/topicsnap/topicsnap/catalog"
)

// testBucket returns a fresh s3:// prefix in the bucket of the real S3
// server make test starts (scripts/s3.sh), with its credentials in the
// environment the AWS SDK reads. Without TOPICSNAP_TEST_S3_ENDPOINT the
// test skips.
func testBucket(t *testing.T) (loc string, cfg catalog.S3Config) {
	t.Helper()
	ep := os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	var b [4]byte
	rand.Read(b[:])
	loc = "s3://" + os.Getenv("TOPICSNAP_TEST_S3_BUCKET") + "/" + strings.ToLower(t.Name()) + "-" + hex.EncodeToString(b[:])
	return loc, catalog.S3Config{Endpoint: ep, Log: func(s string) { t.Log(s) }}
}

// What a killed writer leaves (an unlisted file, an incomplete multipart
// upload) is never listed by readers and is removed by the next writer.
func TestCleanRemovesLeftovers(t *testing.T) {
	loc, cfg := testBucket(t)
	d, err := catalog.CreateAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := d.Store().(*Store)
	if !ok {
		t.Fatalf("the store of %s is a %T, not a bucket's", loc, d.Store())
	}
	tp := catalog.TopicPartition{Topic: "left", Partition: 0}
	fe, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{{Offset: 0, Value: []byte("v")}}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: tp.Topic, Partition: tp.Partition, NextOffset: 1, Files: []catalog.FileEntry{fe}}); err != nil {
		t.Fatal(err)
	}
	prel := catalog.RelPartitionDir(tp)
	stray := catalog.FileName(10, 19)
	if _, err := st.put(t.Context(), prel+"/"+stray, []byte("half"), "", false); err != nil {
		t.Fatal(err)
	}
	key := aws.String(st.key(prel + "/" + catalog.FileName(20, 29)))
	cu, err := st.cl.CreateMultipartUpload(t.Context(), &s3.CreateMultipartUploadInput{Bucket: &st.bucket, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.cl.UploadPart(t.Context(), &s3.UploadPartInput{Bucket: &st.bucket, Key: key, UploadId: cu.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(make([]byte, 1024))}); err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), "left")
	if err != nil || len(ms) != 1 || len(ms[0].Files) != 1 {
		t.Fatalf("readers list only the manifest's file: %+v %v", ms, err)
	}
	unlisted, err := d.Unlisted(t.Context(), ms[0])
	if err != nil || len(unlisted) != 2 || unlisted[0] != stray || !strings.Contains(unlisted[1], "incomplete upload") {
		t.Fatalf("unlisted %v, %v", unlisted, err)
	}
	removed, err := d.CleanPartition(t.Context(), ms[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 || removed[0] != stray || !strings.Contains(removed[1], "incomplete upload") {
		t.Fatalf("removed %v", removed)
	}
	ups, err := st.cl.ListMultipartUploads(t.Context(), &s3.ListMultipartUploadsInput{Bucket: &st.bucket, Prefix: aws.String(st.key(""))})
	if err != nil || len(ups.Uploads) != 0 {
		t.Fatalf("uploads left: %v %v", ups, err)
	}
	entries, err := st.List(t.Context(), prel)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name == stray {
			t.Fatalf("stray file still there: %v", entries)
		}
	}
}

// TestResolveNamesNoSecret: Resolve gives the endpoint and the keys the
// chain gave, and its text never shows the secret.
func TestResolveNamesNoSecret(t *testing.T) {
	loc, cfg := testBucket(t)
	a, err := Resolve(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Endpoint != strings.TrimRight(cfg.Endpoint, "/") || !a.PathStyle || a.SecretAccessKey != os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY") {
		t.Fatalf("resolved %v", a)
	}
	for _, s := range []string{a.String(), a.GoString()} {
		if strings.Contains(s, a.SecretAccessKey) {
			t.Fatalf("%q shows the secret", s)
		}
	}
}
