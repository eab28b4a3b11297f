package spark

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestReadS3: a session told the bucket's endpoint and credentials reads
// an object through s3a:// from the real S3 server make test starts
// (scripts/s3.sh), on the real Spark Connect server (scripts/spark.sh,
// which puts hadoop-aws on its classpath). Skips when either is absent.
func TestReadS3(t *testing.T) {
	remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE")
	if remote == "" {
		t.Skip("TOPICSNAP_TEST_SPARK_REMOTE not set (make test starts Spark Connect with scripts/spark.sh)")
	}
	ep := os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	ctx := context.Background()
	b := Bucket{Name: os.Getenv("TOPICSNAP_TEST_S3_BUCKET"), Endpoint: ep, Region: "us-east-1", PathStyle: true,
		AccessKeyID: os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"), SecretAccessKey: os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY")}
	cl := s3.New(s3.Options{Region: b.Region, BaseEndpoint: aws.String(ep), UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: b.AccessKeyID, SecretAccessKey: b.SecretAccessKey}, nil
		})})
	var r [4]byte
	rand.Read(r[:])
	key := "reads3-" + hex.EncodeToString(r[:]) + "/n.json"
	if _, err := cl.PutObject(ctx, &s3.PutObjectInput{Bucket: &b.Name, Key: &key,
		Body: strings.NewReader("{\"n\":1}\n{\"n\":2}\n{\"n\":39}\n")}); err != nil {
		t.Fatal(err)
	}
	s, err := Connect(ctx, remote)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.ReadS3(ctx, b); err != nil {
		t.Fatal(err)
	}
	_, rows, err := s.Query(ctx, "SELECT sum(n) AS s, count(*) AS c FROM json.`s3a://"+b.Name+"/"+key+"`")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0][0] != int64(42) || rows[0][1] != int64(3) {
		t.Fatalf("read through s3a: %v, want [[42 3]]", rows)
	}
	// What Spark shows of its settings does not show the secret.
	_, rows, err = s.Query(ctx, "SET `fs.s3a.bucket."+b.Name+".secret.key`")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("SET of the secret's key: %v, want one row", rows)
	}
	for _, row := range rows {
		for _, v := range row {
			if str, _ := v.(string); strings.Contains(str, b.SecretAccessKey) {
				t.Fatalf("SET shows the secret: %v", rows)
			}
		}
	}
}

// TestS3aSettings: the settings name the bucket, take the temporary
// provider only with a session token, and plain http turns TLS off.
func TestS3aSettings(t *testing.T) {
	tests := []struct {
		name string
		b    Bucket
		want map[string]string
	}{
		{"local server", Bucket{Name: "b1", Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", PathStyle: true, AccessKeyID: "k", SecretAccessKey: "s"},
			map[string]string{"endpoint": "http://127.0.0.1:9000", "connection.ssl.enabled": "false", "path.style.access": "true",
				"endpoint.region": "us-east-1", "access.key": "k", "secret.key": "s",
				"aws.credentials.provider": "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"}},
		{"aws, temporary", Bucket{Name: "b2", Region: "eu-west-1", AccessKeyID: "k", SecretAccessKey: "s", SessionToken: "t"},
			map[string]string{"path.style.access": "false", "endpoint.region": "eu-west-1", "access.key": "k", "secret.key": "s",
				"session.token": "t", "aws.credentials.provider": "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, kv := range s3aSettings(tt.b) {
				k, ok := strings.CutPrefix(kv[0], "fs.s3a.bucket."+tt.b.Name+".")
				if !ok {
					t.Fatalf("setting %s is not the bucket's", kv[0])
				}
				got[k] = kv[1]
			}
			if len(got) != len(tt.want) {
				t.Fatalf("settings %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}
