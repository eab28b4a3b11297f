package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/units"
)

// compactOptions are catalog compact's flags.
type compactOptions struct {
	Dir        string
	Topics     []string
	Partitions string
	TargetSize string
	MinAge     time.Duration
	Grace      time.Duration
}

func (a *app) compactCmd(runF func(context.Context, *compactOptions) error) *cobra.Command {
	o := &compactOptions{}
	cmd := &cobra.Command{
		Use:   "compact [--dir DIR] [--topic T] [--partitions LIST] [--target-size 128MiB] [--min-age 1h] [--grace 1h]",
		Short: "Merge each partition's small files into large ones, every row kept",
		Long: `Merges, per partition and under its lock, runs of consecutive committed files
smaller than --target-size and written at least --min-age ago into files of up
to --target-size. Every row is copied as it was (every column), the merged file
is read back against its manifest entry, then one manifest write replaces the
old entries by the new one; lost ranges, snapshots and the next offset stay.

The old files are kept for --grace (listed in the manifest as retired, so a
query or restore that read the manifest before still finds them; a dump
leaves them alone) and removed by the first compact after that. --grace 0
removes them at once. A partition a dump is writing is skipped and named.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return a.compactRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	cmd.Flags().StringArrayVar(&o.Topics, "topic", nil, "topic to compact (repeatable; default every topic)")
	cmd.Flags().StringVar(&o.Partitions, "partitions", "", "partitions to compact, e.g. 0,3-5 (default all)")
	cmd.Flags().StringVar(&o.TargetSize, "target-size", "128MiB", "largest merged file (sum of the sizes of the files merged into it)")
	cmd.Flags().DurationVar(&o.MinAge, "min-age", time.Hour, "leave files written less than this long ago")
	cmd.Flags().DurationVar(&o.Grace, "grace", time.Hour, "keep replaced files this long for readers of the old manifest (0: remove at once)")
	cmd.RunE = hinted(cmd.RunE, compactHints)
	return cmd
}

func (a *app) compactRun(ctx context.Context, o *compactOptions) error {
	target, err := parseBytes(o.TargetSize)
	if err != nil {
		return usagef("--target-size %q: use a size such as 128MiB, 1GiB or a number of bytes", o.TargetSize)
	}
	if o.MinAge < 0 || o.Grace < 0 {
		return usagef("--min-age and --grace must not be negative")
	}
	parts, err := catalog.ParsePartitions(o.Partitions)
	if err != nil {
		return usageError{fmt.Errorf("--partitions: %w", err)}
	}
	d, err := a.openDir(ctx, o.Dir)
	if err != nil {
		return err
	}
	start := time.Now()
	st, err := d.Compact(ctx, catalog.CompactOptions{Topics: o.Topics, Partitions: parts, TargetBytes: target, MinAge: o.MinAge, Grace: o.Grace})
	for _, s := range st.Skipped {
		fmt.Fprintf(a.stderr, "warning: skipped %s\n", s)
	}
	imported := ""
	if st.Imported > 0 {
		// Said, so that "0 files merged" on an imported folder does not
		// read as flags that did nothing.
		imported = fmt.Sprintf("; %d small imported files left as they are (an imported file's entry names its source, which a merged one could not)", st.Imported)
	}
	fmt.Fprintf(a.stdout, "compact: %d partitions, %d files before, %d after: %d files (%s) merged into %d (%s); %d old files removed, %d kept for the grace period%s; in %s\n",
		st.Partitions, st.FilesBefore, st.FilesAfter, st.Merged, units.Bytes(st.BytesIn), st.Written, units.Bytes(st.BytesOut),
		st.Removed, st.Retired, imported, time.Since(start).Round(time.Millisecond))
	if err != nil {
		return fmt.Errorf("compact %s: %w", o.Dir, err)
	}
	return nil
}
