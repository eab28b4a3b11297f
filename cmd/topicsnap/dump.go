package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/schemas"
)

type dumpOptions struct {
	dump.Options
	brokers  string
	topics   []string
	memLimit string
	registry string // --schema-registry
	regCA    string // --schema-registry-ca
	// --compact-target and its companions: --follow compacts as it goes.
	compactTarget string
	compact       dump.FollowCompact
}

func (a *app) dumpCmd() *cobra.Command {
	o := &dumpOptions{}
	cmd := &cobra.Command{
		Use:   "dump --brokers HOST:PORT --topic NAME [--dir DIR]",
		Short: "Copy topic partitions to Parquet, incrementally and crash-safe",
		Long: `dump copies every record Kafka still has (data, transaction markers, aborted
records, headers, nulls) into DIR as Parquet, up to each partition's high
watermark at the start of the run. It never joins a consumer group: its position
lives in DIR's manifests, so running it again continues where the last run ended.
Offsets Kafka deleted before they were read are recorded as lost ranges.

Values and keys in the Confluent wire format (Avro, Protobuf, JSON Schema) are
decoded with their writer schema from the Schema Registry (--schema-registry, or
schema.registry.url and the other keys of Confluent's clients in --config) or
from --schema DIR; every schema met is stored in DIR/schemas, so that the
folder reads without the registry. A value or key that does not decode is kept
as it is, with the reason in value_decode_error (key_decode_error). An https://
registry is checked against schema.registry.ssl.truststore.location (or
--schema-registry-ca) before anything is written: a certificate that CA does
not vouch for is exit 10.

Environment: TOPICSNAP_BROKERS, TOPICSNAP_CONFIG, TOPICSNAP_DIR,
TOPICSNAP_SCHEMA_REGISTRY_URL, TOPICSNAP_SCHEMA_REGISTRY_CA,
TOPICSNAP_SCHEMA_REGISTRY_USER_INFO (USER:PASSWORD), TOPICSNAP_SCHEMA_REGISTRY_TOKEN.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Options.Topics = o.topics
			if o.brokers == "" {
				o.brokers = a.getenv("TOPICSNAP_BROKERS")
			}
			if o.Conn.ConfigFile == "" {
				o.Conn.ConfigFile = a.getenv("TOPICSNAP_CONFIG")
			}
			for _, b := range strings.Split(o.brokers, ",") {
				if b = strings.TrimSpace(b); b != "" {
					o.Conn.Brokers = append(o.Conn.Brokers, b)
				}
			}
			o.Registry = a.registryFlags(o.registry, o.regCA)
			if len(o.Topics) == 0 && o.TopicRegex == "" {
				return usagef("name a topic: --topic NAME (repeatable) or --topic-regex REGEX")
			}
			if o.Follow && cmd.Flags().Changed("until") {
				// --until now would be each snapshot's own now: --follow never stops.
				return usagef("--follow with --until %s: --follow dumps until interrupted (Ctrl-C) and --until stops at one point; drop one of them", o.Until)
			}
			if o.Follow && cmd.Flags().Changed("wait-unreachable") {
				return usagef("--follow with --wait-unreachable: --follow waits cluster outages out; --wait-unreachable bounds the wait of a one-shot dump: drop one of them")
			}
			if o.WaitUnreachable < 0 {
				return usagef("--wait-unreachable %s: give a duration of 0 (wait without end) or more, such as 5m", o.WaitUnreachable)
			}
			if o.MaxDecompressedBytes < 1<<20 {
				return usagef("--max-decompressed-bytes %d: give at least 1048576 (1 MiB); the broker's batches reach a MiB compressed", o.MaxDecompressedBytes)
			}
			if err := followCompact(cmd, o); err != nil {
				return err
			}
			return a.runDump(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.brokers, "brokers", "", "bootstrap brokers, HOST:PORT[,HOST:PORT]")
	f.StringVar(&o.Conn.ConfigFile, "config", "", "client.properties file (bootstrap.servers, security.protocol, sasl.*, ssl.*)")
	f.StringArrayVar(&o.topics, "topic", nil, "topic to dump (repeatable)")
	f.StringVar(&o.TopicRegex, "topic-regex", "", "dump every topic whose name matches")
	f.StringVar(&o.Partitions, "partitions", "", "partitions to dump, e.g. 0,3-5 (default all)")
	f.StringVar(&o.From, "from", "earliest", "where a partition never dumped starts: earliest, OFFSET, or an RFC3339 time")
	f.StringVar(&o.Until, "until", "now", "where to stop: now (the high watermark at start), OFFSET (exclusive), or an RFC3339 time")
	f.BoolVar(&o.Follow, "follow", false, "keep taking snapshots until interrupted (Ctrl-C: exit 0 with the summary); not with --until")
	f.DurationVar(&o.Interval, "interval", 30*time.Second, "with --follow, the pause between snapshots")
	f.StringVar(&o.compactTarget, "compact-target", "", "with --follow, merge the dump's small files into files of up to this size as it goes (e.g. 128MiB; default: no compaction)")
	f.DurationVar(&o.compact.MinAge, "compact-min-age", time.Hour, "with --compact-target, leave files written less than this long ago")
	f.DurationVar(&o.compact.Grace, "compact-grace", time.Hour, "with --compact-target, keep replaced files this long for readers of the old manifest")
	f.DurationVar(&o.compact.Every, "compact-every", 15*time.Minute, "with --compact-target, at most one compaction pass per this long, between snapshots")
	f.StringVar(&o.Dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	f.IntVar(&o.FileRows, "file-rows", 512*1024, "roll a Parquet file after this many records")
	f.Int64Var(&o.FileBytes, "file-bytes", 48<<20, "roll a Parquet file after this many bytes of record data (and the text decoded from it)")
	f.IntVar(&o.MaxDecompressedBytes, "max-decompressed-bytes", dump.DefaultMaxDecompressedBytes, "a fetched batch decompressing past this stops its partition there, with an error (a zip bomb costs its partition, not the process)")
	f.DurationVar(&o.Conn.DialTimeout, "timeout", 10*time.Second, "dial timeout per broker")
	f.DurationVar(&o.WaitUnreachable, "wait-unreachable", 5*time.Minute, "without --follow, how long a dump that lost the cluster (or a partition's leader) while reading waits for it; then it stops with what it read committed (exit 3; exit 2 for a partition without a leader); 0 waits without end")
	f.StringVar(&o.registry, "schema-registry", "", "Schema Registry URL(s), comma-separated (over schema.registry.url in --config)")
	f.StringVar(&o.regCA, "schema-registry-ca", "", "PEM file of the CAs the Schema Registry's certificate is checked against")
	f.StringVar(&o.SchemaDir, "schema", "", "folder of schema files named by the id they stand for (ID.avsc, ID.proto, ID.json), for hosts without the registry")
	f.StringVar(&o.memLimit, "memory-limit", "", "soft memory limit of the process (GOMEMLIMIT wins when set); 0 for none (default 448MiB, 768MiB for a dump that decodes values)")
	cmd.RunE = hinted(cmd.RunE, dumpHints)
	return cmd
}

// followCompact checks the --compact-* flags and sets o.Compact: they
// need --follow (a one-shot dump is followed by catalog compact).
func followCompact(cmd *cobra.Command, o *dumpOptions) error {
	set := ""
	for _, n := range []string{"compact-target", "compact-min-age", "compact-grace", "compact-every"} {
		if cmd.Flags().Changed(n) && set == "" {
			set = n
		}
	}
	if set == "" {
		return nil
	}
	if !o.Follow {
		return usagef("--%s compacts as a --follow dump goes: add --follow, or run topicsnap catalog compact --dir DIR after the dump", set)
	}
	if o.compactTarget == "" {
		return usagef("--%s needs --compact-target SIZE (e.g. 128MiB), the largest merged file", set)
	}
	target, err := parseBytes(o.compactTarget)
	if err != nil || target <= 0 {
		return usagef("--compact-target %q: use a size such as 128MiB, 1GiB or a number of bytes", o.compactTarget)
	}
	if o.compact.MinAge < 0 || o.compact.Grace < 0 || o.compact.Every < 0 {
		return usagef("--compact-min-age, --compact-grace and --compact-every are durations of 0 or more")
	}
	o.compact.Target = target
	o.Compact = &o.compact
	return nil
}

// dumpMemoryLimit is the dump's soft memory limit when --memory-limit is
// not given: 448MiB, or 768MiB for a dump that decodes values (a registry
// or --schema is set), whose rows hold the exact bytes, the decoded text
// and the typed columns: under 448MiB the collector took about a third of
// such a dump's CPU (BENCHMARKS.md, "Defaults").
func dumpMemoryLimit(ctx context.Context, o *dumpOptions) string {
	if o.SchemaDir != "" {
		return "768MiB"
	}
	if reg, err := kafkaconn.RegistryOf(ctx, o.Conn.ConfigFile, o.Registry); err == nil && reg != nil {
		return "768MiB"
	}
	return "448MiB"
}

// registryFlags gathers the registry settings of the flags and the
// environment; credentials come from the environment only (a flag shows in
// the process list). nil when none is set.
func (a *app) registryFlags(urls, ca string) *schemas.Registry {
	r := &schemas.Registry{
		URLs:   schemas.SplitURLs(firstSet(urls, a.getenv("TOPICSNAP_SCHEMA_REGISTRY_URL"))),
		CAFile: firstSet(ca, a.getenv("TOPICSNAP_SCHEMA_REGISTRY_CA")),
		Token:  a.getenv("TOPICSNAP_SCHEMA_REGISTRY_TOKEN"),
	}
	if info := a.getenv("TOPICSNAP_SCHEMA_REGISTRY_USER_INFO"); info != "" {
		r.User, r.Password, _ = strings.Cut(info, ":")
	}
	if len(r.URLs) == 0 && r.CAFile == "" && r.Token == "" && r.User == "" {
		return nil
	}
	return r
}

func firstSet(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

func (a *app) runDump(cmd *cobra.Command, o *dumpOptions) error {
	// Memory grows with the partitions written at once (a row group each),
	// not with the topic; a soft limit makes the collector keep it there.
	if o.memLimit == "" {
		o.memLimit = dumpMemoryLimit(cmd.Context(), o)
	}
	if a.getenv("GOMEMLIMIT") == "" && o.memLimit != "0" {
		n, err := parseBytes(o.memLimit)
		if err != nil {
			return usagef("--memory-limit %q: use a size such as 448MiB or 1GiB", o.memLimit)
		}
		debug.SetMemoryLimit(n)
		// Under that limit the collector may wait for the heap to triple:
		// measured ~4% faster on 5M records at the same peak RSS.
		if a.getenv("GOGC") == "" {
			debug.SetGCPercent(300)
		}
	}
	var prog *progressUI
	if a.progress != nil {
		o.Progress = a.progress
	} else if a.isTTY {
		prog = newProgress(cmd.Context(), a.stderr)
		o.Progress = prog
	} else {
		o.Progress = quietProgress{a.stderr}
	}
	s3, err := a.s3Config(cmd.Context(), o.Conn.ConfigFile)
	if err != nil {
		return err
	}
	o.S3 = s3
	sum, err := dump.Run(cmd.Context(), o.Options)
	if prog != nil {
		prog.Wait()
	}
	if err != nil && o.Follow && errors.Is(err, context.Canceled) && cmd.Context().Err() != nil {
		// Ctrl-C (or SIGTERM) is how --follow stops: what was committed
		// stays, and the next run resumes from it.
		err = nil
	}
	var some *dump.TopicsFailedError
	if errors.As(err, &some) {
		// The topics that did not fail were dumped: the summary says what
		// was, the Error: line what was not.
		fmt.Fprintln(a.stdout, sum.String())
	}
	if err != nil {
		// Otherwise no summary: the Error: line says what happened.
		return fmt.Errorf("dump to %s: %w", o.Dir, err)
	}
	fmt.Fprintln(a.stdout, sum.String())
	return nil
}
