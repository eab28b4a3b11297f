package restore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// producerCount is how many transactional producers a restore runs,
// each producing its own share of the partitions in its own transactions
// over its own connections: on a broker that leads many partitions, one
// producer's requests are handled one at a time (Kafka reads a
// connection's next request only after answering the last) and its
// batches compressed by one goroutine; two keep two cores busy. It is a
// constant, not an option: a run must fence every transactional id an
// earlier run into the same target may have left a transaction open on.
const producerCount = 2

// producerMetadataMinAge is the least time between two metadata requests
// of a producer (franz-go's MetadataMinAge, 5 s by default). A producer
// asks again only when a produce was refused (a partition's leader moved,
// a topic not yet led): the refused records wait for that answer, so a
// restore stalled 5 s each time. The Java producer retries after
// retry.backoff.ms, 100 ms by default.
const producerMetadataMinAge = 250 * time.Millisecond

// TxnID is the transactional id of a restore's producer i (0 to
// producerCount-1) into target: ID(target), then
// ID(target)-1, ...
func TxnID(target string, i int) string {
	if i == 0 {
		return ID(target)
	}
	return fmt.Sprintf("%s-%d", ID(target), i)
}

// TxnIDs are the transactional ids of every producer of a restore
// into target, for ACLs and messages.
func TxnIDs(target string) []string {
	ids := make([]string, producerCount)
	for i := range ids {
		ids[i] = TxnID(target, i)
	}
	return ids
}

// batch is one partition's records a reader hands the producer, and the
// next source offset after them (-1: no progress); the last batch of a
// data file is done, with the file's rows in fileRows.
type batch struct {
	partition int32
	recs      []*kgo.Record
	mem       *batchMem // the records' memory, nil: not recycled
	next      int64
	done      bool
	fileRows  int64
}

// start is what the producers wait for before their first record: the
// target made ready (created and led) by Run's prepare, which runs while
// the readers already read. done is closed when it has run, err is its
// error.
type start struct {
	done chan struct{}
	err  error
}

// testPrefetched, when a test sets it, is called by each producer with
// the records its readers have read ahead, each time it holds another
// batch before the target is ready.
var testPrefetched func(records int)

// errNotStarted: the producer stopped because prepare failed.
var errNotStarted = errors.New("the target was not made ready")

// prefetchRecords and prefetchBytes bound, per producer, what its readers
// read ahead while prepare runs (creating the target and waiting for its
// leaders: 40-200 ms in which the CPU was idle): as much as the producer
// itself buffers (kgo.MaxBufferedRecords).
const (
	prefetchRecords = 64 * 1024
	prefetchBytes   = 16 << 20
)

