package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/bucket"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/queries/spark"
)

// engineOptions choose where check and sql run their statements: the
// embedded DuckDB, or an Apache Spark Connect server that sees the same
// folder (same path) with the same views.
type engineOptions struct {
	engine string
	remote string
}

func addEngineFlags(f *pflag.FlagSet, o *engineOptions) {
	f.StringVar(&o.engine, "engine", "duckdb", "where the SQL runs: duckdb (embedded) or spark (a Spark Connect server)")
	f.StringVar(&o.remote, "spark-remote", os.Getenv("TOPICSNAP_SPARK_REMOTE"), "--engine spark: the Spark Connect server, sc://HOST:PORT (default $TOPICSNAP_SPARK_REMOTE)")
}

// open connects to the remote engine chosen, or returns nil for DuckDB.
// The caller closes what it returns.
func (o *engineOptions) open(ctx context.Context) (queries.Remote, error) {
	switch o.engine {
	case "duckdb", "":
		return nil, nil
	case "spark":
		if o.remote == "" {
			return nil, usagef("--engine spark needs --spark-remote sc://HOST:PORT (or TOPICSNAP_SPARK_REMOTE)")
		}
		if err := spark.ParseRemote(o.remote); err != nil {
			return nil, usageError{err}
		}
		s, err := spark.Connect(ctx, o.remote)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, usagef("--engine %q: use duckdb or spark", o.engine)
}

// remoteDir is where the remote engine reads --dir: "" for a folder (the
// same path), s3a://bucket/prefix for a bucket, which Spark reads where it
// lives with the endpoint and credentials topicsnap itself reaches it with
// (--s3-endpoint, s3.endpoint, the AWS chain), set on its session only.
func (a *app) remoteDir(ctx context.Context, remote queries.Remote, dir string) (string, error) {
	if remote == nil || !catalog.IsURL(dir) {
		return "", nil
	}
	s, ok := remote.(*spark.Session)
	if !ok {
		return "", fmt.Errorf("read %s on %s: only Spark reads a bucket", dir, remote.Dialect())
	}
	cfg, err := a.s3Config(ctx, "")
	if err != nil {
		return "", err
	}
	acc, err := bucket.Resolve(ctx, dir, cfg)
	if err != nil {
		return "", err
	}
	if err := s.ReadS3(ctx, spark.Bucket{Name: acc.Bucket, Endpoint: acc.Endpoint, Region: acc.Region, PathStyle: acc.PathStyle,
		AccessKeyID: acc.AccessKeyID, SecretAccessKey: acc.SecretAccessKey, SessionToken: acc.SessionToken}); err != nil {
		return "", err
	}
	loc := "s3a://" + acc.Bucket
	if acc.Prefix != "" {
		loc += "/" + acc.Prefix
	}
	return loc, nil
}
