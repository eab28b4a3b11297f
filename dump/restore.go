package dump

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/shell"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/suggest"
)

// Errors of a restore a caller can tell apart with errors.Is.
var (
	// ErrNotInCatalog is a topic the snapshot folder holds no data of.
	ErrNotInCatalog = exit.New(exit.UnknownTopic, "topic not in the snapshot folder", "topicsnap ls --dir DIR (lists the topics the snapshot folder holds)")
	// ErrTarget is a target topic a restore will not write: fewer
	// partitions than the source had, or progress of another source.
	ErrTarget = exit.New(exit.Target, "target topic refused", "restore into another topic with --to-topic")
	// ErrFenced is a restore another restore into the same target took
	// over (its transactional id fenced this one).
	ErrFenced = exit.New(exit.Locked, "fenced by another restore into the same topic",
		"another restore into the same topic took over; let it finish, or run this one again to take over (it resumes from the committed progress)")
)

// TargetError is a target topic with fewer partitions than the source:
// records could not go to their own partition numbers, so nothing is
// produced. errors.Is(err, ErrTarget) holds.
type TargetError struct {
	Target string
	Has    int // partitions the target has
	Needs  int // partitions the source had
}

func (e *TargetError) Error() string {
	return fmt.Sprintf("%v: topic %s has %d partitions, the source had %d, so records could not keep their partition numbers; nothing was produced",
		ErrTarget, e.Target, e.Has, e.Needs)
}

func (e *TargetError) Unwrap() error { return ErrTarget }

// ExitCode is exit.Target.
func (e *TargetError) ExitCode() exit.Code { return exit.Target }

// Hint is the two ways to a target that keeps partition numbers.
func (e *TargetError) Hint() string {
	return fmt.Sprintf("restore into a new topic with --to-topic (it is created with the source's partition count), or add partitions to the target: kafka-topics.sh --bootstrap-server HOST:PORT --alter --topic %s --partitions %d",
		shell.Quote(e.Target), e.Needs)
}

// RestoreOptions of one restore.
type RestoreOptions struct {
	Conn       Conn
	Dir        string
	Topic      string // the source topic in Dir
	ToTopic    string // the target topic; empty is Topic
	Partitions string // "0,3-5"; empty is every partition in Dir
	From       string // first record: a source OFFSET or an RFC3339 time; empty is the first stored
	Until      string // exclusive end: a source OFFSET or an RFC3339 time; empty is the last stored
	DryRun     bool   // say what would be produced; produce nothing, create nothing
	// A transaction commits after TxnRecords records (default 500,000) or
	// TxnInterval (default 1s), whichever comes first, once the data files
	// it holds records of are read to their ends (see fileGate).
	TxnRecords  int
	TxnInterval time.Duration
	// Compression of the produced batches: lz4 (the default, when empty),
	// none, snappy, zstd or gzip. The broker stores a batch as it comes
	// (unless the target's compression.type names another codec), so none
	// costs the least CPU and the most network and disk.
	Compression string
	// Progress, if set, is told of records as their transaction commits
	// (by target partition); it must be safe for concurrent use.
	Progress Progress
}

// RestorePartition is what a restore does to one partition.
type RestorePartition struct {
	Partition int32
	From      int64 // first source offset read in this run
	Until     int64 // exclusive end in the source
	Resumed   bool  // From is the progress a previous run committed
	Records   int64 // data records produced (to produce, in a dry run)
	Bytes     int64 // their key and value bytes
	Markers   int64 // transaction markers left out
	Aborted   int64 // records of aborted transactions left out
	// OpenAt is the source offset of a transaction still open at the last
	// snapshot (no marker in Dir yet), where this partition stops as a
	// read_committed consumer would; -1 when there is none.
	OpenAt int64
}

// RestoreSummary of one run.
type RestoreSummary struct {
	Source, Target string
	DryRun         bool
	Created        bool // the target was created (would be, in a dry run)
	CreatePlan     string
	Partitions     []RestorePartition
	Records, Bytes int64
	Markers        int64
	Aborted        int64
	Transactions   int
	Elapsed        time.Duration
}

func (s RestoreSummary) String() string {
	if s.DryRun {
		var b strings.Builder
		for _, p := range s.Partitions {
			fmt.Fprintf(&b, "partition %d: source offsets [%d,%d): %d records", p.Partition, p.From, p.Until, p.Records)
			if p.Resumed {
				b.WriteString(" (after the progress a previous restore committed)")
			}
			if p.OpenAt >= 0 {
				fmt.Fprintf(&b, " (stops at offset %d: a transaction open at the last snapshot)", p.OpenAt)
			}
			b.WriteString("\n")
		}
		what := "existing topic " + s.Target
		if s.Created {
			what = "new topic " + s.Target + " (" + s.CreatePlan + ")"
		}
		fmt.Fprintf(&b, "dry run: would restore %d records (%s) of %s into %s from %d partitions, leaving out %d markers and %d records of aborted transactions; nothing produced",
			s.Records, humanBytes(s.Bytes), s.Source, what, len(s.Partitions), s.Markers, s.Aborted)
		return b.String()
	}
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records) / s.Elapsed.Seconds()
	}
	created := ""
	if s.Created {
		created = " (created)"
	}
	out := fmt.Sprintf("restored %d records (%s) of %s into %s%s from %d partitions in %d transactions in %.1fs, %.0f records/s, leaving out %d markers and %d records of aborted transactions",
		s.Records, humanBytes(s.Bytes), s.Source, s.Target, created, len(s.Partitions), s.Transactions, s.Elapsed.Seconds(), rate, s.Markers, s.Aborted)
	if s.Records == 0 {
		out += ": " + s.whyNothing()
	}
	return out
}

