package dump

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestCutOfATopicMadeAgainWhileItWasTaken: a nightly dump of a whole
// cluster (seen with --follow on Kafka 4.4) read a topic's metadata, then
// waited on its offsets (UNKNOWN_TOPIC_OR_PARTITION: the topic was being
// deleted) until the topic was made again under its name, and wrote a cut
// with the old topic's id and partition count beside the new topic's
// offsets. The next read took the new topic's log for the old one's cut
// short: a rewrite of kind "truncated" ("Kafka truncated its log there (an
// unclean leader election ...)", durability FAIL), a broker's loss where
// someone deleted the topic. Now the cut reads the topic's id again after
// a wait and, when another topic has the name, is taken again of it: one
// rewrite, topic-recreated, and the cut's id and partitions the new
// topic's.
func TestCutOfATopicMadeAgainWhileItWasTaken(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	p := dumptest.Producer(t, brokers)
	for i := range 6 {
		dumptest.Produce(t, p, &kgo.Record{Topic: "t", Partition: int32(i % 2), Value: []byte("old")})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}, Progress: &waitLog{}}
	if _, err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	// The second dump's first listing of offsets finds the topic being
	// deleted; it is made again (one partition, 2 records) before the
	// listing answers.
	var remade atomic.Bool
	var once sync.Once
	var newID kadm.TopicID
	done := make(chan struct{})
	remake := func() {
		defer close(done)
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Error(err)
			return
		}
		defer cl.Close()
		adm := kadm.NewClient(cl)
		if _, err := adm.DeleteTopics(ctx, "t"); err != nil {
			t.Error(err)
			return
		}
		for {
			if r, err := adm.CreateTopic(ctx, 1, 1, nil, "t"); err == nil && r.Err == nil {
				newID = r.ID
				break
			}
			if ctx.Err() != nil {
				t.Error("could not make t again")
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		for range 2 {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: 0, Value: []byte("new")}).FirstErr(); err != nil {
				t.Error(err)
				return
			}
		}
		remade.Store(true)
	}
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if remade.Load() {
			return nil, nil, false
		}
		once.Do(func() { go remake() })
		r := req.(*kmsg.ListOffsetsRequest)
		resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, tp := range r.Topics {
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = tp.Topic
			for _, p := range tp.Partitions {
				rp := kmsg.NewListOffsetsResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	_, err = Run(ctx, opts)
	<-done
	if err != nil {
		t.Fatalf("second dump: %v", err)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(ctx, catalog.TopicPartition{Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rw := range m.Rewrites {
		if rw.Kind != catalog.RewriteRecreated {
			t.Errorf("rewrite of kind %s (%d-%d): want only topic-recreated", rw.Kind, rw.First, rw.Last)
		}
	}
	snaps, err := d.ClusterSnapshotsOf(ctx, []string{"t"})
	if err != nil || len(snaps) != 2 {
		t.Fatalf("cuts: %d, %v; want 2", len(snaps), err)
	}
	last := snaps[len(snaps)-1]
	if last.TopicID != newID.String() || last.PartitionCount != 1 || len(last.Partitions) != 1 || last.Partitions[0].HighWatermark != 2 {
		t.Errorf("the cut of the second dump: id %s, %d partitions %+v; want the new topic's: id %s, 1 partition at high watermark 2",
			last.TopicID, last.PartitionCount, last.Partitions, newID)
	}
}
