package dump

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestCutRecordsGroupWithoutCommittedOffset: a group whose committed offset
// is -1 (Kafka's "no committed offset"; kafka-consumer-groups lists it with
// "-") is recorded at the cut with that partition, as Kafka said it, not
// left out of the cut.
func TestCutRecordsGroupWithoutCommittedOffset(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	for i := range 4 {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte("v")})
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	group := topic + "-neg"
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: -1, LeaderEpoch: -1})
	offs.Add(kadm.Offset{Topic: topic, Partition: 1, At: 1, LeaderEpoch: -1})
	if err := kadm.NewClient(cl).CommitAllOffsets(ctx, group, offs); err != nil {
		t.Fatalf("commit: %v", err)
	}

	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := d.ClusterSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var gs *catalog.GroupState
	for _, cs := range snaps {
		for i := range cs.Groups {
			if cs.Groups[i].Group == group {
				gs = &cs.Groups[i]
			}
		}
	}
	if gs == nil {
		t.Fatalf("group %s committed -1 on partition 0 and 1 on partition 1, but the cut does not record it", group)
	}
	want := map[int32]bool{0: true, 1: false} // partition: no committed offset
	if len(gs.Offsets) != len(want) {
		t.Fatalf("offsets %+v, want partitions 0 (none) and 1 (offset 1)", gs.Offsets)
	}
	for _, o := range gs.Offsets {
		if o.NoOffset() != want[o.Partition] {
			t.Errorf("partition %d: offset %d, NoOffset %v, want %v", o.Partition, o.Offset, o.NoOffset(), want[o.Partition])
		}
		if o.Partition == 1 && o.Offset != 1 {
			t.Errorf("partition 1: offset %d, want 1", o.Offset)
		}
	}
}

// TestCutRecordsGroupThatNeverCommitted: a group whose member is assigned
// the topic's partitions and never committed (auto-commit off, a consumer
// that crashed before its first commit) is recorded at the cut with those
// partitions at "no committed offset" (-1), as kafka-consumer-groups
// --describe lists it ("-"). It was left out of the cut, so check lag said
// "OK: no consumer group had committed offsets on the topic" and
// check lag --group named it "in no snapshot". Both group protocols.
func TestCutRecordsGroupThatNeverCommitted(t *testing.T) {
	brokers := testCluster(t)
	for _, tc := range []struct {
		name string
		opts []kgo.Opt
	}{
		{"classic", nil},
		{"consumer", []kgo.Opt{kgo.ServerSideBalancer()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := newTopic(t, brokers, 2, nil)
			p := producer(t, brokers)
			for i := range 4 {
				produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte("v")})
			}
			group := topic + "-sitter"
			opts := append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
				kgo.ClientID("sitter"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit()}, tc.opts...)
			cons, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cons.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			for got := 0; got < 4; { // assigned both partitions: it read them all
				fs := cons.PollFetches(ctx)
				if err := ctx.Err(); err != nil {
					t.Fatalf("consumed %d of 4 records: %v", got, err)
				}
				got += fs.NumRecords()
			}

			dir := t.TempDir()
			dumpOnce(t, brokers, dir, topic)
			d, err := catalog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			snaps, err := d.ClusterSnapshots(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var gs *catalog.GroupState
			for _, cs := range snaps {
				for i := range cs.Groups {
					if cs.Groups[i].Group == group {
						gs = &cs.Groups[i]
					}
				}
			}
			if gs == nil {
				t.Fatalf("group %s was assigned both partitions of %s and never committed, but the cut does not record it", group, topic)
			}
			if len(gs.Offsets) != 2 {
				t.Fatalf("offsets %+v, want partitions 0 and 1 with no committed offset", gs.Offsets)
			}
			for i, o := range gs.Offsets {
				if o.Partition != int32(i) || !o.NoOffset() {
					t.Errorf("offset %+v, want partition %d with no committed offset (-1)", o, i)
				}
			}
			if len(gs.Members) != 1 || gs.Members[0].ClientID != "sitter" || len(gs.Members[0].Assigned) != 2 {
				t.Errorf("members %+v, want the sitter holding partitions 0 and 1", gs.Members)
			}
		})
	}
}