// produceAll shares the partitions out among the producers, by the rows
// each has to read, and runs produceSome for each share at once. The
// first error stops them all; each aborts its open transaction. prepare
// (nil: none) makes t ready, the readers reading meanwhile: nothing is
// produced, nor t read, before it returned, and its error is the run's.
func produceAll(ctx context.Context, dir *catalog.Dir, producers []*kgo.Client, opts Options, t *target, plans []*plan, sum *Summary, prepare func(context.Context) error) error {
	shares := shareOut(plans, len(producers), func(pl *plan) int64 { return pl.count(dir) })
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := &start{done: make(chan struct{})}
	go func() {
		defer close(st.done)
		if prepare != nil {
			st.err = prepare(pctx)
		}
	}()
	errs := make([]error, len(producers))
	sums := make([]Summary, len(producers))
	var wg sync.WaitGroup
	for i, cl := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = produceSome(pctx, dir, cl, TxnID(opts.ToTopic, i), opts, st, t, shares[i], &sums[i])
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	<-st.done
	for _, s := range sums {
		sum.Records += s.Records
		sum.Bytes += s.Bytes
		sum.Transactions += s.Transactions
	}
	if st.err != nil {
		return st.err
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

// produceSome runs a reader goroutine per partition of its share and
// produces what they read with one producer in transactions, each
// committing the progress of its partitions with its records. Until st
// is done it holds what the readers read, up to prefetchRecords and
// prefetchBytes, produces nothing and does not read t.
func produceSome(ctx context.Context, dir *catalog.Dir, cl *kgo.Client, txnID string, opts Options, st *start, t *target, plans []*plan, sum *Summary) error {
	if len(plans) == 0 {
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan batch, 2*len(plans))
	gate := newFileGate(opts.TxnRecords)
	pool := &memPool{}
	var wg sync.WaitGroup
	errc := make(chan error, len(plans))
	for _, pl := range plans {
		if opts.Progress != nil {
			opts.Progress.Start(catalog.TopicPartition{Topic: opts.ToTopic, Partition: pl.m.Partition}, 0, pl.count(dir))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := scanPlan(rctx, dir, pl, opts.ToTopic, gate, pool, func(recs []*kgo.Record, mem *batchMem, next int64, done bool, fileRows int64) error {
				select {
				case batches <- batch{partition: pl.m.Partition, recs: recs, mem: mem, next: next, done: done, fileRows: fileRows}:
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

	// Read ahead while the target is made ready; a reader's error waits
	// for it too, as it did when the readers started after it.
	var early []batch
	ended := false // every reader is done: batches is closed
	held, heldBytes := 0, 0
	for waiting := true; waiting; {
		in := batches
		if ended || held >= prefetchRecords || heldBytes >= prefetchBytes {
			in = nil
		}
		select {
		case <-st.done:
			waiting = false
		case b, ok := <-in:
			if !ok {
				ended = true
				continue
			}
			early = append(early, b)
			held += len(b.recs)
			for _, r := range b.recs {
				heldBytes += len(r.Key) + len(r.Value)
			}
			if testPrefetched != nil {
				testPrefetched(held)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if st.err != nil {
		return errNotStarted
	}

	p := &txnProducer{cl: cl, txnID: txnID, opts: opts, t: *t, sum: sum, next: map[int32]int64{}, counts: map[int32][2]int64{}}
	p.promise = p.acked
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
	take := func(b batch) error {
		p.produce(ctx, b)
		if b.done {
			gate.done(b.fileRows)
		}
		if due || p.pending >= opts.TxnRecords {
			return commitWhenIdle()
		}
		return nil
	}
	// ended: every batch was read; the readers' error, if any, or the
	// last commit.
	end := func() error {
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
	for i := range early {
		if err := take(early[i]); err != nil {
			return err
		}
		early[i] = batch{} // produced: the producer holds its records now
	}
	if ended {
		return end()
	}
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				return end()
			}
			if err := take(b); err != nil {
				return err
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

// txnProducer is the producing side of a restore: one open transaction at
// a time.
type txnProducer struct {
	cl         *kgo.Client
	txnID      string
	opts       Options
	t          target
	sum        *Summary
	promise    func(*kgo.Record, error)
	produceErr atomic.Pointer[error]

	known   bool               // the client has loaded the target's partitions
	pending int                // records produced in the open transaction
	next    map[int32]int64    // source offset after the last record read, per partition
	counts  map[int32][2]int64 // records and bytes in the open transaction, per partition
}

// acked is the promise of every record produced: it keeps the first
// error. A record acknowledged without one allocates nothing (a promise
// that took the address of its err parameter made every call allocate
// it: a million allocations a million records).
func (p *txnProducer) acked(_ *kgo.Record, err error) {
	if err != nil {
		first := err
		p.produceErr.CompareAndSwap(nil, &first)
	}
}

func (p *txnProducer) produce(ctx context.Context, b batch) {
	c := p.counts[b.partition]
	promise := p.promise
	if b.mem != nil {
		b.mem.p = p
		promise = b.mem.acked
	}
	for _, r := range b.recs {
		// Read before it is produced: from then on the record is the
		// client's (it sets the record's partition, and once the batch
		// is acknowledged its memory may be another batch's).
		c[1] += int64(len(r.Key) + len(r.Value))
		topic, part := r.Topic, r.Partition
		p.cl.Produce(ctx, r, promise)
		if !p.known {
			p.known = true
			waitPartitions(ctx, p.cl, topic, part)
		}
	}
	c[0] += int64(len(b.recs))
	p.counts[b.partition] = c
	p.pending += len(b.recs)
	if b.next >= 0 {
		p.next[b.partition] = b.next
	}
}

// partitionsWait bounds waitPartitions.
const partitionsWait = 2 * producerMetadataMinAge

// waitPartitions waits, after a producer's first record, until its client
// has loaded topic's partitions (the leader of partition, or an error
// loading it), at most partitionsWait. A producer learns a topic's
// partitions from the metadata its first record asks for; every record
// produced meanwhile was kept in a list of records of a topic not yet
// known, asked for metadata again and was partitioned later: up to the
// producer's whole buffer (64k records) each run, ~5% of a 1M-record
// restore's CPU. The wait is one metadata request (milliseconds).
func waitPartitions(ctx context.Context, cl *kgo.Client, topic string, partition int32) {
	deadline := time.Now().Add(partitionsWait)
	for {
		if leader, _, err := cl.PartitionLeader(topic, partition); leader >= 0 || err != nil {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Millisecond):
		}
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
	// The records' acknowledgements are waited for until Ctrl-C, or until
	// the cluster has been out of reach for Options.WaitUnreachable
	// (watchReach cancels ctx): a broker that does not answer (hung, not
	// down) holds a flush, and an interrupted flush aborts the
	// transaction, whose records the next run produces again. The commit
	// itself is not cut short by Ctrl-C (it takes milliseconds), only by
	// that bound: a broker that holds an EndTxn held the run for the
	// client's retry timeout (30 s) past it. Cut short, the commit's
	// outcome is the broker's to decide; the next run's fence waits for
	// it and reads the progress it left, so every record is still once.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		var ue *UnreachableError
		if errors.As(context.Cause(ctx), &ue) {
			cancel()
		}
	})
	defer stop()
	who := kafkaconn.Principal(ctx, p.opts.Conn)
	fail := func(what string, err error) error {
		p.abort(ctx)
		if gerr := targetGone(ctx, p.cl, p.opts.ToTopic, p.t.id, err); gerr != nil {
			return fmt.Errorf("%s: %w", what, gerr)
		}
		return restoreErr(ctx, what, who, p.opts.ToTopic, p.txnID, err)
	}
	if err := p.cl.Flush(ctx); err != nil {
		return fail("produce", err)
	}
	if perr := p.produceErr.Load(); perr != nil {
		return fail("produce", *perr)
	}
	if err := p.commitProgress(cctx); err != nil {
		return fail(whatProgress, err)
	}
	if err := p.cl.EndTransaction(cctx, kgo.TryCommit); err != nil {
		return fail("commit a transaction", err)
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
// far to the open transaction, as offsets of group ID(target).
func (p *txnProducer) commitProgress(ctx context.Context) error {
	id, epoch, err := p.cl.ProducerID(ctx)
	if err != nil {
		return err
	}
	group := ID(p.opts.ToTopic)
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
