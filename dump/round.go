package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// A round dumps several topics at once: a cluster of many small topics
// spends its time waiting (on fsyncs, on the brokers' answers), not
// computing, so topics dumped one after the other cost a fixed time each
// (issue 32: 6 ms a partition). At most topicsAtOnce topics take their
// snapshots together; those with records to read hold at most
// partitionsAtOnce partitions being read together (a topic with more is
// read alone) and each gets its share of the fetch and row group budgets
// (see readBudget), so a round of many topics holds no more in memory
// than one topic of partitionsAtOnce partitions. A topic with nothing new
// takes no share: its snapshot is its manifests and cluster snapshot.
// Each topic's snapshot keeps its own commit protocol: its data files
// fsynced before the manifest that lists them, its cluster snapshot
// written last.
const (
	topicsAtOnce     = 64
	partitionsAtOnce = 64
)

// round takes one snapshot of every topic. A failure of one topic (the
// broker refusing it, a partition another dumper holds, a batch past the
// decompression bound, a damaged manifest) costs that topic: the others are
// dumped, and the round's error names every topic that failed, the first
// (in the order of topics) giving the exit code. An error no topic would
// escape (the cluster unreachable, authentication or TLS failing, the
// folder full or gone, the limit of open files, an interruption) stops
// new snapshots from starting; those running finish (what they read is
// committed). With Follow, a transient error is waited out, and a topic's
// own failure is said and tried again next round while the other topics
// are followed on (unless every topic failed): the next round resumes
// from the manifests.
func (d *dumper) round(ctx context.Context, topics []string, sum *Summary) error {
	d.groupsMu.Lock()
	d.groupsAt = nil // read again each round
	d.groupsMu.Unlock()
	d.budget = nil
	if len(topics) > 1 {
		d.budget = newReadBudget(ctx, partitionsAtOnce)
		defer d.budget.stop()
	}
	sums := make([]Summary, len(topics))
	errs := make([]error, len(topics))
	var (
		mu       sync.Mutex
		cond     = sync.NewCond(&mu)
		running  int
		failed   bool
		launched int
		wg       sync.WaitGroup
	)
	for i, topic := range topics {
		mu.Lock()
		for !failed && ctx.Err() == nil && running >= topicsAtOnce {
			cond.Wait()
		}
		if failed || ctx.Err() != nil {
			mu.Unlock()
			break
		}
		running++
		launched++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := d.snapshot(ctx, topic, &sums[i])
			if err != nil && d.opts.Follow && ctx.Err() == nil && transient(err) {
				// Following: an outage is waited out; the next round resumes
				// from the manifests, so nothing is skipped.
				if d.opts.Progress != nil {
					d.opts.Progress.Waiting(fmt.Sprintf("snapshot of %s failed (%v); trying again in %s", topic, err, d.opts.Interval))
				}
				err = nil
			}
			if err != nil && d.opts.Follow && ctx.Err() == nil && errors.Is(err, kafkaconn.ErrUnknownTopic) {
				// Following: a topic deleted costs that topic, not the
				// others' snapshots. Its name is asked for again each
				// round, so a topic made again under it is followed again
				// (a topic-recreated rewrite).
				d.warn(fmt.Sprintf("topic %s is gone from the cluster (deleted?): the follow goes on with the other topics, and with %s again if it is made again", topic, topic))
				err = nil
			}
			mu.Lock()
			errs[i] = err
			failed = failed || stopsTheRound(err)
			running--
			cond.Broadcast()
			mu.Unlock()
		}()
	}
	// A cancelled ctx wakes no waiter by itself: the snapshots running see
	// it, end, and broadcast; with none running the loop did not wait.
	wg.Wait()
	for i := range topics {
		sum.add(sums[i])
	}
	var failedTopics []string
	var first error
	for i, err := range errs {
		if err != nil {
			failedTopics = append(failedTopics, topics[i])
			if first == nil {
				first = err
			}
		}
	}
	for _, err := range errs {
		if stopsTheRound(err) {
			return err
		}
	}
	if first != nil && d.opts.Follow && len(failedTopics) < len(topics) {
		// Following: one topic's failure costs that topic's snapshot,
		// said each round it happens; the others are followed on. A
		// round in which every topic failed stops the follow: it would
		// dump nothing.
		for i, err := range errs {
			if err != nil && d.opts.Progress != nil {
				d.opts.Progress.Warn(fmt.Sprintf("snapshot of %s failed: %v; the follow goes on with the other topics and tries %s again next round", topics[i], err, topics[i]))
			}
		}
		return nil
	}
	if len(topics) == 1 {
		return first
	}
	if first != nil {
		return &TopicsFailedError{Topics: failedTopics, Of: len(topics), First: first}
	}
	if launched < len(topics) {
		return ctx.Err() // interrupted before every topic started
	}
	return nil
}

