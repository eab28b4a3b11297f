package restore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// reachClock is since when one producer has not reached the cluster: the
// first request (or connection) that failed as the cluster out of reach (a
// connection refused, a broker that answers nothing: hung, a network cut)
// since the broker last answered a request that carries the restore
// forward (a produce, a transaction's requests). Metadata answered by
// another broker does not reset it: a cluster whose leader of the
// producer's partitions hangs is, to that producer, out of reach. It is
// the producer's client hook (kgo.WithHooks).
type reachClock struct {
	mu    sync.Mutex
	since time.Time
	last  error // the last failure, classified
}

var (
	_ kgo.HookBrokerE2E     = (*reachClock)(nil)
	_ kgo.HookBrokerConnect = (*reachClock)(nil)
)

// OnBrokerE2E notes a request that failed, or an answer that resets.
func (c *reachClock) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e2e kgo.BrokerE2E) {
	if err := e2e.Err(); err != nil {
		c.failed(time.Now().Add(-e2e.WriteWait-e2e.DurationE2E()), err)
		return
	}
	switch kmsg.Key(key) {
	case kmsg.Produce, kmsg.InitProducerID, kmsg.AddPartitionsToTxn, kmsg.AddOffsetsToTxn, kmsg.EndTxn, kmsg.TxnOffsetCommit:
		c.mu.Lock()
		c.since, c.last = time.Time{}, nil
		c.mu.Unlock()
	}
}

// OnBrokerConnect notes a connection that failed.
func (c *reachClock) OnBrokerConnect(_ kgo.BrokerMetadata, took time.Duration, _ net.Conn, err error) {
	if err != nil {
		c.failed(time.Now().Add(-took), err)
	}
}

// failed notes err, of a request sent at began, if it is the cluster out
// of reach; the client closing or a cancelled run is not.
func (c *reachClock) failed(began time.Time, err error) {
	if errors.Is(err, kgo.ErrClientClosed) || errors.Is(err, context.Canceled) {
		return
	}
	cerr := kafkaconn.Classify(err)
	if !errors.Is(cerr, kafkaconn.ErrUnreachable) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() || began.Before(c.since) {
		c.since = began
	}
	c.last = cerr
}

// down is how long the cluster has been out of reach, and the last
// failure; 0 while it answers.
func (c *reachClock) down(now time.Time) (time.Duration, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.since.IsZero() {
		return 0, nil
	}
	return now.Sub(c.since), c.last
}

// watchReach cancels ctx (cancel) with an UnreachableError once any of
// clocks has been down for bound; it returns when ctx is done. A bound of
// 0 waits without end: it returns at once.
func watchReach(ctx context.Context, cancel context.CancelCauseFunc, bound time.Duration, target string, clocks []*reachClock) {
	if bound <= 0 {
		return
	}
	tick := time.NewTicker(min(time.Second, max(bound/8, 10*time.Millisecond)))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for _, c := range clocks {
				if d, last := c.down(now); d >= bound {
					cancel(&UnreachableError{Target: target, Waited: bound, Err: last})
					return
				}
			}
		}
	}
}

// UnreachableError ends a restore whose cluster could not be reached for
// Options.WaitUnreachable while it produced: the transactions committed
// before stay committed, with their progress; the open one is aborted, or
// left to the next run's fence (one whose commit was under way is the
// broker's to decide, whole, its progress with it). Run again, the
// restore resumes after the committed progress, every record once.
// errors.Is(err, kafkaconn.ErrUnreachable) holds; exit 3.
type UnreachableError struct {
	Target string
	Waited time.Duration
	Err    error // the last failure, classified
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("produce into %s: the cluster could not be reached for %s (--wait-unreachable): %v; the transactions committed stay committed with their progress, the one under way is committed whole or not at all", e.Target, e.Waited, e.Err)
}

func (e *UnreachableError) Unwrap() []error { return []error{kafkaconn.ErrUnreachable, e.Err} }

// ExitCode is exit.Unreachable.
func (e *UnreachableError) ExitCode() exit.Code { return exit.Unreachable }

// Hint is the run again.
func (e *UnreachableError) Hint() string {
	return "run the same command again once the cluster is back: it resumes after the last committed transaction and writes every record once (or give --wait-unreachable a longer wait, 0 for none)"
}

// testProducerOpts are options the tests add to every producer (shorter
// request timeouts, so a held request fails in seconds, not 20 s); none
// otherwise.
var testProducerOpts []kgo.Opt
