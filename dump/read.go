package dump

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// item is what the reader hands a partition's writer, in offset order.
type item struct {
	recs []*kgo.Record
	lost *catalog.LostRange
}

// readAll consumes every planned partition up to its end, with one client,
// and a writer goroutine per partition. share (0 to 1) is the part of the
// fetch and row group budgets the topic gets while others are dumped
// beside it (see round).
func (d *dumper) readAll(ctx context.Context, c *cut, plans []*plan, share float64, sum *Summary) error {
	// The writers commit with the run's context: a writer that fails
	// cancels the others' reading, not their commit of what they read.
	commitCtx := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	assign := map[int32]kgo.Offset{}
	writers := map[int32]*writer{}
	var wg sync.WaitGroup
	errc := make(chan error, len(plans))
	var records, bytes, files, lostN, lostOffsets, decoded, decodeErrs, keysDecoded, keyDecodeErrs atomic.Int64
	for _, pl := range plans {
		w := &writer{d: d, c: c, pl: pl, in: make(chan item, 1), fileRows: d.opts.FileRows, fileBytes: d.opts.FileBytes,
			records: &records, bytes: &bytes, files: &files, lostN: &lostN, lostOffsets: &lostOffsets, decoded: &decoded, decodeErrs: &decodeErrs, keysDecoded: &keysDecoded, keyDecodeErrs: &keyDecodeErrs, bare: d.res.Bare(pl.tp.Topic), next: pl.from, readAt: pl.from, groupRows: groupRowsForPlan(pl, groupRowsFor(int(float64(len(plans))/share), d.res != nil))}
		writers[pl.tp.Partition] = w
		if d.opts.Progress != nil {
			d.opts.Progress.Start(pl.tp, pl.from, pl.until)
		}
		if pl.from < pl.until {
			assign[pl.tp.Partition] = kgo.NewOffset().At(pl.from)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.run(ctx, commitCtx); err != nil {
				errc <- err
				cancel()
			}
		}()
	}
	rerr := d.consume(ctx, c, assign, writers, share)
	for _, w := range writers {
		// A read that ended in an error did not reach the cut's end on
		// the partitions it had not finished: their writers commit what
		// they were handed and never record the snapshot as complete.
		if rerr != nil && !w.finished {
			w.stopped = true
		}
		w.close()
	}
	wg.Wait()
	close(errc)
	for _, pl := range plans {
		sum.saw(pl.tp)
	}
	sum.Records += records.Load()
	sum.Bytes += bytes.Load()
	sum.Files += int(files.Load())
	sum.Lost += int(lostN.Load())
	sum.LostOffsets += lostOffsets.Load()
	sum.Decoded += decoded.Load()
	sum.DecodeErrors += decodeErrs.Load()
	sum.KeysDecoded += keysDecoded.Load()
	sum.KeyDecodeErrors += keyDecodeErrs.Load()
	if werr := <-errc; werr != nil {
		return werr
	}
	if rerr != nil {
		return rerr
	}
	// Only a writer that recorded this snapshot in its manifest reached the
	// cut's end: one interrupted after the reader's last hand-off committed
	// what it had, and no more. Then the snapshot is interrupted, whatever
	// the reader saw: its cut, which lists every partition as dumped, is
	// not written (as on any interruption; the next run resumes from the
	// manifests).
	for _, pl := range plans {
		if w := writers[pl.tp.Partition]; !w.complete {
			if err := commitCtx.Err(); err != nil {
				return err
			}
			return fmt.Errorf("%s: its dump ended before the cut's end %d (next offset %d)", pl.tp, pl.until, w.next)
		}
	}
	return nil
}

