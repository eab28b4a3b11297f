package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/bucket"
	"github.com/topicsnap/topicsnap/segments"
)

type importOptions struct {
	dir       string
	kcat      string
	kcatFmt   string
	topics    []string
	fileRows  int
	fileBytes int64
	maxBatch  int32
	maxInflat int
}

func (a *app) importCmd() *cobra.Command {
	o := &importOptions{}
	cmd := &cobra.Command{
		Use:   "import --dir DIR PATH... | import --dir DIR --kcat FILE [--kcat-format FORMAT] --topic NAME",
		Short: "Import Kafka's own segment files, or kcat -C -J output, with no broker",
		Long: `import reads evidence that outlived its broker into a snapshot folder, as a dump
of the same partitions would have written it (manifests, Parquet files, lost ranges):

  PATH is a broker's log directory (every TOPIC-N folder in it, or only those
  of the --topic NAMEs given), a partition folder TOPIC-N, or single .log
  segment files (in their TOPIC-N folder), on the disk or in a bucket
  (s3://BUCKET/PREFIX, reached as --dir s3:// is: --s3-endpoint, the AWS
  credentials chain; the prefix listed once, at most 200,000 objects, each
  segment read by ranged GETs of 8 MiB).
  Every batch is decoded (magic 2, and the v0/v1 message sets of old
  segments; gzip, snappy, lz4, zstd), its CRC checked; a batch that cannot be
  read is a lost range of kind damaged with the reason, and the import goes
  on. Transaction markers are kept, records of aborted transactions marked
  from the .txnindex files and the markers; holes in the offsets (compaction)
  are lost ranges of kind compacted. Each manifest entry names the segment
  file and byte range it was read from. No watermark and no group state is
  invented: the snapshot's high watermark is -1, and no cluster snapshot is
  written. __consumer_offsets folders import like that topic dumps, so the
  group views read them.

  --kcat FILE --topic NAME reads the lines of kcat -C -J (topic, partition,
  offset, tstype, ts, key, payload, headers). kcat prints no markers, producer
  ids, epochs or transactional flag: those columns are -1 and false, and the
  snapshot's note says so. Offsets the file passes over are lost ranges of
  kind not-in-file.

  --kcat FILE --kcat-format FORMAT --topic NAME reads what kcat -C -f FORMAT
  wrote (the same FORMAT, as given to kcat: %t %p %o %k %K %s %S %R %T %h, \n
  \t \xHH). It needs %o and %p; a key or value is read exactly when its
  length comes before it (%K %k, %S %s), and only one of %k, %s, %h may go
  without, ended by the text after it. A format that cannot be read back is
  refused, naming what to add. A line that does not match is counted, the
  first named, and not imported; what the format lacks (headers, timestamps,
  null against empty) is said in the summary and the snapshot's note.

Importing the same input again changes nothing; newer segments (or a longer
file) continue where the last import ended.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.dir == "" {
				return usagef("name the snapshot folder: --dir DIR")
			}
			switch {
			case o.kcat != "" && len(args) > 0:
				return usagef("give PATHs of segment files or --kcat FILE, not both")
			case o.kcatFmt != "" && o.kcat == "":
				return usagef("--kcat-format goes with --kcat FILE: the -f FORMAT that file was written with")
			case o.kcat != "" && len(o.topics) != 1:
				return usagef("--kcat needs one --topic NAME: the topic whose lines to import")
			case o.kcat == "" && len(args) == 0:
				return usagef("name what to import: a log directory, a partition folder TOPIC-N or .log files, or --kcat FILE --topic NAME")
			case o.fileRows < 1:
				return usagef("--file-rows %d: give at least 1 record a file", o.fileRows)
			case o.fileBytes < 1:
				return usagef("--file-bytes %d: give at least 1 byte a file", o.fileBytes)
			case o.maxBatch < 1:
				// 0 and below read as the default (64 MiB) without a word.
				return usagef("--max-batch-bytes %d: give at least 1 (a batch larger on disk is a damaged range)", o.maxBatch)
			case o.maxInflat < 1<<20:
				return usagef("--max-decompressed-bytes %d: give at least 1048576 (1 MiB); the broker's batches reach a MiB compressed", o.maxInflat)
			}
			for _, t := range o.topics {
				if !catalog.ValidTopicName(t) {
					return usagef("--topic %q is no topic name: Kafka's are 1 to 249 of the characters a-z A-Z 0-9 . _ - (and not . or ..)", t)
				}
			}
			s3, err := a.s3Config(cmd.Context(), "")
			if err != nil {
				return err
			}
			warn := func(s string) { fmt.Fprintf(a.stderr, "warning: %s\n", s) }
			var sum segments.Summary
			if o.kcat != "" {
				sum, err = segments.ImportKcat(cmd.Context(), segments.KcatOptions{Dir: o.dir, S3: s3, File: o.kcat, Format: o.kcatFmt, Topic: o.topics[0],
					FileRows: o.fileRows, FileBytes: o.fileBytes, Warn: warn})
			} else {
				sum, err = segments.Import(cmd.Context(), segments.Options{Dir: o.dir, S3: s3, Paths: args, Topics: o.topics,
					OpenBucket: func(ctx context.Context, name string) (segments.Bucket, error) {
						return bucket.OpenSource(ctx, s3, name)
					},
					Limits:   segments.Limits{MaxBatchBytes: o.maxBatch, MaxDecompressed: o.maxInflat},
					FileRows: o.fileRows, FileBytes: o.fileBytes, Warn: warn})
			}
			if err != nil {
				if sum.Partitions > 0 {
					// What was imported beside the failure stays: said.
					fmt.Fprintln(a.stdout, sum.String())
				}
				return fmt.Errorf("import to %s: %w", o.dir, err)
			}
			fmt.Fprintln(a.stdout, sum.String())
			if o.kcatFmt != "" {
				if f, err := segments.ParseKcatFormat(o.kcatFmt); err == nil {
					fmt.Fprintf(a.stdout, "not in the file (each partition's note says it too): %s\n", f.Lacks())
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	f.StringVar(&o.kcat, "kcat", "", "a file of kcat -C -J output to import instead of segment files")
	f.StringVar(&o.kcatFmt, "kcat-format", "", "with --kcat: the file is kcat -C -f FORMAT output, written with this FORMAT (else kcat -J lines)")
	f.StringArrayVar(&o.topics, "topic", nil, "with --kcat: the topic whose lines to import; with PATHs: import only this topic's partitions (repeat for more)")
	f.IntVar(&o.fileRows, "file-rows", 512*1024, "roll a Parquet file after this many records")
	f.Int64Var(&o.fileBytes, "file-bytes", 48<<20, "roll a Parquet file after this many bytes of record data")
	f.Int32Var(&o.maxBatch, "max-batch-bytes", segments.DefaultLimits.MaxBatchBytes, "a batch larger on disk is a damaged range, not read")
	f.IntVar(&o.maxInflat, "max-decompressed-bytes", segments.DefaultLimits.MaxDecompressed, "a batch decompressing past this, or whose records and headers take more than this in memory once decoded, is a damaged range (a zip bomb costs its batch)")
	cmd.RunE = hinted(cmd.RunE, importHints)
	return cmd
}
