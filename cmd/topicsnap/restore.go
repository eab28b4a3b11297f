package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/restore"
)

type restoreOptions struct {
	restore.Options
	brokers  string
	memLimit string
}

func (a *app) restoreCmd() *cobra.Command {
	o := &restoreOptions{}
	cmd := &cobra.Command{
		Use:   "restore --dir DIR --topic T --brokers HOST:PORT [--to-topic T2]",
		Short: "Produce a snapshot's committed records back into a topic, exactly once",
		Long: `restore produces the committed data records of topic T in DIR (no transaction
markers, no records of aborted transactions) into T2 (default T), each to its own
partition number, with its exact key and value bytes (null stays null), headers in
order with duplicates, and timestamp. A missing T2 is created with the partition
count and configs of T's newest snapshot (its timestamp window widened where the
snapshot's timestamps need it). Refused (exit 12) before anything is produced: a T2
with fewer partitions; a T2 that would refuse a record (larger than its
max.message.bytes, or a timestamp outside its message.timestamp.before.max.ms /
after.max.ms), naming the record and the setting; and, without --to-topic, the very
topic the snapshot was taken from while it still holds those records (name it with
--to-topic T to write them into it again); a missing T2 whose name differs from an
existing topic's only by '.' and '_' (Kafka would not create it).

It is exactly once and resumable: two transactional producers (ids
topicsnap-restore-T2 and topicsnap-restore-T2-1), each with its share of the
partitions, produce in transactions that also commit the progress (the next
source offset of each partition, as offsets of the consumer group
topicsnap-restore-T2), so a run killed at any instant and run again leaves
every record in T2 once. A cluster out of reach while it produces (a broker hung
or down, a network cut) is waited for up to --wait-unreachable, then the restore
stops with exit 3 and what it committed; run again, it resumes. --dry-run says what would be produced and produces nothing.

Environment: TOPICSNAP_BROKERS, TOPICSNAP_CONFIG, TOPICSNAP_DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			if o.Topic == "" {
				return usagef("name the topic to restore: --topic NAME (as in topicsnap ls --dir %s)", o.Dir)
			}
			// Values the library takes as "the default" (an empty target,
			// a transaction size or interval of 0 or less) are refused
			// when given: --to-topic "$T" of a script whose T is empty
			// chose the source topic itself.
			switch f := cmd.Flags(); {
			case f.Changed("to-topic") && o.ToTopic == "":
				return usagef("--to-topic is empty: name the topic to produce into (no --to-topic restores into %s itself)", o.Topic)
			case o.TxnRecords < 1:
				return usagef("--txn-records %d: give at least 1 record a transaction", o.TxnRecords)
			case o.TxnInterval <= 0:
				return usagef("--txn-interval %s: give a duration above 0, such as 1s", o.TxnInterval)
			case o.WaitUnreachable < 0:
				return usagef("--wait-unreachable %s: give a duration of 0 (wait without end) or more, such as 5m", o.WaitUnreachable)
			}
			return a.runRestore(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.brokers, "brokers", "", "bootstrap brokers of the target cluster, HOST:PORT[,HOST:PORT]")
	f.StringVar(&o.Conn.ConfigFile, "config", "", "client.properties file (bootstrap.servers, security.protocol, sasl.*, ssl.*)")
	f.StringVar(&o.Dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	f.StringVar(&o.Topic, "topic", "", "topic in the snapshot folder to restore")
	f.StringVar(&o.ToTopic, "to-topic", "", "topic to produce into (default the same name; naming the source topic itself writes its records into it again)")
	f.StringVar(&o.Partitions, "partitions", "", "source partitions to restore, e.g. 0,3-5 (default all)")
	f.StringVar(&o.From, "from", "", "first record: a source OFFSET or an RFC3339 time (default the first stored)")
	f.StringVar(&o.Until, "until", "", "end (exclusive): a source OFFSET or an RFC3339 time (default the last stored)")
	f.BoolVar(&o.DryRun, "dry-run", false, "say what would be produced (records per partition); produce nothing, create nothing")
	f.IntVar(&o.TxnRecords, "txn-records", 500_000, "commit a transaction after this many records (at the end of the data files being read)")
	f.DurationVar(&o.TxnInterval, "txn-interval", time.Second, "or after this long (at the end of the data files being read)")
	f.StringVar(&o.Compression, "compression", "lz4", "compression of the produced batches: lz4, none (least CPU, most network and disk), snappy, zstd or gzip")
	f.DurationVar(&o.Conn.DialTimeout, "timeout", 10*time.Second, "dial timeout per broker")
	f.DurationVar(&o.WaitUnreachable, "wait-unreachable", 5*time.Minute, "how long a restore that lost the cluster while producing waits for it; then it stops with what it committed committed (exit 3; run again, it resumes); 0 waits without end")
	f.StringVar(&o.memLimit, "memory-limit", "448MiB", "soft memory limit of the process (GOMEMLIMIT wins when set); 0 for none")
	cmd.RunE = hinted(cmd.RunE, restoreHints)
	return cmd
}

func (a *app) runRestore(cmd *cobra.Command, o *restoreOptions) error {
	if a.getenv("GOMEMLIMIT") == "" && o.memLimit != "0" {
		n, err := parseBytes(o.memLimit)
		if err != nil {
			return usagef("--memory-limit %q: use a size such as 448MiB or 1GiB", o.memLimit)
		}
		debug.SetMemoryLimit(n)
		// Restore's live heap is about 100 MB (pages being read, the
		// records in flight). GOGC 300 let the heap grow to the limit
		// (peak RSS ~430 MiB) and the runs spent more system time; at
		// 150 (~320 MiB) a million records took less CPU and wall time
		// (BENCHMARKS.md, "Defaults").
		if a.getenv("GOGC") == "" {
			debug.SetGCPercent(150)
		}
	}
	var prog *progressUI
	switch {
	case a.progress != nil:
		o.Progress = a.progress
	case a.isTTY && !o.DryRun:
		prog = newProgress(cmd.Context(), a.stderr)
		o.Progress = prog
	default:
		o.Progress = quietProgress{a.stderr}
	}
	// Restore refuses a topic with a damaged data file whole (a topic
	// restored without a partition would be another topic): said so.
	local, err := a.localDirSaying(cmd.Context(), o.Dir, "restore refuses its topic until the file is put back whole (from a backup, or by dumping the partition again)")
	if err != nil {
		return fmt.Errorf("restore %s from %s: %w", o.Topic, o.Dir, err)
	}
	ro := o.Options
	ro.Dir = local
	sum, err := restore.Run(cmd.Context(), ro)
	if prog != nil {
		prog.Wait()
	}
	if err != nil {
		to := o.ToTopic
		if to == "" {
			to = o.Topic
		}
		return fmt.Errorf("restore %s from %s into %s: %w", o.Topic, o.Dir, to, err)
	}
	fmt.Fprintln(a.stdout, sum.String())
	return nil
}
