package bucket

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/topicsnap/topicsnap/catalog"
)

// Access is how this process reaches a bucket, resolved from an
// S3Config and the AWS SDK's chain exactly as a bucket Store resolves it:
// for another reader of the same bucket that must use the same endpoint
// and credentials (Spark's s3a:// file system, which topicsnap hands them
// to as session settings). Its String never shows the keys.
type Access struct {
	Bucket, Prefix string
	// Endpoint is the S3-compatible server's URL, "" for AWS's own.
	Endpoint string
	Region   string
	// PathStyle is set with an endpoint: the bucket goes in the path.
	PathStyle bool
	// The credentials the chain gave; SessionToken only for temporary ones.
	AccessKeyID, SecretAccessKey, SessionToken string
}

func (a Access) String() string {
	return fmt.Sprintf("s3://%s/%s (endpoint %q, region %s, path-style %v, key id %s…)", a.Bucket, a.Prefix, a.Endpoint, a.Region, a.PathStyle, shortKeyID(a.AccessKeyID))
}

// GoString keeps %#v from printing the secret too.
func (a Access) GoString() string { return a.String() }

func shortKeyID(id string) string {
	if len(id) > 4 {
		return id[:4]
	}
	return ""
}

// Resolve resolves the bucket at loc (s3://bucket/prefix), its endpoint,
// region and credentials, as a bucket Store would reach it. It sends no
// request to the bucket; credentials that the chain cannot give are an
// error that names the chain, never the keys.
func Resolve(ctx context.Context, loc string, cfg catalog.S3Config) (Access, error) {
	bucket, prefix, err := ParseURL(loc)
	if err != nil {
		return Access{}, err
	}
	cl, err := NewClient(ctx, cfg)
	if err != nil {
		return Access{}, err
	}
	o := cl.Options()
	a := Access{Bucket: bucket, Prefix: prefix, Region: o.Region, PathStyle: o.UsePathStyle}
	if o.BaseEndpoint != nil {
		a.Endpoint = strings.TrimRight(aws.ToString(o.BaseEndpoint), "/")
	}
	if o.Credentials == nil {
		return Access{}, fmt.Errorf("resolve credentials for %s: %w: the AWS chain gave none (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or run where an instance role applies)", loc, catalog.ErrDenied)
	}
	c, err := o.Credentials.Retrieve(ctx)
	if err != nil {
		return Access{}, fmt.Errorf("resolve credentials for %s: %w: %v", loc, catalog.ErrDenied, err)
	}
	a.AccessKeyID, a.SecretAccessKey, a.SessionToken = c.AccessKeyID, c.SecretAccessKey, c.SessionToken
	return a, nil
}
