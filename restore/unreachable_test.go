package restore

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestWaitUnreachableBoundsAHungBroker: a broker that stops answering
// produce requests (hung, not down) ends the restore once it has not
// answered for Options.WaitUnreachable, with an UnreachableError (exit 3)
// naming the bound; 0 waits without end (until Ctrl-C). Either way a run
// again once the broker answers leaves every record in the target once,
// read committed. Before, there was no bound: with its buffer full the
// producer waited without end (the real broker: kill -STOP, still waiting
// after 4 minutes), and a flush ended after 2 minutes whatever the flag.
func TestWaitUnreachableBoundsAHungBroker(t *testing.T) {
	old := testProducerOpts
	// A held produce fails after ~2 s, not the client's 20 s.
	testProducerOpts = []kgo.Opt{kgo.ProduceRequestTimeout(time.Second), kgo.RequestTimeoutOverhead(time.Second)}
	t.Cleanup(func() { testProducerOpts = old })
	for _, tc := range []struct {
		name  string
		bound time.Duration
	}{
		{"bound 3s", 3 * time.Second},
		{"no bound", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 20000
			c, dir := kfakeSource(t, n)
			brokers := c.ListenAddrs()
			var produces, hung atomic.Int32
			var off atomic.Bool
			release := make(chan struct{})
			c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				if off.Load() || produces.Add(1) < 3 {
					return nil, nil, false
				}
				hung.Add(1)
				c.SleepControl(func() { <-release })
				return nil, nil, false
			})
			opts := Options{Conn: kafkaconn.Conn{Brokers: brokers, DialTimeout: time.Second}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500, WaitUnreachable: tc.bound}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			began := time.Now()
			go func() {
				_, err := Run(ctx, opts)
				done <- err
			}()
			var err error
			if tc.bound > 0 {
				select {
				case err = <-done:
				case <-time.After(40 * time.Second):
					off.Store(true)
					close(release)
					<-done
					t.Fatalf("restore still running 40 s after it began against a hung broker, with --wait-unreachable %s", tc.bound)
				}
				took := time.Since(began)
				t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
				var ue *UnreachableError
				if !errors.As(err, &ue) || ue.Waited != tc.bound || !errors.Is(err, kafkaconn.ErrUnreachable) {
					t.Errorf("restore against a hung broker: %v, want an UnreachableError after %s", err, tc.bound)
				}
				if code, _ := exit.Of(err); code != exit.Unreachable {
					t.Errorf("exit code %d, want %d", code, exit.Unreachable)
				}
				if took < tc.bound {
					t.Errorf("returned after %v, before the bound %s", took, tc.bound)
				}
				if hung.Load() == 0 {
					t.Fatal("no produce request was held: the test proves nothing")
				}
			} else {
				select {
				case err = <-done:
					t.Fatalf("restore with no bound returned while the broker hung: %v", err)
				case <-time.After(8 * time.Second):
				}
				if hung.Load() == 0 {
					t.Fatal("no produce request was held: the test proves nothing")
				}
				cancel()
				if err = <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("interrupted restore: %v, want context.Canceled", err)
				}
			}
			off.Store(true)
			close(release)
			rctx, rcancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer rcancel()
			opts.WaitUnreachable = 0
			if _, err := Run(rctx, opts); err != nil {
				t.Fatalf("the restore run again: %v", err)
			}
			onceEach(t, brokers, "dst", n)
		})
	}
}

// TestWaitUnreachableBoundsAHeldCommit: a broker that stops answering a
// transaction's commit (EndTxn held, the produce requests answered) ends
// the restore at the bound too, not the client's retry timeout later;
// run again once the broker answers, every record is in the target once.
// Before, the run returned 26-31 s after it began with a bound of 3 s.
func TestWaitUnreachableBoundsAHeldCommit(t *testing.T) {
	old := testProducerOpts
	testProducerOpts = []kgo.Opt{kgo.ProduceRequestTimeout(time.Second), kgo.RequestTimeoutOverhead(time.Second)}
	t.Cleanup(func() { testProducerOpts = old })
	const n = 20000
	c, dir := kfakeSource(t, n)
	brokers := c.ListenAddrs()
	var commits, held atomic.Int32
	var off atomic.Bool
	release := make(chan struct{})
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if off.Load() || commits.Add(1) < 3 {
			return nil, nil, false
		}
		held.Add(1)
		c.SleepControl(func() { <-release })
		return nil, nil, false
	})
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers, DialTimeout: time.Second}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500, WaitUnreachable: 3 * time.Second}
	began := time.Now()
	_, err := Run(t.Context(), opts)
	took := time.Since(began)
	t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
	if held.Load() == 0 {
		t.Fatal("no commit was held: the test proves nothing")
	}
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Errorf("restore whose commit the broker holds: %v, want an UnreachableError", err)
	}
	// The bound, then the abort's own 10 s against the hung broker.
	if took > 20*time.Second {
		t.Errorf("returned after %v with a bound of 3 s", took)
	}
	off.Store(true)
	close(release)
	opts.WaitUnreachable = 0
	if _, err := Run(t.Context(), opts); err != nil {
		t.Fatalf("the restore run again: %v", err)
	}
	onceEach(t, brokers, "dst", n)
}