func (d *dumper) consume(ctx context.Context, c *cut, assign map[int32]kgo.Offset, writers map[int32]*writer, share float64) error {
	if len(assign) == 0 {
		return nil
	}
	topic := c.state.Topic
	fetchMax := d.opts.FetchMaxBytes
	if fetchMax <= 0 {
		fetchMax = 16 << 20
	}
	var extra []kgo.Opt
	if share < 1 {
		// Topics dumped together share the fetch budget, each at least 1 MiB;
		// and one short-lived client a topic among many pushes no client
		// metrics (KIP-714): they cost more than they tell.
		fetchMax = max(int32(float64(fetchMax)*share), min(fetchMax, 1<<20))
		extra = append(extra, kgo.DisableClientMetrics())
	}
	cl, err := kafkaconn.NewClient(ctx, d.conn, append(extra,
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
		kgo.ConsumeResetOffset(kgo.NoResetOffset()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()),
		kgo.KeepControlRecords(),
		kgo.FetchMaxBytes(fetchMax),
		kgo.FetchMaxPartitionBytes(min(fetchMax, 4<<20)),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.MaxDecompressBatchBytes(d.maxDecompressed()),
		kafkaconn.WaitHook(d.opts.Progress),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	// Partitions still to read: counted from the writers each round, so a
	// partition finished on any path (its records, or retention passing
	// its end) is never waited for.
	unfinished := func() int {
		n := 0
		for p := range assign {
			if !writers[p].finished {
				n++
			}
		}
		return n
	}
	// Partitions stopped short on their own (a batch past the decompression
	// cap, a log that went back below what was read): said when the others
	// are read.
	var stopped []error
	var goneChecked time.Time // when the topic's existence was last asked
	// Since when the cluster could not be reached (zero: it answers), and
	// since when a partition still to read has had no leader while it did.
	var down, leaderless downClock
	stop := func(w *writer, err error) {
		w.finished, w.stopped = true, true
		cl.RemoveConsumePartitions(map[string][]int32{topic: {w.pl.tp.Partition}})
		stopped = append(stopped, err)
	}
	for unfinished() > 0 {
		// A poll that brings nothing for stallCheck has the partitions
		// still to read looked at from outside the fetch path (stalled):
		// a log start that passed the read position is recorded as lost
		// and read past, as an out-of-range error would have been.
		pctx, pcancel := context.WithTimeout(ctx, stallCheck)
		fetches := cl.PollFetches(pctx)
		stalled := pctx.Err() != nil
		pcancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if fetches.NumRecords() > 0 {
			down.reset()
		}
		if stalled && fetches.NumRecords() == 0 {
			if err := d.stalled(ctx, cl, c, writers, &down, &leaderless); err != nil {
				return err
			}
			continue
		}
		var ferr error
		var unknown bool
		fetches.EachError(func(t string, p int32, err error) {
			if ferr != nil {
				return
			}
			if errors.Is(err, kerr.UnknownTopicID) || errors.Is(err, kerr.UnknownTopicOrPartition) {
				// The topic deleted (or made again) while it is read, or a
				// broker whose metadata lags: told apart below.
				unknown = true
				return
			}
			var big *kgo.ErrDecompressTooLarge
			if errors.As(err, &big) {
				// The client stopped fetching the partition at the batch:
				// it ends there, what came before it is committed, and
				// the others go on (a zip bomb costs its partition).
				if w := writers[p]; w != nil && !w.finished {
					stop(w, &BatchTooLargeError{TP: w.pl.tp, Offset: big.Offset, NextOffset: big.NextOffset, Limit: d.maxDecompressed()})
				}
				return
			}
			var lost *kgo.ErrDataLoss
			if errors.As(err, &lost) {
				// The leader's log ends below what was read (an unclean
				// election truncated it): the client went back to where
				// it ends, and what it would read there is another
				// history than the one read. The partition stops at what
				// was read; the next run finds the rewrite (rewrite.go).
				if w := writers[p]; w != nil && !w.finished {
					stop(w, &HistoryChangedError{TP: w.pl.tp, ReadTo: w.readAt, EndsAt: lost.ResetTo})
				}
				return
			}
			if errors.Is(err, kerr.OffsetOutOfRange) {
				ferr = d.handleOutOfRange(ctx, cl, c, writers[p])
				return
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				ferr = ctx.Err()
				return
			}
			if ae := d.denied(fmt.Sprintf("read partition %d of topic %q", p, t), t, "READ", err); ae != nil {
				ferr = ae
				return
			}
			cerr := kafkaconn.Classify(err)
			if errors.Is(cerr, kafkaconn.ErrAuthentication) || errors.Is(cerr, kafkaconn.ErrAuthorization) {
				ferr = fmt.Errorf("read %s/%d: %w", t, p, cerr)
				return
			}
			if ferr = d.stillDown(&down, t, cerr); ferr != nil {
				return
			}
			if d.opts.Progress != nil {
				d.opts.Progress.Waiting(fmt.Sprintf("%s/%d: %v (retrying)", t, p, err))
			}
		})
		if ferr == nil && unknown && time.Since(goneChecked) >= time.Second {
			goneChecked = time.Now()
			ferr = d.gone(ctx, c)
		}
		if ferr != nil {
			return ferr
		}
		if fetches.NumRecords() == 0 && len(fetches.Errors()) > 0 {
			// A poll of errors alone (a partition being retried) is
			// polled again after a pause, not at once: the client can
			// answer the same error in a loop.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(errorPause):
			}
		}
		fetches.EachPartition(func(fp kgo.FetchTopicPartition) {
			w := writers[fp.Partition]
			if ferr != nil || w == nil || w.finished || len(fp.Records) == 0 {
				return
			}
			recs := fp.Records
			if recs[0].Offset < w.readAt {
				// Offsets read again: the client went back (a truncation it
				// may not have said); never stored twice.
				stop(w, &HistoryChangedError{TP: w.pl.tp, ReadTo: w.readAt, EndsAt: recs[0].Offset})
				return
			}
			// Keep only offsets below the cut; anything later is the next snapshot's.
			n := sort.Search(len(recs), func(i int) bool { return recs[i].Offset >= w.pl.until })
			done := n < len(recs) || (n > 0 && recs[n-1].Offset >= w.pl.until-1)
			beforeHandOff(w.pl.tp, done)
			if n > 0 {
				select {
				case w.in <- item{recs: recs[:n]}:
				case <-ctx.Done():
					// Interrupted: the batch is not handed over, so its
					// partition did not reach the cut's end; it is never
					// counted finished (G5: the last batches dropped here
					// ended the loop as if every partition were read).
					ferr = ctx.Err()
					return
				}
				w.readAt = recs[n-1].Offset + 1
			}
			if done {
				w.finished = true
				cl.RemoveConsumePartitions(map[string][]int32{topic: {fp.Partition}})
			}
		})
		if ferr != nil {
			return ferr
		}
	}
	return errors.Join(stopped...)
}

// HistoryChangedError is a partition whose log, while it was read, went
// back below what had been read: an unclean leader election truncated it
// (or the client was sent back for another reason). What was read is
// committed; nothing after it is, and nothing is stored twice.
type HistoryChangedError struct {
	TP     catalog.TopicPartition
	ReadTo int64 // the next offset to read when it happened
	EndsAt int64 // where the leader says the log now ends (or the offset read again)
	// Recorded is set once the rewritten offsets are recorded in the
	// manifest (recordChangedHistory), as the next run would have.
	Recorded bool
}

func (e *HistoryChangedError) Error() string {
	msg := fmt.Sprintf("%s: while it was read, its leader said the log ends at offset %d, below offset %d the dump had read to: its history changed under the dump (an unclean leader election truncates a log); the partition is dumped up to offset %d, and nothing is stored twice",
		e.TP, e.EndsAt, e.ReadTo, e.ReadTo)
	if e.Recorded {
		msg += "; the offsets Kafka no longer holds are recorded as rewritten, their records kept (check gaps, check durability)"
	}
	return msg
}

func (e *HistoryChangedError) ExitCode() exit.Code { return exit.Error }

func (e *HistoryChangedError) Hint() string {
	if e.Recorded {
		return "run the dump again: it dumps Kafka's history as it is now, beside the records of the old one"
	}
	return "run the dump again: it finds the rewritten offsets against what it dumped, keeps both histories and says so (check gaps, check durability)"
}

// errorPause is how long a poll that brought only errors waits before the
// next.
var errorPause = 250 * time.Millisecond

// The hints of a topic deleted under the dump: ErrUnknownTopic's ("list
// the cluster's topics and pass one with --topic") is for a name mistyped.
const (
	goneHint   = "the topic was deleted from the cluster, so there is nothing to name instead: what the folder holds of it stays (topicsnap ls), and the next dump reads a topic made again under its name as a new one"
	remadeHint = "run the same command again: it dumps the new topic of the name, and the old one's records stay in the folder as its superseded history (check gaps)"
)

// gone returns ErrUnknownTopic when the topic being read is no longer the
// cluster's: deleted, or made again under its name (another topic id).
// What cannot be asked (the cluster unreachable) is not taken for gone.
func (d *dumper) gone(ctx context.Context, c *cut) error {
	topic := c.state.Topic
	md, err := d.adm.Metadata(ctx, topic)
	if err != nil {
		return nil
	}
	td, ok := md.Topics[topic]
	switch {
	case !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition):
		return exit.With(fmt.Errorf("%w: topic %q was deleted while it was read: what was read of it is committed, and nothing is recorded as dumped past it", kafkaconn.ErrUnknownTopic, topic), exit.UnknownTopic, goneHint)
	case td.Err == nil && c.state.TopicID != "" && td.ID != (kadm.TopicID{}) && td.ID.String() != c.state.TopicID:
		return exit.With(fmt.Errorf("%w: topic %q was deleted and made again while it was read (its topic id changed): what was read of the old topic is committed; the next dump finds the new one", kafkaconn.ErrUnknownTopic, topic), exit.UnknownTopic, remadeHint)
	}
	return nil
}

