package catalog_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestS3VerifyChecksRows: catalog verify on a bucket checks each row
// against its manifest as on a folder: a tampered file copied into a
// bucket (rows swapped, its size in the manifest made right) is named.
func TestS3VerifyChecksRows(t *testing.T) {
	ep := os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	var b [4]byte
	rand.Read(b[:])
	loc := "s3://" + os.Getenv("TOPICSNAP_TEST_S3_BUCKET") + "/s3verifychecksrows-" + hex.EncodeToString(b[:])
	cfg := catalog.S3Config{Endpoint: ep, Log: func(s string) { t.Log(s) }}

	local := catalogtest.Folder(t, t.TempDir(), "t", map[int32][][]catalog.Row{
		0: {catalogtest.Rows(0, 0, 20)},
		1: {catalogtest.Rows(1, 0, 20)},
	})
	tp := catalog.TopicPartition{Topic: "t", Partition: 1}
	m, err := local.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	name := m.Files[0].Name
	catalogtest.Rewrite(t, local, tp, name, func(rs []catalog.Row) []catalog.Row {
		rs[3], rs[4] = rs[4], rs[3]
		return rs
	})
	bucket, err := catalog.CreateAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := catalog.Copy(t.Context(), local, bucket); err != nil {
		t.Fatal(err)
	}
	files, problems, err := bucket.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if files != 2 || len(problems) != 1 || !strings.Contains(problems[0].Path, "partition=1/"+name) || !strings.Contains(problems[0].Detail, "order") {
		t.Fatalf("verify on the bucket: %d files, problems %v; want the swapped file of partition 1 named", files, problems)
	}
}