// whyNothing says why a restore produced no record.
func (s RestoreSummary) whyNothing() string {
	resumed := 0
	for _, p := range s.Partitions {
		if p.Resumed {
			resumed++
		}
	}
	switch {
	case len(s.Partitions) == 0:
		return "no partition to restore"
	case resumed == len(s.Partitions):
		return fmt.Sprintf("everything was already restored (the progress group %s has committed every partition to the end; restore into another --to-topic, or delete that group to restore again)", RestoreID(s.Target))
	default:
		return "the snapshot holds no data record in the range asked (--from, --until)"
	}
}

// RestoreID is the consumer group whose committed offsets on target are
// the progress of restores into it, and the transactional id of their
// first producer (RestoreTxnID).
func RestoreID(target string) string { return "topicsnap-restore-" + target }

// restoreProducers is how many transactional producers a restore runs,
// each producing its own share of the partitions in its own transactions
// over its own connections: on a broker that leads many partitions, one
// producer's requests are handled one at a time (Kafka reads a
// connection's next request only after answering the last) and its
// batches compressed by one goroutine; two keep two cores busy. It is a
// constant, not an option: a run must fence every transactional id an
// earlier run into the same target may have left a transaction open on.
const restoreProducers = 2

// RestoreTxnID is the transactional id of a restore's producer i (0 to
// restoreProducers-1) into target: RestoreID(target), then
// RestoreID(target)-1, ...
func RestoreTxnID(target string, i int) string {
	if i == 0 {
		return RestoreID(target)
	}
	return fmt.Sprintf("%s-%d", RestoreID(target), i)
}

// RestoreTxnIDs are the transactional ids of every producer of a restore
// into target, for ACLs and messages.
func RestoreTxnIDs(target string) []string {
	ids := make([]string, restoreProducers)
	for i := range ids {
		ids[i] = RestoreTxnID(target, i)
	}
	return ids
}

// progressMeta is the metadata of a committed progress offset: the source
// topic and the target's topic id, so progress of another source, or of a
// target deleted and created again, is never taken for this one's.
func progressMeta(source string, targetID kadm.TopicID) string {
	return fmt.Sprintf("topicsnap restore of %s into topic id %s", source, targetID)
}

// restorePlan is one partition's work.
type restorePlan struct {
	m       *catalog.Manifest
	markers catalog.Markers // decides transactions left open in a file; nil when none are
	part    *RestorePartition
}

