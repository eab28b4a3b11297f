package dump

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// deleteAtStart deletes every record of one partition below an offset when
// the dump starts reading that partition: retention passing the cut's end
// between the cut and the fetch.
type deleteAtStart struct {
	t      *testing.T
	adm    *kadm.Client
	topic  string
	target int32
	before int64
}

func (d *deleteAtStart) Start(tp catalog.TopicPartition, _, _ int64) {
	if tp.Partition != d.target {
		return
	}
	o := kadm.Offsets{}
	o.Add(kadm.Offset{Topic: d.topic, Partition: d.target, At: d.before})
	r, err := d.adm.DeleteRecords(context.Background(), o)
	if err != nil || r.Error() != nil {
		d.t.Errorf("delete records: %v %v", err, r.Error())
	}
}
func (*deleteAtStart) Advance(catalog.TopicPartition, int64, int64) {}
func (*deleteAtStart) Done(catalog.TopicPartition)                  {}
func (*deleteAtStart) Waiting(string)                               {}
func (*deleteAtStart) Warn(string)                                  {}

// TestRetentionPastTheCutEndsThePartition: the records of a partition are
// deleted past the cut's end after the cut and before they are fetched. The
// partition gets its lost range and is done; the dump finishes (it used to
// wait for that partition forever) and the other partition is complete.
func TestRetentionPastTheCutEndsThePartition(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	for i := 0; i < 20; i++ {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))})
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic},
		Progress: &deleteAtStart{t: t, adm: kadm.NewClient(cl), topic: topic, target: 1, before: 10}})
	if err != nil {
		t.Fatalf("dump: %v (a partition finished by retention must not be waited for)", err)
	}
	stored, lost := coverage(t, dir, topic)
	if stored != 10 || lost != 10 || sum.LostOffsets != 10 {
		t.Fatalf("%d stored, %d lost (summary %d), want 10 and 10", stored, lost, sum.LostOffsets)
	}
}
