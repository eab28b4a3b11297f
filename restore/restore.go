package restore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// Run produces the committed data records of opts.Topic in opts.Dir
// into opts.ToTopic, each to its own partition number, exactly once: a
// transactional producer commits, with each batch of records, the next
// source offset of every partition as the offsets of the consumer group
// ID(target) on the target, in the same transaction. A run killed
// at any instant leaves its last transaction open; the next run's producer
// (the same transactional id) fences it, the broker aborts it, and the run
// continues after the committed progress.
func Run(ctx context.Context, opts Options) (sum Summary, err error) {
	start := time.Now()
	explicit := opts.ToTopic != "" // --to-topic named, even the source's own name
	if opts.ToTopic == "" {
		opts.ToTopic = opts.Topic
	}
	if opts.TxnRecords <= 0 {
		opts.TxnRecords = 500_000
	}
	if opts.TxnInterval <= 0 {
		opts.TxnInterval = time.Second
	}
	sum = Summary{Source: opts.Topic, Target: opts.ToTopic, DryRun: opts.DryRun}
	if opts.Topic == "" {
		return sum, exit.Errorf(kafkaconn.ErrBadOption, "name the topic to restore with --topic")
	}
	if !catalog.ValidTopicName(opts.ToTopic) {
		return sum, exit.Errorf(kafkaconn.ErrBadOption, "--to-topic %q is not a valid topic name", opts.ToTopic)
	}
	codec, err := restoreCodec(opts.Compression)
	if err != nil {
		return sum, err
	}
	parts, err := kafkaconn.ParsePartitions(opts.Partitions)
	if err != nil {
		return sum, err
	}
	from, until, err := restorePositions(opts.From, opts.Until)
	if err != nil {
		return sum, err
	}
	dir, err := catalog.OpenAt(ctx, opts.Dir, catalog.S3Config{})
	if err != nil {
		return sum, err
	}
	src, err := readSource(ctx, dir, opts.Topic)
	if err != nil {
		return sum, err
	}
	var plans []*plan
	for _, m := range src.manifests {
		if parts == nil || parts[m.Partition] {
			plans = append(plans, &plan{m: m, part: &Partition{Partition: m.Partition, OpenAt: -1}})
		}
	}
	if err := checkRestorePartitions(opts, parts, src); err != nil {
		return sum, err
	}
	for _, pl := range plans {
		// A FIFO or a device in a data file's place would hang its
		// reader: refused before anything is created or produced.
		for _, f := range pl.m.Files {
			if err := dir.CheckDataFileKind(ctx, pl.m.TP(), f.Name); err != nil {
				return sum, err // names the file
			}
		}
	}

	cl, adm, err := kafkaconn.Connect(ctx, opts.Conn)
	if err != nil {
		return sum, err
	}
	defer cl.Close()
	who := kafkaconn.Principal(ctx, opts.Conn)
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
	// How a missing target would be created, and what that adjusts; a
	// target that exists is not created, so its plan says nothing.
	planWarn := warn
	if target.exists {
		planWarn = func(string) {}
	}
	configs, rf, how := createPlan(src, target.brokers, planWarn)
	if target.exists {
		if target.logAppendTime {
			warn(fmt.Sprintf("topic %s has message.timestamp.type=LogAppendTime: the broker stamps restored records with its own time instead of the snapshot's", opts.ToTopic))
		}
	} else {
		// The limits the topic will have: the broker says, for these
		// configs, without creating it; the snapshot's timestamps widen
		// its window where they need it.
		target.limits = limitsOf(func(k string) (string, bool) {
			if v := configs[k]; v != nil {
				return *v, true
			}
			return "", false
		})
		target.limits.known = true
		if rs, err := adm.ValidateCreateTopics(ctx, int32(src.partitions), int16(rf), configs, opts.ToTopic); err == nil {
			if r, ok := rs[opts.ToTopic]; ok && r.Err == nil && len(r.Configs) > 0 {
				target.limits = limitsOf(func(k string) (string, bool) {
					if c, ok := r.Configs[k]; ok && c.Value != nil {
						return *c.Value, true
					}
					return "", false
				})
			}
		}
		if shown := widenWindow(src, configs, &target.limits, warn); len(shown) > 0 {
			how += ", " + strings.Join(shown, ", ")
		}
		sum.Created, sum.CreatePlan = true, fmt.Sprintf("%d partitions, %s", src.partitions, how)
	}

	var producers []*kgo.Client
	// From the producers on, a cluster out of reach for
	// opts.WaitUnreachable ends the run (exit 3) with what it committed:
	// watchReach cancels ctx with an UnreachableError, which the run
	// returns in place of the cancellation it caused.
	var clocks []*reachClock
	ctx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	defer func() {
		var ue *UnreachableError
		if err != nil && errors.As(context.Cause(ctx), &ue) {
			err = ue
		}
	}()
	if !opts.DryRun {
		// The transactional ids are the target's: the first request of
		// each producer fences every earlier one of its id, and the broker
		// aborts (or, if it was deciding to commit, completes) the
		// transaction a killed run left open, before the progress below
		// is read. Every run starts all producerCount of them, whatever
		// partitions it restores, so no earlier run's transaction stays
		// open behind this one.
		for i := range producerCount {
			clock := &reachClock{}
			copts := []kgo.Opt{
				kgo.TransactionalID(TxnID(opts.ToTopic, i)),
				kgo.TransactionTimeout(60 * time.Second),
				kgo.RecordPartitioner(kgo.ManualPartitioner()),
				codec,
				kgo.ProducerLinger(5 * time.Millisecond),
				// A produce refused because leadership moved waits for
				// the client's next metadata refresh: after 5 s by
				// default, after producerMetadataMinAge here.
				kgo.MetadataMinAge(producerMetadataMinAge),
				kgo.MaxBufferedRecords(64 * 1024),
				// Any record the target takes can be produced: a batch
				// as large as its max.message.bytes (franz-go's default
				// is about 1 MB), and as much buffered.
				kgo.ProducerBatchMaxBytes(target.limits.batchMaxBytes()),
				kgo.BrokerMaxWriteBytes(max(100<<20, 2*target.limits.batchMaxBytes())),
				kgo.MaxBufferedBytes(max(32<<20, 2*int(target.limits.batchMaxBytes()))),
				kafkaconn.WaitHook(opts.Progress),
				kgo.WithHooks(clock),
			}
			cl, err := kafkaconn.NewClient(ctx, opts.Conn, append(copts, testProducerOpts...)...)
			if err != nil {
				return sum, err
			}
			defer cl.Close()
			producers = append(producers, cl)
			clocks = append(clocks, clock)
		}
		go watchReach(ctx, cancelRun, opts.WaitUnreachable, opts.ToTopic, clocks)
		for i, cl := range producers {
			if _, _, err := cl.ProducerID(ctx); err != nil {
				return sum, restoreErr(ctx, "start the transactional producer", who, opts.ToTopic, TxnID(opts.ToTopic, i), err)
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
	sayHoles(opts, src, plans, warn)
	if target.exists && src.snap != nil && src.snap.TopicID != "" && target.id.String() == src.snap.TopicID {
		if err := checkSameTopic(ctx, adm, opts.ToTopic, explicit, plans, warn); err != nil {
			return sum, err
		}
	}
	// Every record is held to the target's limits before anything is
	// created or produced; a dry run's scan is this one.
	if err := checkLimits(ctx, dir, plans, opts.ToTopic, target.limits, !target.exists, opts.DryRun); err != nil {
		return sum, err
	}
	if !opts.DryRun {
		// A target to create is created, and its leaders waited for,
		// while the readers read ahead (the CPU was idle meanwhile);
		// nothing is produced before.
		var prepare func(context.Context) error
		if sum.Created {
			prepare = func(ctx context.Context) error {
				r, err := adm.CreateTopic(ctx, int32(src.partitions), int16(rf), configs, opts.ToTopic)
				if err == nil {
					err = r.Err
				}
				if ae := deniedErr(who, fmt.Sprintf("create topic %q", opts.ToTopic), opts.ToTopic, "CREATE", err); ae != nil {
					return ae
				}
				if err != nil {
					return fmt.Errorf("create topic %s: %w", opts.ToTopic, kafkaconn.Classify(err))
				}
				// The client's metadata of the topic may be older than the
				// topic: the response says what was created.
				target.exists, target.partitions, target.id = true, src.partitions, r.ID
				return waitLeading(ctx, cl, opts.ToTopic, src.partitions)
			}
		}
		if err := produceAll(ctx, dir, producers, opts, &target, plans, &sum, prepare); err != nil {
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
