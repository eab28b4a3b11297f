package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	_ "github.com/topicsnap/topicsnap/catalog/bucket" // registers s3:// with catalog: --dir s3://BUCKET/PREFIX
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// bucketFlags are the root's flags for --dir s3://bucket/prefix.
type bucketFlags struct {
	endpoint string
	lockTTL  time.Duration
	cache    string
}

func (a *app) addBucketFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&a.bucket.endpoint, "s3-endpoint", "", "with --dir s3://BUCKET/PREFIX: an S3-compatible server's URL, addressed path-style (default: s3.endpoint in --config, or the AWS SDK's chain: AWS_ENDPOINT_URL_S3, the profile's endpoint_url, AWS)")
	f.DurationVar(&a.bucket.lockTTL, "s3-lock-ttl", 2*time.Minute, "with --dir s3://...: how long a killed dumper's partition lock blocks the next one")
	f.StringVar(&a.bucket.cache, "s3-cache", "", "with --dir s3://...: the local folder that sql, check, serve, notebook and restore read the bucket's files through (default ~/.cache/topicsnap/s3/BUCKET/PREFIX)")
}

// s3Config is how this command reaches a bucket: --s3-endpoint, else
// s3.endpoint in the properties file (--config or TOPICSNAP_CONFIG),
// else the SDK's own chain. Retries are said on stderr.
func (a *app) s3Config(ctx context.Context, configFile string) (catalog.S3Config, error) {
	cfg := catalog.S3Config{Endpoint: a.bucket.endpoint, LockTTL: a.bucket.lockTTL,
		Log: func(s string) { fmt.Fprintln(a.stderr, s) }}
	if configFile == "" {
		configFile = a.getenv("TOPICSNAP_CONFIG")
	}
	if cfg.Endpoint == "" && configFile != "" {
		ep, err := kafkaconn.S3Endpoint(ctx, configFile)
		if err != nil {
			return cfg, err
		}
		cfg.Endpoint = ep
	}
	if cfg.Endpoint != "" && !strings.HasPrefix(cfg.Endpoint, "http://") && !strings.HasPrefix(cfg.Endpoint, "https://") {
		return cfg, usagef("--s3-endpoint %q: give a URL, e.g. https://s3.example.com or http://127.0.0.1:9000", cfg.Endpoint)
	}
	return cfg, nil
}

// openDir opens --dir, a folder or a bucket, for commands that read the
// catalog itself (ls, catalog verify).
func (a *app) openDir(ctx context.Context, dir string) (*catalog.Dir, error) {
	if !catalog.IsURL(dir) {
		return catalog.OpenAt(ctx, dir, catalog.S3Config{})
	}
	cfg, err := a.s3Config(ctx, "")
	if err != nil {
		return nil, err
	}
	return catalog.OpenAt(ctx, dir, cfg)
}

// localDir is the folder the DuckDB side reads for --dir: the folder
// itself, or for a bucket a local cache of what its manifests list,
// brought up to date first (files already there with the bucket's size
// and ETag are kept; a damaged one mirrored, catalog.MirrorCopy). DuckDB reads local Parquet; see BENCHMARKS.md
// ("Snapshots in a bucket") for why not httpfs.
//
// Named topics, only those are brought up to date (a check reads one).
func (a *app) localDir(ctx context.Context, dir string, topics ...string) (string, error) {
	return a.localDirSaying(ctx, dir, "its partition is not read", topics...)
}

// localDirSaying is localDir whose warning of a data file damaged in the
// bucket says what the command does about it (damaged: "its partition is
// not read"; restore refuses the topic).
func (a *app) localDirSaying(ctx context.Context, dir, damaged string, topics ...string) (string, error) {
	if !catalog.IsURL(dir) {
		return dir, nil
	}
	cfg, err := a.s3Config(ctx, "")
	if err != nil {
		return "", err
	}
	src, err := catalog.OpenAt(ctx, dir, cfg)
	if err != nil {
		return "", err
	}
	cache := a.bucket.cache
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("find a cache folder for %s: %w (set --s3-cache)", dir, err)
		}
		cache = filepath.Join(base, "topicsnap", "s3", filepath.FromSlash(strings.TrimPrefix(dir, "s3://")))
	}
	dst, err := catalog.CreateAt(ctx, cache, catalog.S3Config{})
	if err != nil {
		return "", err
	}
	start := time.Now()
	// A data file damaged in the bucket (missing, cut short) is mirrored
	// as it is: the cache's readers find it and it costs its partition,
	// as in a folder, not every query.
	st, err := catalog.MirrorCopy(ctx, src, dst, topics...)
	if err != nil {
		return "", fmt.Errorf("cache %s in %s: %w", dir, cache, err)
	}
	for _, d := range st.Damaged {
		fmt.Fprintf(a.stderr, "warning: %s: %s (topicsnap catalog verify --dir %s)\n", d, damaged, dir)
	}
	if len(topics) == 0 {
		// A topic gone from the bucket goes from the cache.
		if err := pruneCache(ctx, src, dst); err != nil {
			return "", err
		}
	}
	if st.Files > 0 {
		fmt.Fprintf(a.stderr, "s3: fetched %d files (%s) of %s into %s in %s; %d already cached\n",
			st.Files, units.Bytes(st.Bytes), dir, cache, time.Since(start).Round(time.Millisecond), st.Kept)
	}
	return cache, nil
}

// pruneCache removes from the cache dst the topic folders src no longer has.
func pruneCache(ctx context.Context, src, dst *catalog.Dir) error {
	have, err := src.Topics(ctx)
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, t := range have {
		keep[t] = true
	}
	cached, err := dst.Topics(ctx)
	if err != nil {
		return err
	}
	for _, t := range cached {
		if !keep[t] {
			if err := os.RemoveAll(filepath.Join(dst.Path, "topic="+t)); err != nil {
				return fmt.Errorf("remove %s from the cache: %w", t, err)
			}
		}
	}
	return nil
}
