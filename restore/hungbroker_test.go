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
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "src"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	cl := dumptest.Producer(t, brokers)
	const n = 20000
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Topic: "src", Partition: int32(i % 2), Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value %d", i)})
	}
	dumptest.Produce(t, cl, recs...)
	dir := t.TempDir()
	if _, err := dump.Run(t.Context(), dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"src"}, FileRows: 300}); err != nil {
		t.Fatal(err)
	}
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
	rc, _ := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics("dst"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer rc.Close()
	seen := map[string]int{}
	got := 0
	pctx, pcancel := context.WithTimeout(rctx, 5*time.Second)
	defer pcancel()
	for pctx.Err() == nil {
		f := rc.PollFetches(pctx)
		f.EachRecord(func(r *kgo.Record) { seen[string(r.Key)]++; got++ })
	}
	if got != n || len(seen) != n {
		t.Errorf("the target holds %d committed records, %d distinct keys: want %d each once", got, len(seen), n)
	}
}