// maxDecompressed is the bound on what one fetched batch may decompress to.
func (d *dumper) maxDecompressed() int {
	if d.opts.MaxDecompressedBytes > 0 {
		return d.opts.MaxDecompressedBytes
	}
	return DefaultMaxDecompressedBytes
}

// DefaultMaxDecompressedBytes bounds what one batch a dump fetches may
// decompress to (import's default too). A batch of records that compress
// well can pass the broker's max.message.bytes, which bounds the batch as
// sent, and still decompress to gigabytes: the client would hold it, and the
// writer a copy of each record, before a byte is written.
const DefaultMaxDecompressedBytes = 256 << 20

// BatchTooLargeError is a partition whose dump stopped at a batch that
// decompresses past the bound: everything before the batch is committed,
// nothing of it or after it is, and nothing is recorded as lost; the next
// run with a larger bound reads it.
type BatchTooLargeError struct {
	TP                 catalog.TopicPartition
	Offset, NextOffset int64 // the batch's first offset, and the one after it
	Limit              int
}

func (e *BatchTooLargeError) Error() string {
	at := fmt.Sprintf("offsets %d to %d", e.Offset, e.NextOffset-1)
	if e.NextOffset-1 <= e.Offset {
		at = fmt.Sprintf("offset %d", e.Offset)
	}
	return fmt.Sprintf("%s: the batch at %s decompresses to more than %s (the bound on one batch): the partition is dumped up to offset %d, and nothing of the batch or after it is written",
		e.TP, at, units.Bytes(int64(e.Limit)), e.Offset)
}

