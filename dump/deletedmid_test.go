package dump

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// deleteOnAdvance deletes the topic once the first records are handed to
// a writer, holding that writer (and so the reader) until it is gone.
type deleteOnAdvance struct {
	waitLog
	once sync.Once
	do   func()
}

func (d *deleteOnAdvance) Advance(catalog.TopicPartition, int64, int64) {
	d.once.Do(d.do)
}

// TestTopicDeletedWhileReadEndsItsDump: a topic deleted while its records
// are read ends its dump with the unknown-topic error (exit 4), what was
// read committed and nothing recorded as dumped past it. Before, the dump
// polled the broker's UNKNOWN_TOPIC_ID in a loop without end, saying
// "retrying" a million times in 40 s. Its Try said to list the cluster's
// topics and pass one with --topic, as for a name mistyped.
func TestTopicDeletedWhileReadEndsItsDump(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 2, nil)
	cl := dumptest.Producer(t, brokers, kgo.ProducerLinger(0))
	for i := range 300 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: fmt.Appendf(nil, "record %d ......................................", i)})
	}
	p := &deleteOnAdvance{do: func() {
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
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	dir := t.TempDir()
	_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FetchMaxBytes: 1024, Progress: p})
	if ctx.Err() != nil {
		t.Fatal("the dump of a deleted topic did not end within 40 s")
	}
	if !errors.Is(err, kafkaconn.ErrUnknownTopic) {
		t.Fatalf("dump error %v, want the unknown-topic error", err)
	}
	// Its Try is not the one of a name mistyped ("list the cluster's
	// topics (kafka-topics --list) and pass one with --topic", which it
	// said): the topic was deleted.
	if code, hint := exit.Of(err); code != exit.UnknownTopic || hint != goneHint {
		t.Errorf("exit %d, Try: %s; want exit %d, Try: %s", code, hint, exit.UnknownTopic, goneHint)
	}
	p.mu.Lock()
	said := len(p.said)
	p.mu.Unlock()
	if said > 100 {
		t.Errorf("said %d lines while waiting: a loop without pause", said)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	rows := readAllRows(t, dir, topic)
	for _, m := range ms {
		if m.NextOffset != int64(len(rows[m.Partition])) {
			t.Errorf("partition %d: next offset %d, %d records stored", m.Partition, m.NextOffset, len(rows[m.Partition]))
		}
		for _, s := range m.Snapshots {
			if s.Complete {
				t.Errorf("partition %d recorded complete to %d", m.Partition, s.Until)
			}
		}
	}
}
