package restore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
)

// TestWaitLeading creates topics and, as soon as waitLeading returns,
// produces a record to every partition in a transaction (as restore does)
// with a client that tries each record once: every partition takes it.
// Without the wait, such a produce right after CreateTopics was refused
// with NOT_LEADER_OR_FOLLOWER for 2 of 10 topics on the dev broker (the
// broker had not yet taken the partitions' leadership), which is what
// stalled restores into new topics ~5 s; with 20 topics a lost wait fails
// this test but rarely passes.
func TestWaitLeading(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): a partition's leadership after CreateTopics")
	}
	brokers := dumptest.Brokers(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	const partitions = 6
	for i := range 20 {
		topic := fmt.Sprintf("t-waitleading-%d-%d", time.Now().UnixNano()%1e9, i)
		r, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
		if err = errors.Join(err, r.Err); err != nil {
			t.Fatal(err)
		}
		if err := waitLeading(ctx, cl, topic, partitions); err != nil {
			t.Fatal(err)
		}
		p, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionalID(topic), kgo.RecordRetries(1))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		recs := make([]*kgo.Record, partitions)
		for j := range recs {
			recs[j] = &kgo.Record{Partition: int32(j), Value: []byte("v")}
		}
		for _, pr := range p.ProduceSync(ctx, recs...) {
			if pr.Err != nil {
				t.Errorf("%s: partition %d refused a record after waitLeading: %v", topic, pr.Record.Partition, pr.Err)
			}
		}
		if err := p.EndTransaction(ctx, kgo.TryAbort); err != nil {
			t.Log(err)
		}
		p.Close()
		if _, err := adm.DeleteTopic(ctx, topic); err != nil {
			t.Log(err)
		}
	}
}