// Restore produces the committed data records of opts.Topic in opts.Dir
// into opts.ToTopic, each to its own partition number, exactly once: a
// transactional producer commits, with each batch of records, the next
// source offset of every partition as the offsets of the consumer group
// RestoreID(target) on the target, in the same transaction. A run killed
// at any instant leaves its last transaction open; the next run's producer
// (the same transactional id) fences it, the broker aborts it, and the run
// continues after the committed progress.
func Restore(ctx context.Context, opts RestoreOptions) (RestoreSummary, error) {
	start := time.Now()
	if opts.ToTopic == "" {
		opts.ToTopic = opts.Topic
	}
	if opts.TxnRecords <= 0 {
		opts.TxnRecords = 500_000
	}
	if opts.TxnInterval <= 0 {
		opts.TxnInterval = time.Second
	}
	sum := RestoreSummary{Source: opts.Topic, Target: opts.ToTopic, DryRun: opts.DryRun}
	if opts.Topic == "" {
		return sum, exit.Errorf(ErrBadOption, "name the topic to restore with --topic")
	}
	if !catalog.ValidTopicName(opts.ToTopic) {
		return sum, exit.Errorf(ErrBadOption, "--to-topic %q is not a valid topic name", opts.ToTopic)
	}
	codec, err := restoreCodec(opts.Compression)
	if err != nil {
		return sum, err
	}
	parts, err := parsePartitions(opts.Partitions)
	if err != nil {
		return sum, err
	}
	from, until, err := restorePositions(opts.From, opts.Until)
	if err != nil {
		return sum, err
	}
	dir, err := catalog.Open(opts.Dir)
	if err != nil {
		return sum, err
	}
	src, err := readSource(dir, opts.Topic)
	if err != nil {
		return sum, err
	}
	var plans []*restorePlan
	for _, m := range src.manifests {
		if parts == nil || parts[m.Partition] {
			plans = append(plans, &restorePlan{m: m, part: &RestorePartition{Partition: m.Partition, OpenAt: -1}})
		}
	}
	if err := checkRestorePartitions(opts, parts, src); err != nil {
		return sum, err
	}
	for _, pl := range plans {
		// A FIFO or a device in a data file's place would hang its
		// reader: refused before anything is created or produced.
		for _, f := range pl.m.Files {
			if err := dir.CheckDataFileKind(pl.m.TP(), f.Name); err != nil {
				return sum, err // names the file
			}
		}
	}

	cl, adm, err := connect(ctx, opts.Conn)
	if err != nil {
		return sum, err
	}
	defer cl.Close()
	who := principal(opts.Conn)
	target, err := describeTarget(ctx, adm, opts.ToTopic, who)
	if err != nil {
		return sum, err
	}
	if target.exists && target.partitions < src.partitions {
		return sum, &TargetError{Target: opts.ToTopic, Has: target.partitions, Needs: src.partitions}
	}
	warn := func(msg string) {
		if opts.Progress != nil {
			opts.Progress.Warn(msg)
		}
	}
	configs, rf, plan := createPlan(src, target.brokers, warn)
	if target.exists {
		if target.logAppendTime {
			warn(fmt.Sprintf("topic %s has message.timestamp.type=LogAppendTime: the broker stamps restored records with its own time instead of the snapshot's", opts.ToTopic))
		}
	} else {
		sum.Created, sum.CreatePlan = true, fmt.Sprintf("%d partitions, %s", src.partitions, plan)
		if !opts.DryRun {
			r, err := adm.CreateTopic(ctx, int32(src.partitions), int16(rf), configs, opts.ToTopic)
			if err == nil {
				err = r.Err
			}
			if ae := deniedErr(who, fmt.Sprintf("create topic %q", opts.ToTopic), opts.ToTopic, "CREATE", err); ae != nil {
				return sum, ae
			}
			if err != nil {
				return sum, fmt.Errorf("create topic %s: %w", opts.ToTopic, classify(err))
			}
			// The client's metadata of the topic may be older than the
			// topic: the response says what was created.
			target.exists, target.partitions, target.id = true, src.partitions, r.ID
		}
	}

	var producers []*kgo.Client
	if !opts.DryRun {
		// The transactional ids are the target's: the first request of
		// each producer fences every earlier one of its id, and the broker
		// aborts (or, if it was deciding to commit, completes) the
		// transaction a killed run left open, before the progress below
		// is read. Every run starts all restoreProducers of them, whatever
		// partitions it restores, so no earlier run's transaction stays
		// open behind this one.
		for i := range restoreProducers {
			cl, err := NewClient(opts.Conn,
				kgo.TransactionalID(RestoreTxnID(opts.ToTopic, i)),
				kgo.TransactionTimeout(60*time.Second),
				kgo.RecordPartitioner(kgo.ManualPartitioner()),
				codec,
				kgo.ProducerLinger(5*time.Millisecond),
				kgo.MaxBufferedRecords(64*1024),
				kgo.MaxBufferedBytes(32<<20),
				kgo.WithHooks(&waitHook{p: opts.Progress}),
			)
			if err != nil {
				return sum, err
			}
			defer cl.Close()
			producers = append(producers, cl)
		}
		for i, cl := range producers {
			if _, _, err := cl.ProducerID(ctx); err != nil {
				return sum, restoreErr(ctx, "start the transactional producer", who, opts.ToTopic, RestoreTxnID(opts.ToTopic, i), err)
			}
		}
	}
	progress := map[int32]int64{}
	if target.exists {
		if progress, err = readProgress(ctx, adm, opts, target, !opts.DryRun, warn); err != nil {
			return sum, err
		}
	}
	for _, pl := range plans {
		if err := planRestore(ctx, dir, pl, from, until, progress); err != nil {
			return sum, err
		}
	}
	if opts.DryRun {
		for _, pl := range plans {
			err := scanPlan(ctx, dir, pl, opts.ToTopic, nil, func([]*kgo.Record, int64, bool, int64) error { return nil })
			if err != nil {
				return sum, err
			}
		}
	} else {
		if err := produceAll(ctx, dir, producers, opts, target, plans, &sum); err != nil {
			sum.Elapsed = time.Since(start)
			return sum, err
		}
		for _, pl := range plans {
			if opts.Progress != nil {
				opts.Progress.Done(catalog.TopicPartition{Topic: opts.ToTopic, Partition: pl.m.Partition})
			}
		}
	}
	for _, pl := range plans {
		p := pl.part
		sum.Partitions = append(sum.Partitions, *p)
		if opts.DryRun {
			sum.Records += p.Records
			sum.Bytes += p.Bytes
		}
		sum.Markers += p.Markers
		sum.Aborted += p.Aborted
		if p.OpenAt >= 0 {
			warn(fmt.Sprintf("%s/%d stops at source offset %d: its transaction was still open at the last snapshot; dump the topic again, then restore again to continue", opts.Topic, p.Partition, p.OpenAt))
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, nil
}

// restoreCodec is the producer's compression option of --compression.
func restoreCodec(name string) (kgo.Opt, error) {
	c, err := CompressionCodec(name)
	if err != nil {
		return nil, err
	}
	return kgo.ProducerBatchCompression(c, kgo.NoCompression()), nil
}

// CompressionCodec is the produce codec a --compression value names: lz4
// (also for ""), none, snappy, zstd or gzip.
func CompressionCodec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "", "lz4":
		return kgo.Lz4Compression(), nil
	case "none":
		return kgo.NoCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	}
	return kgo.CompressionCodec{}, exit.Errorf(ErrBadOption, "--compression %q: use lz4, none, snappy, zstd or gzip", name)
}

// source is what the snapshot folder knows of the topic to restore.
type source struct {
	manifests  []*catalog.Manifest
	partitions int // partition count at the newest cut
	snap       *catalog.ClusterSnapshot
}

func readSource(dir *catalog.Dir, topic string) (*source, error) {
	tm, err := dir.ReadTopic(topic)
	if err != nil {
		return nil, err
	}
	if err := tm.Err(); err != nil {
		return nil, err
	}
	if len(tm.Manifests) == 0 {
		msg := fmt.Sprintf("%s holds no snapshot of topic %q", dir.Path, topic)
		if names, _ := dir.Topics(); len(names) > 0 {
			if c := suggest.Closest(topic, names); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			} else {
				msg += fmt.Sprintf(" (it holds %s)", strings.Join(names, ", "))
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrNotInCatalog, msg)
	}
	s := &source{manifests: tm.Manifests}
	snaps, err := dir.ClusterSnapshots()
	if err != nil {
		return nil, err
	}
	for _, cs := range snaps { // oldest first: the last one wins
		if cs.Topic == topic {
			s.snap = cs
		}
	}
	for _, m := range tm.Manifests {
		s.partitions = max(s.partitions, int(m.Partition)+1)
	}
	if s.snap != nil {
		s.partitions = max(s.partitions, s.snap.PartitionCount)
	}
	return s, nil
}