func (e *BatchTooLargeError) ExitCode() exit.Code { return exit.Error }

func (e *BatchTooLargeError) Hint() string {
	return fmt.Sprintf("run the dump again with --max-decompressed-bytes above the batch's size (%d now; the dump holds about three times one batch in memory): the other partitions are dumped, and this one resumes at offset %d", e.Limit, e.Offset)
}

// beforeHandOff runs on the reader's side before a partition's records are
// handed to its writer; last is true for the batch that reaches the cut's
// end. A no-op; the interruption tests cancel the run's context in it.
var beforeHandOff = func(tp catalog.TopicPartition, last bool) {}

// stallCheck is how long a poll may bring nothing before the partitions
// still to read are checked from outside the fetch path.
var stallCheck = 10 * time.Second

// stalled checks the partitions still to read when fetches bring nothing:
// one whose log start passed its read position (retention deleted what it
// was waiting for, and the broker's out-of-range answer did not reach the
// poll) gets its lost range and moves on; one whose end went below the cut
// (a truncation) is an error, never a wait without end; so is, for a
// one-shot dump, one without a leader (every replica down) for
// WaitUnreachable while the cluster answers (leaderless).
func (d *dumper) stalled(ctx context.Context, cl *kgo.Client, c *cut, writers map[int32]*writer, down, leaderless *downClock) error {
	topic := c.state.Topic
	// The cluster may be what is stalled (a broker restarting): a listing
	// that fails is waited out like the fetches (for a one-shot dump, up
	// to WaitUnreachable), never a reason to stop.
	began := time.Now()
	// A cluster that does not answer (a broker hung, a network cut) holds
	// each listing for the client's retry timeout (30 s): a one-shot
	// dump's listing ends when its wait for the cluster would.
	lctx, cancel := ctx, context.CancelFunc(func() {})
	if left, ok := d.waitLeft(down, began); ok {
		lctx, cancel = context.WithTimeout(ctx, max(left, time.Second))
	}
	defer cancel()
	waiting := func(err error, listed kadm.ListedOffsets) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		cerr := kafkaconn.Classify(err)
		if errors.Is(cerr, kafkaconn.ErrUnreachable) {
			if derr := d.stillDownSince(down, topic, cerr, began); derr != nil {
				return derr
			}
		} else if gerr := d.gone(ctx, c); gerr != nil {
			// Asked only of a cluster that answers: one out of reach
			// cannot say, and the question would wait as long again.
			return gerr
		} else if lerr := d.stillLeaderless(leaderless, c, writers, listed, cerr, began); lerr != nil {
			return lerr
		}
		if d.opts.Progress != nil {
			d.opts.Progress.Waiting(fmt.Sprintf("%s: no records for %s, and its offsets cannot be listed (%v); retrying", topic, stallCheck, cerr))
		}
		return nil
	}
	starts, err := d.adm.ListStartOffsets(lctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return waiting(err, starts)
	}
	ends, err := d.adm.ListEndOffsets(lctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return waiting(err, ends)
	}
	down.reset()
	leaderless.reset()
	ps := make([]int32, 0, len(writers))
	for p := range writers {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	for _, p := range ps {
		w := writers[p]
		if w.finished || w.readAt >= w.pl.until {
			continue
		}
		if e, ok := ends.Lookup(topic, p); ok && e.Err == nil && e.Offset < w.readAt {
			// Below what was read: records the folder now holds are not
			// in Kafka's log, as when its leader says so mid-read
			// (HistoryChangedError, recorded as a rewrite at once); it was
			// a plain error, and the checks said nothing until the next run.
			return &HistoryChangedError{TP: w.pl.tp, ReadTo: w.readAt, EndsAt: e.Offset}
		} else if ok && e.Err == nil && e.Offset < w.pl.until {
			return fmt.Errorf("read %s: its end offset went back from %d to %d while it was read (a truncation); refusing to guess what was there", w.pl.tp, w.pl.until, e.Offset)
		}
		st, ok := starts.Lookup(topic, p)
		if !ok || st.Err != nil || st.Offset <= w.readAt {
			if d.opts.Progress != nil {
				d.opts.Progress.Waiting(fmt.Sprintf("%s: no records for %s at offset %d (the cut ends at %d); waiting", w.pl.tp, stallCheck, w.readAt, w.pl.until))
			}
			continue
		}
		if err := d.handleOutOfRange(ctx, cl, c, w); err != nil {
			return err
		}
	}
	return nil
}

