package queries

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// deleteOnFirstRecords runs do once, when the dump hands its first records
// to a writer (do deletes the topic under it).
type deleteOnFirstRecords struct {
	once sync.Once
	do   func()
}

func (*deleteOnFirstRecords) Start(catalog.TopicPartition, int64, int64) {}
func (d *deleteOnFirstRecords) Advance(catalog.TopicPartition, int64, int64) {
	d.once.Do(d.do)
}
func (*deleteOnFirstRecords) Done(catalog.TopicPartition) {}
func (*deleteOnFirstRecords) Waiting(string)              {}
func (*deleteOnFirstRecords) Warn(string)                 {}

// TestGapsOfATopicMadeAgainAndDeletedWhileRead: a cluster dumped every night
// holds a topic deleted and made again under its name between two dumps,
// and deleted again while the second dump read it (exit 4, what was read
// committed, no cut written). The folder's data is then of the new topic,
// and its only cuts are the old topic's. gaps held the new topic's data to
// the old topic's high watermark: "FAIL ... 518,479 offsets Kafka held at
// the partition's last cut are not in the folder ... (its data ends below
// the high watermark the cut recorded: the folder was edited or put back
// from an older copy ...)" on a folder nobody edited, counting offsets of
// one topic against the log of another. Now a cut taken before a
// partition's log was rewritten is not compared with the data after it,
// and a partition no later cut describes is said not judged (never OK).
func TestGapsOfATopicMadeAgainAndDeletedWhileRead(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := dumptest.NewTopic(t, bs, 1, nil)
	cl := dumptest.Producer(t, bs, kgo.ProducerLinger(0))
	for i := range 400 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "old %d ..............................................", i)})
	}
	dir := t.TempDir()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, bs, topic, 1)
	cl = dumptest.Producer(t, bs, kgo.ProducerLinger(0)) // the first one knows the old topic's id
	for i := range 300 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "new %d ..............................................", i)})
	}
	opts.FetchMaxBytes = 1024
	opts.Progress = &deleteOnFirstRecords{do: func() {
		adm := kadm.NewClient(cl)
		if _, err := adm.DeleteTopics(context.Background(), topic); err != nil {
			t.Error(err)
			return
		}
		for range 100 {
			if td, err := adm.ListTopics(context.Background(), topic); err == nil && !td.Has(topic) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Error("the topic was not gone within 10 s")
	}}
	if _, err := dump.Run(ctx, opts); err == nil {
		t.Fatal("the dump of a topic deleted while read succeeded")
	}
	m, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	man, err := m.ReadManifest(ctx, catalog.TopicPartition{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Rewrites) != 1 || man.NextOffset <= 0 || man.NextOffset >= 300 {
		t.Fatalf("the dump did not stop inside the new topic (next offset %d, %d rewrites): the scenario did not happen", man.NextOffset, len(man.Rewrites))
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || r.Summary.Get("undumped_offsets") != int64(0) || strings.Contains(r.Message, "put back from an older copy") ||
		!strings.Contains(r.Message, "not judged: whether Kafka held more than the folder on 1 partition, whose log was rewritten after its last complete cut") {
		t.Errorf("gaps: %s %q; undumped_offsets %v; want a warning that the new topic's data has no cut", r.Status, r.Message, r.Summary.Get("undumped_offsets"))
	}
	if got := r.Summary.Get("uncut_partitions"); fmt.Sprint(got) != "[0]" {
		t.Errorf("uncut_partitions %v, want [0]", got)
	}
}
