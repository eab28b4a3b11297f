package dump

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestCutRecordsConsumerProtocolGroup: a group of Kafka 4's consumer
// protocol (KIP-848) is recorded at the cut as it is, its state and its
// members with their partitions, not as a "Dead" group without members (what
// the classic DescribeGroups answers for it).
func TestCutRecordsConsumerProtocolGroup(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	for i := range 9 {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte("v")})
	}
	group := topic + "-848"
	cons, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.ClientID("cli-848"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for got := 0; got < 9; {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of 9 records: %v", got, err)
		}
		got += fs.NumRecords()
	}
	if err := cons.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}

	dir := t.TempDir()
	s := dumpOnce(t, brokers, dir, topic)
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
		if cs.ID != s.Snapshots[len(s.Snapshots)-1] {
			continue
		}
		if cs.GroupsError != "" {
			t.Errorf("groups_error %q", cs.GroupsError)
		}
		for i := range cs.Groups {
			if cs.Groups[i].Group == group {
				gs = &cs.Groups[i]
			}
		}
	}
	if gs == nil {
		t.Fatalf("the cut does not record group %s", group)
	}
	if gs.State != "Stable" || gs.ProtocolType != "consumer" {
		t.Errorf("group recorded with state %q, protocol type %q; want Stable, consumer", gs.State, gs.ProtocolType)
	}
	if len(gs.Members) != 1 {
		t.Fatalf("members %+v, want the one consumer", gs.Members)
	}
	m := gs.Members[0]
	slices.Sort(m.Assigned)
	if m.ClientID != "cli-848" || m.MemberID == "" || !slices.Equal(m.Assigned, []int32{0, 1, 2}) {
		t.Errorf("member %+v, want client id cli-848 holding partitions 0-2", m)
	}
	if len(gs.Offsets) != 3 {
		t.Errorf("offsets %+v, want 3", gs.Offsets)
	}
}
