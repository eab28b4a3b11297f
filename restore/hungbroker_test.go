package restore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestInterruptedWhileTheBrokerHangs: a broker that stops answering
// produce requests (hung, not down: the connection stays open) holds a
// restore's flush; Ctrl-C must still end the restore within seconds, its
// open transaction aborted, and a restore run again once the broker
// answers leaves every source record in the target exactly once, read
// committed. Before, the flush waited up to two minutes, deaf to Ctrl-C.
func TestInterruptedWhileTheBrokerHangs(t *testing.T) {
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
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500})
		done <- err
	}()
	for deadline := time.Now().Add(30 * time.Second); hung.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no produce request was held: the test proves nothing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // the restore is now waiting on the broker
	interrupted := time.Now()
	cancel()
	select {
	case err := <-done:
		took := time.Since(interrupted)
		t.Logf("interrupted: returned after %v: %v", took.Round(time.Millisecond), err)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("interrupted restore: %v, want context.Canceled (exit 130)", err)
		}
		if took > 15*time.Second {
			t.Errorf("interrupted restore returned after %v, want within the abort's 10 s bound", took)
		}
	case <-time.After(20 * time.Second):
		t.Errorf("interrupted restore still running 20 s after Ctrl-C")
		off.Store(true)
		close(release)
		<-done
		return
	}
	off.Store(true)
	close(release)
	rctx, rcancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer rcancel()
	if _, err := Run(rctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500}); err != nil {
		t.Fatalf("the restore run again: %v", err)
	}
	onceEach(t, brokers, "dst", n)
}

// kfakeSource starts a one-broker kfake cluster holding topic src of n
// records on 2 partitions (key kI, value "value I"), dumped into a new
// folder in files of 300 records.
func kfakeSource(t *testing.T, n int) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "src"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: "src", Partition: int32(i % 2), Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value %d", i)})
	}
	dumptest.Produce(t, dumptest.Producer(t, brokers), recs...)
	dir := t.TempDir()
	if _, err := dump.Run(t.Context(), dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"src"}, FileRows: 300}); err != nil {
		t.Fatal(err)
	}
	return c, dir
}

// onceEach reads topic read committed from the start and fails t unless it
// holds n records of n distinct keys.
func onceEach(t *testing.T, brokers []string, topic string, n int) {
	t.Helper()
	rc, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	seen := map[string]int{}
	got := 0
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		rc.PollFetches(ctx).EachRecord(func(r *kgo.Record) { seen[string(r.Key)]++; got++ })
	}
	if got != n || len(seen) != n {
		t.Errorf("%s holds %d committed records, %d distinct keys: want %d each once", topic, got, len(seen), n)
	}
}
