package dump

import (
	"context"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kadm"
)

// A round dumps several topics at once: a cluster of many small topics
// spends its time waiting (on fsyncs, on the brokers' answers), not
// computing, so topics dumped one after the other cost a fixed time each
// (issue 32: 6 ms a partition). At most topicsAtOnce topics are dumped
// together, and together they hold at most partitionsAtOnce partitions
// (a topic with more is dumped alone); each gets its share of the fetch
// and row group budgets (see snapshotShare), so a round of many topics
// holds no more in memory than one topic of partitionsAtOnce partitions.
// Each topic's snapshot keeps its own commit protocol: its data files
// fsynced before the manifest that lists them, its cluster snapshot
// written last.
const (
	topicsAtOnce     = 16
	partitionsAtOnce = 64
)

// round takes one snapshot of every topic. An error stops new snapshots
// from starting; those running finish (what they read is committed), and
// the error of the first topic (in the order of topics) that failed is
// returned, as when topics were dumped one after the other. With Follow, a
// transient error is waited out instead: the next round resumes from the
// manifests.
func (d *dumper) round(ctx context.Context, topics []string, all kadm.TopicDetails, sum *Summary) error {
	d.groupsMu.Lock()
	d.groupsAt = nil // read again each round
	d.groupsMu.Unlock()
	sums := make([]Summary, len(topics))
	errs := make([]error, len(topics))
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		free    = partitionsAtOnce
		running int
		failed  bool
		wg      sync.WaitGroup
	)
	launched := 0
	for i, topic := range topics {
		share, weight := 1.0, partitionsAtOnce
		if len(topics) > 1 {
			weight = min(max(len(all[topic].Partitions), 1), partitionsAtOnce)
			share = float64(weight) / partitionsAtOnce
		}
		mu.Lock()
		for !failed && ctx.Err() == nil && (free < weight || running >= topicsAtOnce) {
			cond.Wait()
		}
		if failed || ctx.Err() != nil {
			mu.Unlock()
			break
		}
		free -= weight
		running++
		launched++
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := d.snapshot(ctx, topic, share, &sums[i])
			if err != nil && d.opts.Follow && ctx.Err() == nil && transient(err) {
				// Following: an outage is waited out; the next round resumes
				// from the manifests, so nothing is skipped.
				if d.opts.Progress != nil {
					d.opts.Progress.Waiting(fmt.Sprintf("snapshot of %s failed (%v); trying again in %s", topic, err, d.opts.Interval))
				}
				err = nil
			}
			mu.Lock()
			errs[i] = err
			failed = failed || err != nil
			free += weight
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
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if launched < len(topics) {
		return ctx.Err() // interrupted before every topic started
	}
	return nil
}

// add counts o's snapshots and records into s.
func (s *Summary) add(o Summary) {
	s.Snapshots = append(s.Snapshots, o.Snapshots...)
	s.Partitions += o.Partitions
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