func checkRestorePartitions(opts RestoreOptions, parts map[int32]bool, src *source) error {
	if parts == nil {
		return nil
	}
	have := map[int32]bool{}
	for _, m := range src.manifests {
		have[m.Partition] = true
	}
	var missing []string
	for p := range parts {
		if !have[p] {
			missing = append(missing, strconv.Itoa(int(p)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return exit.Errorf(ErrBadOption, "--partitions %s: %s holds no partition %s of topic %s (it holds %d partitions)",
		opts.Partitions, opts.Dir, strings.Join(missing, ", "), opts.Topic, len(src.manifests))
}

// restorePositions parses --from and --until: a source offset (0 or more)
// or an RFC3339 time; empty (or earliest / now) is no bound.
func restorePositions(from, until string) (position, position, error) {
	f, err := parsePosition("--from", from, "earliest")
	if err != nil {
		return f, f, err
	}
	u, err := parsePosition("--until", until, "now")
	if err != nil {
		return f, u, err
	}
	if f.isOffset() && u.isOffset() && f.offset >= u.offset || f.isTime() && u.isTime() && !f.at.Before(u.at) {
		return f, u, exit.Errorf(ErrBadOption, "--from %s is not before --until %s (--until is exclusive), so nothing would be restored; give a --from before --until", f.text, u.text)
	}
	return f, u, nil
}

// target is what the cluster says of the target topic.
type target struct {
	exists        bool
	partitions    int
	id            kadm.TopicID
	brokers       int
	logAppendTime bool
}

func describeTarget(ctx context.Context, adm *kadm.Client, topic, who string) (target, error) {
	var t target
	md, err := adm.Metadata(ctx, topic)
	if ae := deniedErr(who, fmt.Sprintf("describe topic %q", topic), topic, "DESCRIBE and WRITE", err); ae != nil {
		return t, ae
	}
	if err != nil {
		return t, fmt.Errorf("describe topic %s: %w", topic, classify(err))
	}
	t.brokers = len(md.Brokers)
	td, ok := md.Topics[topic]
	switch {
	case !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition):
		return t, nil
	case isAuthz(td.Err):
		return t, &AuthzError{Principal: who, Action: fmt.Sprintf("describe topic %q", topic), Topic: topic, Ops: "DESCRIBE and WRITE", Err: td.Err, Restore: true}
	case td.Err != nil:
		return t, fmt.Errorf("describe topic %s: %w", topic, classify(td.Err))
	}
	t.exists, t.partitions, t.id = true, len(td.Partitions), td.ID
	if rc, err := adm.DescribeTopicConfigs(ctx, topic); err == nil {
		for _, r := range rc {
			for _, c := range r.Configs {
				if c.Key == "message.timestamp.type" && c.Value != nil && *c.Value == "LogAppendTime" {
					t.logAppendTime = true
				}
			}
		}
	}
	return t, nil
}

// createPlan is how a missing target is created: the source's configs at
// its newest cut, with what would change the records or fail on this
// cluster adjusted (and said): LogAppendTime would restamp every record,
// so the target takes CreateTime; the replication factor is at most the
// cluster's broker count, min.insync.replicas at most that factor.
func createPlan(src *source, brokers int, warn func(string)) (map[string]*string, int, string) {
	configs := map[string]*string{}
	rf := -1
	if src.snap == nil {
		warn(fmt.Sprintf("the snapshot folder has no cluster snapshot of the topic; a new target gets %d partitions and the cluster's default configs", src.partitions))
		return configs, rf, "the cluster's default configs"
	}
	if src.snap.ConfigsError != "" {
		warn("the snapshot could not read the source's configs (" + src.snap.ConfigsError + "); a new target gets the cluster's defaults for them")
	}
	rf = src.snap.ReplicationFactor
	if rf <= 0 {
		rf = -1
	} else if brokers > 0 && rf > brokers {
		warn(fmt.Sprintf("the source had replication factor %d; this cluster has %d brokers, so the target gets %d", rf, brokers, brokers))
		rf = brokers
	}
	keys := make([]string, 0, len(src.snap.Configs))
	for k := range src.snap.Configs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var shown []string
	for _, k := range keys {
		v := src.snap.Configs[k]
		switch {
		case k == "message.timestamp.type" && v == "LogAppendTime":
			warn("the source had message.timestamp.type=LogAppendTime; the target is created with CreateTime so restored records keep the snapshot's timestamps")
			v = "CreateTime"
		case k == "min.insync.replicas" && rf > 0:
			if n, err := strconv.Atoi(v); err == nil && n > rf {
				v = strconv.Itoa(rf)
			}
		case k == "retention.ms":
			if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms > 0 {
				oldest := int64(-1)
				for _, m := range src.manifests {
					for _, f := range m.Files {
						if oldest < 0 || f.MinTimestamp < oldest {
							oldest = f.MinTimestamp
						}
					}
				}
				if oldest >= 0 && time.Now().UnixMilli()-oldest > ms {
					warn(fmt.Sprintf("retention.ms=%s is copied from the source, and the oldest record is from %s: the broker may delete restored records older than that soon after; create the target yourself with a longer retention.ms to keep them",
						v, time.UnixMilli(oldest).UTC().Format(time.RFC3339)))
				}
			}
		}
		configs[k] = &v
		shown = append(shown, k+"="+v)
	}
	if rf > 0 {
		shown = append([]string{fmt.Sprintf("replication factor %d", rf)}, shown...)
	}
	return configs, rf, strings.Join(shown, ", ")
}

// readProgress reads the committed progress of restores into the target:
// per partition, the next source offset. With stable, it waits for
// transactions still deciding (the fenced run's) to end first.
func readProgress(ctx context.Context, adm *kadm.Client, opts RestoreOptions, t target, stable bool, warn func(string)) (map[int32]int64, error) {
	group := RestoreID(opts.ToTopic)
	want := progressMeta(opts.Topic, t.id)
	out := map[int32]int64{}
	fctx := ctx
	if stable {
		fctx = kadm.RequireStable(ctx)
	}
	for attempt := 0; ; attempt++ {
		resp, err := adm.FetchOffsets(fctx, group)
		if err == nil {
			err = resp.Error()
		}
		if errors.Is(err, kerr.GroupIDNotFound) {
			return out, nil
		}
		if err != nil && attempt < 150 && (errors.Is(err, kerr.UnstableOffsetCommit) || errors.Is(err, kerr.CoordinatorLoadInProgress) ||
			errors.Is(err, kerr.NotCoordinator) || errors.Is(err, kerr.CoordinatorNotAvailable)) {
			// A pending transaction's offsets, or a coordinator still
			// starting (a new cluster makes __consumer_offsets now).
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the progress of %s (committed offsets of group %s): %w", opts.ToTopic, group, classify(err))
		}
		var foreign string
		resp.Each(func(o kadm.OffsetResponse) {
			if o.Topic != opts.ToTopic || o.Err != nil || o.At < 0 {
				return
			}
			if o.Metadata != want {
				foreign = o.Metadata
				return
			}
			out[o.Partition] = o.At
		})
		if foreign != "" {
			if strings.HasPrefix(foreign, fmt.Sprintf("topicsnap restore of %s into topic id ", opts.Topic)) {
				// The same source into a topic of the same name that was
				// deleted and created again: that progress is not this one's.
				warn(fmt.Sprintf("group %s holds progress of a topic %s that was deleted since; starting from the beginning", group, opts.ToTopic))
				return map[int32]int64{}, nil
			}
			return nil, fmt.Errorf("%w: topic %s holds a restore of another source (group %s: %q); restore into another --to-topic, or delete that group to start over",
				ErrTarget, opts.ToTopic, group, foreign)
		}
		return out, nil
	}
}

// planRestore sets the partition's source range: from the committed
// progress, --from or the first stored offset (the latest of them) to
// --until or the end of the stored data.
func planRestore(ctx context.Context, dir *catalog.Dir, pl *restorePlan, from, until position, progress map[int32]int64) error {
	m, p := pl.m, pl.part
	if len(m.Files) == 0 || m.NextOffset < 0 {
		return nil
	}
	p.From, p.Until = m.Files[0].FirstOffset, m.NextOffset
	switch {
	case from.isOffset():
		p.From = max(p.From, from.offset)
	case from.isTime():
		off, err := offsetAtTime(ctx, dir, m, from.at)
		if err != nil {
			return err
		}
		p.From = max(p.From, off)
	}
	switch {
	case until.isOffset():
		p.Until = min(p.Until, until.offset)
	case until.isTime():
		off, err := offsetAtTime(ctx, dir, m, until.at)
		if err != nil {
			return err
		}
		p.Until = min(p.Until, off)
	}
	if next, ok := progress[m.Partition]; ok && next > p.From {
		p.From, p.Resumed = next, true
	}
	p.Until = max(p.Until, p.From)
	for _, f := range m.Files {
		if f.OpenTxnRecords > 0 && f.LastOffset >= p.From && f.FirstOffset < p.Until {
			ms, err := dir.ReadMarkers(ctx, m, p.From)
			if err != nil {
				return err
			}
			pl.markers = ms
			break
		}
	}
	return nil
}

// offsetAtTime is, as Kafka's offsets-for-times, the offset of the first
// stored data record whose timestamp is t or later; the end of the stored
// data if none is.
func offsetAtTime(ctx context.Context, dir *catalog.Dir, m *catalog.Manifest, t time.Time) (int64, error) {
	ms := t.UnixMilli()
	errFound := errors.New("found")
	for _, f := range m.Files {
		if f.MaxTimestamp < ms {
			continue
		}
		var at int64
		err := catalog.ScanDataFileColumns(ctx, dir.FilePath(m.TP(), f.Name), 4096, restoreColumns, func(rows []catalog.Row) error {
			for i := range rows {
				if !rows[i].Control && rows[i].Timestamp >= ms { // a marker has the time it was written
					at = rows[i].Offset
					return errFound
				}
			}
			return nil
		})
		if errors.Is(err, errFound) {
			return at, nil
		}
		if err != nil {
			return 0, err
		}
	}
	return m.NextOffset, nil
}

// restoreColumns are the columns of a data file restore reads: what a
// produced record is made of (partition, key, value, headers, timestamp)
// and what decides whether it is produced (offset, is_control, txn_state,
// producer_id for catalog.Committed). The others (decoded values, epochs,
// schema ids, ...) are not read at all.
var restoreColumns = []string{"partition", "offset", "timestamp", "key", "value", "headers", "producer_id", "is_control", "txn_state"}

// scanPlan reads the partition's planned range and calls emit with each
// batch of records to produce and the next source offset after it (-1:
// none), and done with the file's rows (as its manifest counts them) on
// the last batch of each file it reads (which may be empty). It counts what it leaves out, and stops at a transaction still
// open. Every row it reads is held to its file's manifest entry
// (catalog.RowCheck) before anything of its batch is emitted: a file that
// contradicts it ends the scan with a *catalog.RowError before the file's
// done. Before it hands over a file's first batch it enters gate (nil:
// none), so no transaction commits part of a file not yet read through.
func scanPlan(ctx context.Context, dir *catalog.Dir, pl *restorePlan, to string, gate *fileGate, emit func(recs []*kgo.Record, next int64, done bool, fileRows int64) error) error {
	p := pl.part
	if p.From >= p.Until {
		return nil
	}
	errStop := errors.New("stop")
	part := pl.m.Partition // the folder's, never a row's column
	for _, f := range pl.m.Files {
		if f.LastOffset < p.From || f.FirstOffset >= p.Until {
			continue
		}
		if err := gate.enter(ctx, f.Records); err != nil {
			return err
		}
		check := catalog.NewRowCheck(pl.m.TP(), f)
		err := catalog.ScanDataFileColumnsReused(ctx, dir.FilePath(pl.m.TP(), f.Name), 2048, restoreColumns, func(rows []catalog.Row) error {
			// One allocation for the batch's records, one for their
			// headers: the producer holds them until they are acknowledged.
			recs := make([]*kgo.Record, 0, len(rows))
			slab := make([]kgo.Record, len(rows))
			nh := 0
			for i := range rows {
				nh += len(rows[i].Headers)
			}
			hslab := make([]kgo.RecordHeader, nh)
			next := int64(-1)
			past := false // a row at or after p.Until: the rest is not read
			for i := range rows {
				row := &rows[i]
				if err := check.Row(row.Partition, row.Offset); err != nil {
					return err
				}
				if row.Offset < p.From {
					continue
				}
				if row.Offset >= p.Until {
					past = true
					break
				}
				ok, decided := catalog.Committed(row, pl.markers)
				if !decided {
					p.OpenAt = row.Offset
					break
				}
				next = row.Offset + 1
				switch {
				case row.Control:
					p.Markers++
					continue
				case !ok:
					p.Aborted++
					continue
				}
				r := &slab[len(recs)]
				*r = kgo.Record{Topic: to, Partition: part, Key: row.Key, Value: row.Value, Timestamp: time.UnixMilli(row.Timestamp)}
				if n := len(row.Headers); n > 0 {
					r.Headers, hslab = hslab[:n:n], hslab[n:]
					for j, h := range row.Headers {
						r.Headers[j] = kgo.RecordHeader{Key: h.Key, Value: h.Value}
					}
				}
				recs = append(recs, r)
				p.Records++
				p.Bytes += int64(len(row.Key) + len(row.Value))
			}
			if next >= 0 {
				if err := emit(recs, next, false, 0); err != nil {
					return err
				}
			}
			if past || p.OpenAt >= 0 || next >= p.Until {
				return errStop
			}
			return nil
		})
		stopped := errors.Is(err, errStop)
		if err == nil || stopped && check.AtEnd() {
			// Read to its end: its last offset and row count.
			if err := check.End(); err != nil {
				return err
			}
		}
		if err != nil && !stopped {
			return err
		}
		if err := emit(nil, -1, true, f.Records); err != nil {
			return err
		}
		if stopped {
			return nil
		}
	}
	return nil
}

// batch is one partition's records a reader hands the producer, and the
// next source offset after them (-1: no progress); the last batch of a
// data file is done, with the file's rows in fileRows.
type batch struct {
	partition int32
	recs      []*kgo.Record
	next      int64
	done      bool
	fileRows  int64
}

// fileGate keeps a transaction from committing part of a data file not
// yet read to its end. A file's rows are checked as they are read, so a
// file that turns out to contradict its manifest (catalog.RowError) may
// already have records in the open transaction: the restore then aborts
// it, and nothing of that file reaches a read_committed consumer, nor
// does the progress pass its start. A commit that is due shuts the gate
// (so do --txn-records records handed over since it last opened, so that
// readers running ahead do not fill a transaction with whole files):
// readers finish the files they are in, enter no other, and the commit
// happens when the producer has taken the last batch of every open file;
// then the gate opens again. At most maxOpenFiles files of a share, of
// at most maxOpenRows rows in all (or one file of more), are open at once,
// so a transaction holds at most that much past --txn-records or
// --txn-interval: with the dump's 512k-row files, seconds of producing,
// well within the 60 s transaction timeout.
type fileGate struct {
	mu       sync.Mutex
	open     int           // files entered whose last batch the producer has not taken
	openRows int64         // their rows
	shut     bool          // a commit is due: no reader enters another file
	limit    int64         // records handed over that shut the gate too (--txn-records)
	handed   int64         // records handed over since the gate last opened
	changed  chan struct{} // closed, and replaced, when a reader may get in
}

// maxOpenFiles and maxOpenRows bound what a share reads at once: enough
// readers to keep a producer fed, few enough to bound a transaction.
const (
	maxOpenFiles = 8
	maxOpenRows  = 4 << 20
)

func newFileGate(txnRecords int) *fileGate {
	return &fileGate{limit: int64(txnRecords), changed: make(chan struct{})}
}

// enter waits while the gate is shut, or --txn-records records were
// handed over since it opened, or maxOpenFiles files are open, or a file
// of rows more would pass maxOpenRows (a larger file waits until none is
// open), then counts the file as open. A nil gate lets every
// file in.
func (g *fileGate) enter(ctx context.Context, rows int64) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		if !g.shut && g.handed < g.limit && g.open < maxOpenFiles && (g.open == 0 || g.openRows+rows <= maxOpenRows) {
			g.open++
			g.openRows += rows
			g.mu.Unlock()
			return nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wake lets the waiting readers try again; g.mu is held.
func (g *fileGate) wake() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// hand counts n records a reader handed over.
func (g *fileGate) hand(n int) {
	g.mu.Lock()
	g.handed += int64(n)
	g.mu.Unlock()
}

// done: the producer took the last batch of an open file of rows.
func (g *fileGate) done(rows int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	g.openRows -= rows
	g.wake()
}

// shutIdle shuts the gate and reports whether no file is open.
func (g *fileGate) shutIdle() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut = true
	return g.open == 0
}

// openAgain opens the gate after a commit and lets the waiting readers
// in.
func (g *fileGate) openAgain() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut, g.handed = false, 0
	g.wake()
}

// produceAll shares the partitions out among the producers, by the rows
// each has to read, and runs produceSome for each share at once. The
// first error stops them all; each aborts its open transaction.
func produceAll(ctx context.Context, dir *catalog.Dir, producers []*kgo.Client, opts RestoreOptions, t target, plans []*restorePlan, sum *RestoreSummary) error {
	shares := shareOut(plans, len(producers), func(pl *restorePlan) int64 { return pl.count(dir) })
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(producers))
	sums := make([]RestoreSummary, len(producers))
	var wg sync.WaitGroup
	for i, cl := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = produceSome(pctx, dir, cl, RestoreTxnID(opts.ToTopic, i), opts, t, shares[i], &sums[i])
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, s := range sums {
		sum.Records += s.Records
		sum.Bytes += s.Bytes
		sum.Transactions += s.Transactions
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The error that stopped the others, not their being stopped.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}

// shareOut splits plans into n shares of about equal weight, the
// heaviest first to the lightest share, each share in partition order.
func shareOut(plans []*restorePlan, n int, weight func(*restorePlan) int64) [][]*restorePlan {
	type weighed struct {
		pl *restorePlan
		w  int64
	}
	byWeight := make([]weighed, len(plans))
	for i, pl := range plans {
		byWeight[i] = weighed{pl, weight(pl)}
	}
	slices.SortStableFunc(byWeight, func(a, b weighed) int { return cmp.Compare(b.w, a.w) })
	shares := make([][]*restorePlan, n)
	load := make([]int64, n)
	for _, x := range byWeight {
		least := 0
		for i := range load {
			if load[i] < load[least] {
				least = i
			}
		}
		shares[least] = append(shares[least], x.pl)
		load[least] += x.w
	}
	for _, sh := range shares {
		slices.SortFunc(sh, func(a, b *restorePlan) int { return cmp.Compare(a.m.Partition, b.m.Partition) })
	}
	return shares
}

// produceSome runs a reader goroutine per partition of its share and
// produces what they read with one producer in transactions, each
// committing the progress of its partitions with its records.
func produceSome(ctx context.Context, dir *catalog.Dir, cl *kgo.Client, txnID string, opts RestoreOptions, t target, plans []*restorePlan, sum *RestoreSummary) error {
	if len(plans) == 0 {
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan batch, 2*len(plans))
	gate := newFileGate(opts.TxnRecords)
	var wg sync.WaitGroup
	errc := make(chan error, len(plans))
	for _, pl := range plans {
		if opts.Progress != nil {
			opts.Progress.Start(catalog.TopicPartition{Topic: opts.ToTopic, Partition: pl.m.Partition}, 0, pl.count(dir))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := scanPlan(rctx, dir, pl, opts.ToTopic, gate, func(recs []*kgo.Record, next int64, done bool, fileRows int64) error {
				select {
				case batches <- batch{partition: pl.m.Partition, recs: recs, next: next, done: done, fileRows: fileRows}:
					gate.hand(len(recs))
					return nil
				case <-rctx.Done():
					return rctx.Err()
				}
			})
			if err != nil && rctx.Err() == nil {
				errc <- err
				cancel()
			}
		}()
	}
	go func() { wg.Wait(); close(batches) }()
	// Whatever happens below, the readers are stopped and waited for.
	defer func() {
		cancel()
		for range batches {
		}
	}()

	p := &txnProducer{cl: cl, txnID: txnID, opts: opts, t: t, sum: sum, next: map[int32]int64{}, counts: map[int32][2]int64{}}
	p.promise = func(_ *kgo.Record, err error) {
		if err != nil {
			p.produceErr.CompareAndSwap(nil, &err)
		}
	}
	if err := cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin a transaction: %w", err)
	}
	tick := time.NewTicker(opts.TxnInterval)
	defer tick.Stop()
	// due: a commit is due and waits for the open files' last batches.
	due := false
	commitWhenIdle := func() error {
		if !gate.shutIdle() {
			due = true
			return nil
		}
		due = false
		err := p.commit(ctx, true)
		gate.openAgain()
		return err
	}
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				select {
				case err := <-errc:
					p.abort(ctx)
					return err
				default:
				}
				if ctx.Err() != nil {
					p.abort(ctx)
					return ctx.Err()
				}
				return p.commit(ctx, false)
			}
			p.produce(ctx, b)
			if b.done {
				gate.done(b.fileRows)
			}
			if due || p.pending >= opts.TxnRecords {
				if err := commitWhenIdle(); err != nil {
					return err
				}
			}
		case <-tick.C:
			if err := commitWhenIdle(); err != nil {
				return err
			}
		case <-ctx.Done():
			p.abort(ctx)
			return ctx.Err()
		}
	}
}

