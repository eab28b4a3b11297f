package restore

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestProduceRefusedMidRestoreIsExactlyOnce: a target partition that
// refuses a produce mid-way (here POLICY_VIOLATION, a broker's policy)
// fails the restore; what its committed transactions hold stays, and a
// restore run again once the broker takes the records again leaves the
// target, read committed, with every source record exactly once.
func TestProduceRefusedMidRestoreIsExactlyOnce(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "src"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	cl := dumptest.Producer(t, brokers)
	var recs []*kgo.Record
	for i := range 20000 {
		recs = append(recs, &kgo.Record{Topic: "src", Partition: int32(i % 2), Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "value %d", i)})
	}
	dumptest.Produce(t, cl, recs...)
	dir := t.TempDir()
	if _, err := dump.Run(t.Context(), dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"src"}, FileRows: 300}); err != nil {
		t.Fatal(err)
	}
	var produces, faults atomic.Int32
	var off atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		r := req.(*kmsg.ProduceRequest)
		if off.Load() || produces.Add(1) < 3 {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.ProduceResponse)
		for _, tp := range r.Topics {
			rt := kmsg.NewProduceResponseTopic()
			rt.Topic, rt.TopicID = tp.Topic, tp.TopicID
			for _, p := range tp.Partitions {
				rp := kmsg.NewProduceResponseTopicPartition()
				rp.Partition = p.Partition
				if p.Partition == 1 {
					faults.Add(1)
					rp.ErrorCode = kerr.PolicyViolation.Code
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		// A request holding other partitions goes to the broker whole.
		for _, tp := range r.Topics {
			for _, p := range tp.Partitions {
				if p.Partition != 1 {
					return nil, nil, false
				}
			}
		}
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500})
	if faults.Load() == 0 {
		t.Fatal("no produce was refused: the test proves nothing")
	}
	if err == nil {
		t.Fatalf("the restore succeeded though partition 1 refused a produce: %v", s)
	}
	off.Store(true)
	_, err = Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500})
	if err != nil {
		t.Fatalf("the restore run again: %v", err)
	}
	// The target, read committed.
	rc, _ := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics("dst"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	defer rc.Close()
	seen := map[string]int{}
	n := 0
	rctx, rcancel := context.WithTimeout(ctx, 5*time.Second)
	defer rcancel()
	for rctx.Err() == nil {
		f := rc.PollFetches(rctx)
		f.EachRecord(func(r *kgo.Record) { seen[string(r.Key)]++; n++ })
	}
	dups := 0
	for _, v := range seen {
		if v > 1 {
			dups++
		}
	}
	if n != 20000 || len(seen) != 20000 || dups != 0 {
		t.Errorf("the target holds %d committed records, %d distinct keys, %d keys more than once: want 20000 each once", n, len(seen), dups)
	}
}
