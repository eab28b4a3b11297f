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
	topic := fmt.Sprintf("gale-stream-%d", time.Now().UnixNano()%1e9)
	group := topic + "-app"
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID("gale-stream-1"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	for i := range 30 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte("gust")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	// Join: heartbeat to the group's coordinator (franz-go routes no
	// streams request itself) until the member holds its tasks.
	co := adm.FindGroupCoordinators(ctx, group)[group]
	if co.Err != nil {
		t.Fatal(co.Err)
	}
	coordinator := cl.Broker(int(co.NodeID))
	process := "7a1f3c52-1b7e-4a57-9d9e-2f00d1c0a001"
	memberID, epoch := fmt.Sprintf("gale-%d", time.Now().UnixNano()), int32(0)
	var tasks []kmsg.TaskIDs
	heartbeat := func() *kmsg.StreamsGroupHeartbeatResponse {
		t.Helper()
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis, req.ProcessID = group, memberID, epoch, 30000, &process
		if epoch == 0 {
			st := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
			st.SubtopologyID, st.SourceTopics = "0", []string{topic}
			tp := kmsg.NewStreamsGroupHeartbeatRequestTopology()
			tp.Subtopologies = []kmsg.StreamsGroupHeartbeatRequestTopologySubtopology{st}
			req.Topology = &tp
		}
		// The tasks the member holds: empty lists (not null) when joining.
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = append([]kmsg.TaskIDs{}, tasks...), []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
		kresp, err := coordinator.Request(ctx, req)
		if err != nil {
			t.Fatalf("streams heartbeat: %v", err)
		}
		resp := kresp.(*kmsg.StreamsGroupHeartbeatResponse)
		if resp.ErrorCode != 0 {
			msg := ""
			if resp.ErrorMessage != nil {
				msg = *resp.ErrorMessage
			}
			t.Fatalf("streams heartbeat: error %d %s", resp.ErrorCode, msg)
		}
		epoch = resp.MemberEpoch
		if resp.ActiveTasks != nil {
			tasks = resp.ActiveTasks
		}
		return resp
	}
	for len(tasks) == 0 {
		heartbeat()
		if ctx.Err() != nil {
			t.Fatal("the streams member was never given tasks")
		}
		time.Sleep(300 * time.Millisecond)
	}
	heartbeat() // acknowledge the tasks
	defer func() {
		epoch = -1 // leave
		heartbeat()
	}()
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
