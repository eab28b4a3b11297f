package spark

import (
	"context"
	"fmt"
	"strings"
)

// Bucket is how Spark reaches a bucket through Hadoop's s3a:// file system
// (org.apache.hadoop:hadoop-aws on the server's classpath): the endpoint
// and credentials topicsnap itself uses for it.
type Bucket struct {
	Name string
	// Endpoint is an S3-compatible server's URL; "" for AWS's own.
	Endpoint  string
	Region    string
	PathStyle bool
	// Credentials; SessionToken only for temporary ones.
	AccessKeyID, SecretAccessKey, SessionToken string
}

// s3aSettings are the session settings that point s3a:// at b: Hadoop's
// per-bucket keys (fs.s3a.bucket.NAME.*), so they apply to this bucket
// only. Spark copies a session's settings, as they are, into the Hadoop
// configuration of its reads (a spark.hadoop. prefix is stripped only
// from the server's own configuration, not from a session's).
func s3aSettings(b Bucket) [][2]string {
	p := "fs.s3a.bucket." + b.Name + "."
	kv := [][2]string{{p + "path.style.access", fmt.Sprint(b.PathStyle)}}
	if b.Endpoint != "" {
		kv = append(kv, [2]string{p + "endpoint", b.Endpoint},
			[2]string{p + "connection.ssl.enabled", fmt.Sprint(strings.HasPrefix(b.Endpoint, "https://"))})
	}
	if b.Region != "" {
		kv = append(kv, [2]string{p + "endpoint.region", b.Region})
	}
	provider := "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider"
	if b.SessionToken != "" {
		provider = "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider"
		kv = append(kv, [2]string{p + "session.token", b.SessionToken})
	}
	return append(kv, [2]string{p + "aws.credentials.provider", provider},
		[2]string{p + "access.key", b.AccessKeyID}, [2]string{p + "secret.key", b.SecretAccessKey})
}

// ReadS3 lets the session read s3a://NAME/... with b's endpoint and
// credentials. Errors name the setting, never its value (Spark redacts
// the keys in what it shows of its settings: spark.redaction.regex).
//
// Hadoop keeps one s3a file system per bucket for the server's life
// (FileSystem's cache), made with the settings of the read that first
// reached the bucket: every session of one server then reaches that
// bucket with the same endpoint and credentials, the first session's.
// Turning the cache off (fs.s3a.impl.disable.cache) would make a file
// system, and an S3 client, per file opened: two to five times slower on
// the test's small files. See the README ("Beyond one machine").
func (s *Session) ReadS3(ctx context.Context, b Bucket) error {
	if b.Name == "" || strings.ContainsAny(b.Name, "/ ") {
		return fmt.Errorf("read s3a://%s: not a bucket name", b.Name)
	}
	for _, kv := range s3aSettings(b) {
		if err := s.s.Config().Set(ctx, kv[0], kv[1]); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("set %s on %s: %w", kv[0], s.remote, s.err(ctx, err))
		}
	}
	return nil
}