// count is the number of stored rows in the planned range, for a progress
// bar's total (the records produced are fewer by markers and aborted ones).
func (pl *restorePlan) count(*catalog.Dir) int64 {
	var n int64
	for _, f := range pl.m.Files {
		if f.LastOffset >= pl.part.From && f.FirstOffset < pl.part.Until {
			n += f.Records - f.ControlRecords
		}
	}
	return n
}

// txnProducer is the producing side of a restore: one open transaction at
// a time.
type txnProducer struct {
	cl         *kgo.Client
	txnID      string
	opts       RestoreOptions
	t          target
	sum        *RestoreSummary
	promise    func(*kgo.Record, error)
	produceErr atomic.Pointer[error]

	pending int                // records produced in the open transaction
	next    map[int32]int64    // source offset after the last record read, per partition
	counts  map[int32][2]int64 // records and bytes in the open transaction, per partition
}

func (p *txnProducer) produce(ctx context.Context, b batch) {
	c := p.counts[b.partition]
	for _, r := range b.recs {
		p.cl.Produce(ctx, r, p.promise)
		c[1] += int64(len(r.Key) + len(r.Value))
	}
	c[0] += int64(len(b.recs))
	p.counts[b.partition] = c
	p.pending += len(b.recs)
	if b.next >= 0 {
		p.next[b.partition] = b.next
	}
}

