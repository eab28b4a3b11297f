package dumptest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// StreamsMember is a member of a Kafka Streams group (KIP-1071) that
// JoinStreams made: its id and epoch, for the offsets it commits.
type StreamsMember struct {
	ID    string
	Epoch int32
	leave func(context.Context)
}

// Leave sends the member's leaving heartbeat (epoch -1) within ctx and
// closes its client; once only.
func (m *StreamsMember) Leave(ctx context.Context) {
	if m.leave != nil {
		m.leave(ctx)
		m.leave = nil
	}
}

// JoinStreams joins group on the real broker as a Kafka Streams client of
// id client does: StreamsGroupHeartbeat to the group's coordinator (franz-go
// routes no streams request) with a topology of one subtopology ("0")
// reading topic, heartbeats until the member is given active tasks, and
// once more to acknowledge them. The caller calls Leave; a member not left
// has its client closed at the test's end, and the broker expires it.
func JoinStreams(ctx context.Context, t testing.TB, brokers []string, group, topic, client string) *StreamsMember {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID(client))
	if err != nil {
		t.Fatal(err)
	}
	co := kadm.NewClient(cl).FindGroupCoordinators(ctx, group)[group]
	if co.Err != nil {
		cl.Close()
		t.Fatalf("find the coordinator of %s: %v", group, co.Err)
	}
	coordinator := cl.Broker(int(co.NodeID))
	process := "7a1f3c52-1b7e-4a57-9d9e-2f00d1c0a001"
	m := &StreamsMember{ID: fmt.Sprintf("%s-%d", client, time.Now().UnixNano())}
	var tasks []kmsg.TaskIDs
	heartbeat := func(ctx context.Context) error {
		req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis, req.ProcessID = group, m.ID, m.Epoch, 30000, &process
		if m.Epoch == 0 {
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
			return fmt.Errorf("streams heartbeat of %s: %w", client, err)
		}
		resp := kresp.(*kmsg.StreamsGroupHeartbeatResponse)
		if resp.ErrorCode != 0 {
			msg := ""
			if resp.ErrorMessage != nil {
				msg = *resp.ErrorMessage
			}
			return fmt.Errorf("streams heartbeat of %s: error %d %s", client, resp.ErrorCode, msg)
		}
		if m.Epoch >= 0 {
			m.Epoch = resp.MemberEpoch
		}
		if resp.ActiveTasks != nil {
			tasks = resp.ActiveTasks
		}
		return nil
	}
	for len(tasks) == 0 {
		if err := heartbeat(ctx); err != nil {
			cl.Close()
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			cl.Close()
			t.Fatalf("the streams member %s was never given tasks", client)
		}
		if len(tasks) == 0 {
			time.Sleep(300 * time.Millisecond)
		}
	}
	if err := heartbeat(ctx); err != nil { // acknowledge the tasks
		cl.Close()
		t.Fatal(err)
	}
	m.leave = func(ctx context.Context) {
		m.Epoch = -1
		if err := heartbeat(ctx); err != nil {
			t.Logf("leave: %v", err)
		}
	}
	t.Cleanup(cl.Close)
	return m
}
