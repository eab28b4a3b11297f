package restore

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
)

// TestRestoreTopicMadeAgainWithFewerPartitions: a topic deleted and made
// again with fewer partitions leaves the folder a partition that holds only
// the old topic's records, superseded whole. A restore takes the topic as it
// is now: into a topic of the new partition count (refused before: "topic
// has 1 partitions, the source had 2"), and a new target gets the new
// count, not an empty partition of the old topic.
func TestRestoreTopicMadeAgainWithFewerPartitions(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 2, nil)
	p := dumptest.Producer(t, brokers)
	dumptest.Produce(t, p, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("old-0")}, &kgo.Record{Topic: topic, Partition: 1, Value: []byte("old-1")})
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	dumptest.RemakeTopic(t, brokers, topic, 1)
	dumptest.Produce(t, dumptest.Producer(t, brokers), &kgo.Record{Topic: topic, Partition: 0, Value: []byte("new-0")})
	dumpOnce(t, brokers, dir, topic)

	existing := dumptest.NewTopic(t, brokers, 1, nil)
	s := restoreOnce(t, brokers, dir, topic, existing)
	if s.Records != 1 || len(s.Partitions) != 1 {
		t.Fatalf("restore into a topic of the new partition count: %+v", s)
	}

	created := topic + "-again"
	s = restoreOnce(t, brokers, dir, topic, created)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	t.Cleanup(func() { adm.DeleteTopics(context.Background(), created) })
	td, err := adm.ListTopics(t.Context(), created)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(td[created].Partitions); s.Records != 1 || n != 1 {
		t.Fatalf("new target: %d records into %d partitions, want 1 into the topic's 1", s.Records, n)
	}
}