// commit flushes the open transaction's records, adds the progress to it
// and commits it; with again, it begins the next one. A transaction that
// produced nothing is left open (a transaction of offsets alone does not
// end through kgo): its progress goes with the next records, or is read
// past again by the next run.
func (p *txnProducer) commit(ctx context.Context, again bool) error {
	if p.pending == 0 {
		if !again {
			p.abort(ctx)
		}
		return nil
	}
	// The commit is not cut short by Ctrl-C: a commit's outcome must be
	// known to the next run, and it takes milliseconds.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	who := principal(p.opts.Conn)
	if err := p.cl.Flush(cctx); err != nil {
		p.abort(ctx)
		return restoreErr(ctx, "produce", who, p.opts.ToTopic, p.txnID, err)
	}
	if perr := p.produceErr.Load(); perr != nil {
		p.abort(ctx)
		return restoreErr(ctx, "produce", who, p.opts.ToTopic, p.txnID, *perr)
	}
	if err := p.commitProgress(cctx); err != nil {
		p.abort(ctx)
		return restoreErr(ctx, "commit the progress", who, p.opts.ToTopic, p.txnID, err)
	}
	if err := p.cl.EndTransaction(cctx, kgo.TryCommit); err != nil {
		p.abort(ctx)
		return restoreErr(ctx, "commit a transaction", who, p.opts.ToTopic, p.txnID, err)
	}
	p.sum.Transactions++
	for part, c := range p.counts {
		p.sum.Records += c[0]
		p.sum.Bytes += c[1]
		if p.opts.Progress != nil {
			p.opts.Progress.Advance(catalog.TopicPartition{Topic: p.opts.ToTopic, Partition: part}, c[0], c[1])
		}
	}
	clear(p.counts)
	p.pending = 0
	if !again {
		return nil
	}
	if err := p.cl.BeginTransaction(); err != nil {
		return fmt.Errorf("begin a transaction: %w", err)
	}
	return nil
}

