package bucket

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/topicsnap/topicsnap/catalog"
)

// NewClient makes the S3 client topicsnap reaches a bucket with, from its
// S3 options: the SDK's default configuration chain, and what a bucket of
// snapshots needs: an endpoint and path-style addressing for
// S3-compatible servers, and retries with backoff that say what they do
// (on cfg.Log; nil: nothing is said).
func NewClient(ctx context.Context, cfg catalog.S3Config) (*s3.Client, error) {
	log := cfg.Log
	if log == nil {
		log = func(string) {}
	}
	return newClient(ctx, cfg, log)
}

func newClient(ctx context.Context, cfg catalog.S3Config, log func(string)) (*s3.Client, error) {
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
		r.log(fmt.Sprintf("s3: %s; retrying in %s (attempt %d of %d)", shortError(err), d.Round(time.Millisecond), attempt+1, r.MaxAttempts()))
	}
	return d, derr
}

// shortError is an error's code and status, or its message.
func shortError(err error) string {
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
