package queries

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestShareGroupsAreRecorded: a share group (KIP-932) reads a topic. It
// commits no offsets, so OffsetFetch knows nothing of it, and before the
// cut asked for share groups, `check lag` said "OK: no consumer group had
// committed offsets" and `check members` "no cut saw it". The cut now
// records the group with its members and Kafka's state on each partition;
// lag answers with Kafka's own count of what the group has not
// acknowledged (the records produced after its member left), members
// names the member. On the real broker (make test) and on kfake.
func TestShareGroupsAreRecorded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("tea-queue-%d", time.Now().UnixNano()%1e9)
	group := topic + "-baristas"
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	produce := func(from, n int) {
		for i := from; i < from+n; i++ {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: fmt.Appendf(nil, "order-%d", i)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce(0, 30)
	// A share group starts at the end unless told otherwise.
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = "share.auto.offset.reset", kmsg.StringPtr("earliest")
	res.Configs = append(res.Configs, cfg)
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.Resources[0].ErrorCode != 0 {
		t.Fatalf("set share.auto.offset.reset: %v %+v", err, resp)
	}

	sc, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID("barista-1"), kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for got < 30 {
		fs := sc.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("the share consumer polled %d of 30 records: %v", got, ctx.Err())
		}
		got += fs.NumRecords()
	}
	// Every record acknowledged: Kafka's lag reaches 0 (a record polled is
	// accepted at the next poll).
	acked := func() bool {
		offs, err := adm.DescribeShareGroupOffsets(ctx, group)
		if err != nil {
			return false
		}
		var lag int64
		n := 0
		for _, o := range offs[group].Offsets[topic] {
			lag += o.Lag
			n++
		}
		return n == 3 && lag == 0
	}
	for !acked() {
		pctx, pcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		sc.PollFetches(pctx)
		pcancel()
		if ctx.Err() != nil {
			t.Fatal("the share group's lag never reached 0")
		}
	}

	dir := t.TempDir()
	dumpAndCheck := func() (*Report, *Report) {
		t.Helper()
		if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
		e, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		lag, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		members, err := e.RunCheck(ctx, "members", CheckOptions{Topic: topic, Group: group})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("lag %s: %s", lag.Status, lag.Message)
		t.Logf("members %s: %s", members.Status, members.Message)
		return lag, members
	}

	// 1. The member is in the group, everything acknowledged.
	lag, members := dumpAndCheck()
	if lag.Status != StatusOK || asInt(lag.Summary.Get("share_groups")) != 1 || asInt(lag.Summary.Get("max_share_lag_records")) != 0 ||
		!strings.Contains(lag.Message, "every record acknowledged") {
		t.Errorf("lag with the member in: %s %q %v", lag.Status, lag.Message, lag.Summary.Vals)
	}
	var shareParts []int64
	var clients []string
	for _, r := range lag.Rows {
		switch r.Get("kind") {
		case "share":
			shareParts = append(shareParts, asInt(r.Get("partition")))
			if r.Get("group_id") != group {
				t.Errorf("share row %v", r)
			}
		case "member":
			clients = append(clients, fmt.Sprint(r.Get("client_id"), r.Get("assigned_partitions")))
		}
	}
	if !slices.Equal(shareParts, []int64{0, 1, 2}) || !slices.Equal(clients, []string{"barista-1[0 1 2]"}) {
		t.Errorf("lag's share rows on partitions %v, members %v", shareParts, clients)
	}
	if asInt(members.Summary.Get("members")) != 1 || len(members.Rows) != 1 || members.Rows[0].Get("client_id") != "barista-1" {
		t.Errorf("members: %s %q %v %v", members.Status, members.Message, members.Summary.Vals, members.Rows)
	}

	// 2. The member leaves; 6 more orders arrive that nobody acknowledges.
	sc.Close()
	produce(30, 6)
	lag, _ = dumpAndCheck()
	if lag.Status != StatusWarn || asInt(lag.Summary.Get("max_share_lag_records")) != 2 ||
		!strings.Contains(lag.Message, "up to 2 records not yet acknowledged") {
		t.Errorf("lag after 6 unacknowledged records: %s %q %v", lag.Status, lag.Message, lag.Summary.Vals)
	}
	var total int64
	for _, r := range lag.Rows {
		if r.Get("kind") == "share" {
			total += asInt(r.Get("share_lag_records"))
		}
	}
	if total != 6 {
		t.Errorf("Kafka's share lag sums to %d over the partitions, want 6", total)
	}
}