// downClock is since when a reader has not reached the cluster.
type downClock struct{ since time.Time }

func (c *downClock) reset() { c.since = time.Time{} }

// stillDown notes that cerr (a classified error of reading topic) is
// or is not the cluster out of reach, and returns an UnreachableError once
// a one-shot dump has not reached it for WaitUnreachable: a cron job's
// dump ends, with what it read committed, rather than wait without end.
// --follow waits outages out.
func (d *dumper) stillDown(c *downClock, topic string, cerr error) error {
	return d.stillDownSince(c, topic, cerr, time.Now())
}

// stillDownSince is stillDown for a failure of a request sent at began:
// the wait counts from there.
func (d *dumper) stillDownSince(c *downClock, topic string, cerr error, began time.Time) error {
	if !errors.Is(cerr, kafkaconn.ErrUnreachable) {
		return nil
	}
	if c.since.IsZero() {
		c.since = began
	}
	bound := d.opts.WaitUnreachable
	if d.opts.Follow || bound <= 0 || time.Since(c.since) < bound {
		return nil
	}
	return &UnreachableError{Topic: topic, Waited: bound, Err: cerr}
}

// waitLeft is how long a one-shot dump may still wait for the cluster, a
// request sent at began included; false when it waits without end.
func (d *dumper) waitLeft(c *downClock, began time.Time) (time.Duration, bool) {
	bound := d.opts.WaitUnreachable
	if d.opts.Follow || bound <= 0 {
		return 0, false
	}
	since := c.since
	if since.IsZero() {
		since = began
	}
	return bound - began.Sub(since), true
}