// commitProgress adds the next source offset of every partition read so
// far to the open transaction, as offsets of group RestoreID(target).
func (p *txnProducer) commitProgress(ctx context.Context) error {
	id, epoch, err := p.cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	group := RestoreID(p.opts.ToTopic)
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = p.txnID, id, epoch, group
	aresp, err := add.RequestWith(ctx, p.cl)
	if err != nil {
		return err
	}
	if err := kerr.ErrorForCode(aresp.ErrorCode); err != nil {
		return err
	}
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = p.txnID, group, id, epoch
	req.Generation, req.MemberID = -1, ""
	meta := progressMeta(p.opts.Topic, p.t.id)
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic, rt.TopicID = p.opts.ToTopic, p.t.id // the name up to v5, the id from v6
	for part, next := range p.next {
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset, rp.Metadata = part, next, &meta
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, p.cl)
	if err != nil {
		return err
	}
	for _, t := range resp.Topics {
		for _, pr := range t.Partitions {
			if err := kerr.ErrorForCode(pr.ErrorCode); err != nil {
				return fmt.Errorf("partition %d: %w", pr.Partition, err)
			}
		}
	}
	return nil
}

// abort ends the open transaction without committing it, so the target's
// read_committed consumers need not wait for the transaction timeout. It
// is best effort: a run that cannot abort leaves it to the broker (after
// the transaction timeout) or to the next run, which fences it.
// It runs after the caller's ctx was cancelled too (Ctrl-C), so it keeps
// ctx's values but not its cancellation, bounded by its own 10 s.
func (p *txnProducer) abort(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.cl.AbortBufferedRecords(ctx); err == nil {
		_ = p.cl.EndTransaction(ctx, kgo.TryAbort)
	}
}