// stopsTheRound reports whether err is one no other topic of the round
// would escape: the cluster, the credentials or the folder, not the topic.
func stopsTheRound(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if errors.Is(err, catalog.ErrTooManyFiles) {
		// The process's limit of open files: the next topic would meet it
		// too.
		return true
	}
	switch code, _ := exit.Of(err); code {
	case exit.Unreachable, exit.Auth, exit.TLS, exit.Disk, exit.NoCatalog, exit.Interrupted:
		return true
	}
	return false
}

// TopicsFailedError is a round in which several topics failed each on its
// own: the others were dumped. It carries the first failure's exit code
// and hint.
type TopicsFailedError struct {
	Topics []string // in the order of the round
	Of     int      // the topics of the round
	First  error    // the first topic's failure
}

func (e *TopicsFailedError) Error() string {
	names := e.Topics
	more := ""
	if len(names) > 10 {
		names, more = names[:10], fmt.Sprintf(" and %d more", len(e.Topics)-10)
	}
	return fmt.Sprintf("%d of %d topics failed (%s%s), the others were dumped; the first: %v", len(e.Topics), e.Of, strings.Join(names, ", "), more, e.First)
}

func (e *TopicsFailedError) Unwrap() error { return e.First }

// readBudget is the partitions the topics of a round may read together.
type readBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int
	stop func() bool // stops waking waiters on ctx's end
}

func newReadBudget(ctx context.Context, n int) *readBudget {
	b := &readBudget{free: n}
	b.cond = sync.NewCond(&b.mu)
	b.stop = context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	return b
}

// take waits for the budget of reading n partitions (at most
// partitionsAtOnce), takes it, and returns the share of the fetch and row
// group budgets it is (see readAll) and the release to call once read.
// A nil budget (one topic in the round) is all of it.
func (b *readBudget) take(ctx context.Context, n int) (share float64, release func(), err error) {
	if b == nil {
		return 1, func() {}, nil
	}
	n = min(max(n, 1), partitionsAtOnce)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n && ctx.Err() == nil {
		b.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	b.free -= n
	return float64(n) / partitionsAtOnce, func() {
		b.mu.Lock()
		b.free += n
		b.cond.Broadcast()
		b.mu.Unlock()
	}, nil
}

// add counts o's snapshots and records into s.
func (s *Summary) add(o Summary) {
	s.Snapshots = append(s.Snapshots, o.Snapshots...)
	for tp := range o.seen {
		s.saw(tp)
	}
	s.Records += o.Records
	s.Bytes += o.Bytes
	s.Files += o.Files
	s.Lost += o.Lost
	s.LostOffsets += o.LostOffsets
	s.Decoded += o.Decoded
	s.DecodeErrors += o.DecodeErrors
	s.KeysDecoded += o.KeysDecoded
	s.KeyDecodeErrors += o.KeyDecodeErrors
	s.Rewrites += o.Rewrites
	s.RewrittenOffsets += o.RewrittenOffsets
}

// saw counts tp among the summary's partitions once, however many rounds
// of --follow dump it.
func (s *Summary) saw(tp catalog.TopicPartition) {
	if s.seen == nil {
		s.seen = map[catalog.TopicPartition]bool{}
	}
	if !s.seen[tp] {
		s.seen[tp] = true
		s.Partitions++
	}
}