// stillLeaderless notes that the partitions still to read whose listing
// failed with a retriable error (cerr, classified: LEADER_NOT_AVAILABLE,
// NOT_LEADER_OR_FOLLOWER: every replica down) have no leader while the
// cluster answers, and returns a LeaderlessError once a one-shot dump has
// waited WaitUnreachable for them: bounded as a cluster out of reach is,
// where it waited without end. --follow waits them out.
func (d *dumper) stillLeaderless(c *downClock, ct *cut, writers map[int32]*writer, listed kadm.ListedOffsets, cerr error, began time.Time) error {
	var ke *kerr.Error
	if !errors.As(cerr, &ke) || !ke.Retriable {
		return nil
	}
	// A partition without a leader is a shard error of the request, not
	// listed at all, or listed with its error.
	var parts []int32
	for p, w := range writers {
		if o, ok := listed.Lookup(ct.state.Topic, p); !w.finished && (!ok || o.Err != nil) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	if c.since.IsZero() {
		c.since = began
	}
	bound := d.opts.WaitUnreachable
	if d.opts.Follow || bound <= 0 || time.Since(c.since) < bound {
		return nil
	}
	slices.Sort(parts)
	next := map[int32]int64{}
	for _, p := range parts {
		next[p] = writers[p].readAt
	}
	return &LeaderlessError{Topic: ct.state.Topic, Partitions: parts, ReadTo: next, Waited: bound, Err: cerr}
}

// LeaderlessError ends a one-shot dump whose partitions still to read had
// no leader for WaitUnreachable while the rest of the cluster answered:
// what was read is committed, and the snapshot's cut is not written.
type LeaderlessError struct {
	Topic      string
	Partitions []int32
	ReadTo     map[int32]int64 // each partition's next offset to read
	Waited     time.Duration
	Err        error // the last listing's, classified
}

func (e *LeaderlessError) Error() string {
	var at []string
	for _, p := range e.Partitions {
		at = append(at, fmt.Sprintf("%d (read up to offset %d)", p, e.ReadTo[p]))
	}
	return fmt.Sprintf("read %s: partition %s had no leader for %s (--wait-unreachable) while the rest of the cluster answered: %v; what was read is committed, the rest of the partition is not dumped",
		e.Topic, strings.Join(at, ", "), e.Waited, e.Err)
}

func (e *LeaderlessError) Unwrap() error { return e.Err }

func (e *LeaderlessError) ExitCode() exit.Code { return exit.Error }

func (e *LeaderlessError) Hint() string {
	return fmt.Sprintf("see which partitions of %s have no leader (kafka-topics.sh --describe --topic %s: Leader: none) and bring their brokers back; run the same command again and it resumes where it stopped (or give --wait-unreachable a longer wait, 0 for none)", e.Topic, e.Topic)
}

// UnreachableError ends a one-shot dump that could not reach the cluster
// for WaitUnreachable while it read: what was read is committed.
// errors.Is(err, kafkaconn.ErrUnreachable) holds; exit 3.
type UnreachableError struct {
	Topic  string
	Waited time.Duration
	Err    error // the last failure, classified
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("read %s: the cluster could not be reached for %s (--wait-unreachable): %v", e.Topic, e.Waited, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

func (e *UnreachableError) ExitCode() exit.Code { return exit.Unreachable }

func (e *UnreachableError) Hint() string {
	return "what was read is committed: run the same command again once the cluster is back and it resumes where it stopped (or give --wait-unreachable a longer wait, 0 for none)"
}

// handleOutOfRange records the offsets retention deleted under our feet and
// resumes from the new log start. It never jumps silently.
func (d *dumper) handleOutOfRange(ctx context.Context, cl *kgo.Client, c *cut, w *writer) error {
	lo, err := d.adm.ListStartOffsets(ctx, w.pl.tp.Topic)
	if err != nil {
		return fmt.Errorf("list start offsets of %s after offset out of range: %w", w.pl.tp.Topic, kafkaconn.Classify(err))
	}
	o, ok := lo.Lookup(w.pl.tp.Topic, w.pl.tp.Partition)
	if !ok || o.Err != nil {
		return fmt.Errorf("list start offset of %s after offset out of range: %v", w.pl.tp, o.Err)
	}
	from := w.readAt
	if o.Offset <= from {
		// Past the log's end, then: one below what was read is a log
		// truncated under the dump, its offsets from there another
		// history (recorded as a rewrite at once, as when the leader says
		// so); it was "refusing to guess", recorded nowhere.
		if ends, err := d.adm.ListEndOffsets(ctx, w.pl.tp.Topic); err == nil {
			if e, ok := ends.Lookup(w.pl.tp.Topic, w.pl.tp.Partition); ok && e.Err == nil && e.Offset < from {
				return &HistoryChangedError{TP: w.pl.tp, ReadTo: from, EndsAt: e.Offset}
			}
		}
		return fmt.Errorf("read %s at offset %d: broker says out of range, yet its log starts at %d; refusing to guess", w.pl.tp, from, o.Offset)
	}
	lost := &catalog.LostRange{Kind: catalog.LostBetween, From: from, To: min(o.Offset, w.pl.until) - 1, DetectedAt: time.Now().UTC(), Snapshot: c.id}
	select {
	case w.in <- item{lost: lost}:
	case <-ctx.Done():
		return ctx.Err()
	}
	if o.Offset >= w.pl.until {
		w.finished = true
		cl.RemoveConsumePartitions(map[string][]int32{w.pl.tp.Topic: {w.pl.tp.Partition}})
		return nil
	}
	w.readAt = o.Offset
	cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{w.pl.tp.Topic: {w.pl.tp.Partition: {Epoch: -1, Offset: o.Offset}}})
	return nil
}

// schemaIDs reads Confluent Schema Registry wire-format headers: it hands out the schema ids of a writer's rows, one *int32 per id
// shared by every row that has it (the Parquet writer only reads them), not
// one allocation per record; past maxSharedIDs distinct ids (values of raw
// bytes that start with a zero byte) each is its own.
type schemaIDs map[int32]*int32

const maxSharedIDs = 256

func (s *schemaIDs) of(v []byte) *int32 {
	if len(v) < 5 || v[0] != 0 {
		return nil
	}
	id := int32(binary.BigEndian.Uint32(v[1:5]))
	if p, ok := (*s)[id]; ok {
		return p
	}
	p := new(int32) // not &id: that would move id to the heap on every call
	*p = id
	if *s == nil {
		*s = schemaIDs{}
	}
	if len(*s) < maxSharedIDs {
		(*s)[id] = p
	}
	return p
}