// restoreErr names what failed: a fence by another restore, an
// authorization, or the broker's error.
func restoreErr(ctx context.Context, what, who, topic, txnID string, err error) error {
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return ctx.Err()
	}
	if errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) {
		return fmt.Errorf("%s: %w: another topicsnap restore into %s started and took over its transactional id %s: %v", what, ErrFenced, topic, txnID, err)
	}
	if errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		ids := strings.Join(RestoreTxnIDs(topic), " and ")
		return &AuthzError{Principal: who, Action: fmt.Sprintf("use transactional id %q", txnID), Topic: topic,
			Ops: "WRITE (and WRITE and DESCRIBE on transactional ids " + ids + " or the prefix " + RestoreID(topic) + ", READ on group " + RestoreID(topic) + ")", Err: err, Restore: true}
	}
	if ae := deniedErr(who, what+" to topic "+strconv.Quote(topic), topic, "WRITE and DESCRIBE", err); ae != nil {
		return ae
	}
	return fmt.Errorf("%s: %w", what, classify(err))
}

// deniedErr turns an authorization failure into an AuthzError; nil if err
// is not one.
func deniedErr(who, action, topic, ops string, err error) error {
	if !isAuthz(err) {
		return nil
	}
	return &AuthzError{Principal: who, Action: action, Topic: topic, Ops: ops, Err: err, Restore: true}
}
