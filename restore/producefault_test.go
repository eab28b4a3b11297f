package restore

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestProduceRefusedMidRestoreIsExactlyOnce: a target partition that
// refuses a produce mid-way (here POLICY_VIOLATION, a broker's policy)
// fails the restore; what its committed transactions hold stays, and a
// restore run again once the broker takes the records again leaves the
// target, read committed, with every source record exactly once.
func TestProduceRefusedMidRestoreIsExactlyOnce(t *testing.T) {
	c, dir := kfakeSource(t, 20000)
	brokers := c.ListenAddrs()
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
	onceEach(t, brokers, "dst", 20000)
}
