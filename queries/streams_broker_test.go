package queries

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestStreamsGroupIsDescribed: a group of Kafka Streams' rebalance
// protocol (KIP-1071, on by default in Kafka 4.4: an application with
// group.protocol=streams) commits offsets like any group, but the classic
// DescribeGroups answers it GROUP_ID_NOT_FOUND. Before, the dump warned
// "could not describe consumer groups … (GROUP_ID_NOT_FOUND: The group id
// does not exist.)", recorded the group as "Dead" without members, and lag
// warned the groups were not all readable. The cut now describes it with
// StreamsGroupDescribe: its state, its member, and the partitions of the
// topic its active tasks read. The member here joins as a Streams client
// does (StreamsGroupHeartbeat with a topology of one subtopology reading
// the topic) and commits. kfake has no streams groups: real broker only.
func TestStreamsGroupIsDescribed(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("kfake has no streams groups (KIP-1071): this test runs on the real broker (set TOPICSNAP_TEST_BROKERS, as make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 3, nil)
	group := topic + "-app"
	cl := dumptest.Producer(t, brokers)
	adm := kadm.NewClient(cl)
	for i := range 30 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte("gust")})
	}
	// The member holds its tasks (partitions 0-2 of the topic), then
	// commits; it leaves at the test's end.
	m := dumptest.JoinStreams(ctx, t, brokers, group, topic, "gale-stream-1")
	defer m.Leave(ctx)
	memberID, epoch := m.ID, m.Epoch
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Group, oc.MemberID, oc.Generation = group, memberID, epoch
	ot := kmsg.NewOffsetCommitRequestTopic()
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	ot.Topic, ot.TopicID = topic, tds[topic].ID // OffsetCommit v10 names topics by id
	for p := range int32(3) {
		op := kmsg.NewOffsetCommitRequestTopicPartition()
		op.Partition, op.Offset = p, 7
		ot.Partitions = append(ot.Partitions, op)
	}
	oc.Topics = []kmsg.OffsetCommitRequestTopic{ot}
	ocr, err := oc.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ocr.Topics[0].Partitions {
		if p.ErrorCode != 0 {
			t.Fatalf("commit on partition %d: error %d", p.Partition, p.ErrorCode)
		}
	}

	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: topic, Group: group})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", r.Status, r.Message)
	if asInt(r.Summary.Get("snapshots_with_unreadable_groups")) != 0 || asInt(r.Summary.Get("max_lag_records")) != 3 {
		t.Errorf("summary %v, want every group read and 3 records behind", r.Summary.Vals)
	}
	var states, members []string
	for _, row := range r.Rows {
		switch row.Get("kind") {
		case "offset":
			states = append(states, fmt.Sprint(row.Get("state")))
		case "member":
			members = append(members, fmt.Sprint(row.Get("member_id"), row.Get("assigned_partitions")))
		}
	}
	if !slices.Equal(states, []string{"Stable", "Stable", "Stable"}) || !slices.Equal(members, []string{memberID + "[0 1 2]"}) {
		t.Errorf("states %v, members %v; want Stable thrice and %s holding 0-2", states, members, memberID)
	}
}
