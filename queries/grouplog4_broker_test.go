package queries

import (
	"context"
	"fmt"
	"reflect"
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

// TestShareAndStreamsGroupsInTheCommitLog: on the real broker, a share
// group (KIP-932) is read by franz-go's share consumer, one member and
// then a second, and the first leaves; a streams group (KIP-1071) is
// joined by one member with StreamsGroupHeartbeat, which leaves, and then
// by another. Before, the records Kafka 4.4 wrote for them in
// __consumer_offsets were group_log's decode_error "unknown record type:
// type 14 (other) is not decoded", check members of the share group read
// the cuts ("no cut of … saw it … not judged: 9 records of the log could
// not be decoded and may be the group's") and of the streams group too.
// Now group_log decodes every one, and check members tells each group's
// members from the log: who joined, who left, and what each held last, as
// ShareGroupDescribe and StreamsGroupDescribe (what kafka-share-groups.sh
// and kafka-streams-groups.sh --describe --members print) say.
func TestShareAndStreamsGroupsInTheCommitLog(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("kfake writes no __consumer_offsets and has no streams groups: this test runs on the real broker (set TOPICSNAP_TEST_BROKERS, as make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 3, nil)
	cl := dumptest.Producer(t, brokers)
	for i := range 30 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: fmt.Appendf(nil, "order-%d", i)})
	}
	adm := kadm.NewClient(cl)
	share, streams := topic+"-baristas", topic+"-app"

	// The share group: barista-1 joins, then barista-2, then barista-1
	// leaves; each step waits until the coordinator describes it.
	shareMembers := func() []string {
		d, err := adm.DescribeShareGroups(ctx, share)
		if err != nil || d[share].Err != nil {
			return nil
		}
		var out []string
		for _, m := range d[share].Members {
			ps := []int32{}
			m.Assignment.Each(func(_ string, p int32) { ps = append(ps, p) })
			slices.Sort(ps)
			out = append(out, fmt.Sprint(m.ClientID, " ", ps))
		}
		slices.Sort(out)
		return out
	}
	type poller struct {
		cl   *kgo.Client
		stop context.CancelFunc
		done chan struct{}
	}
	joinShare := func(client string) *poller {
		sc, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID(client), kgo.ShareGroup(share), kgo.ConsumeTopics(topic))
		if err != nil {
			t.Fatal(err)
		}
		pctx, stop := context.WithCancel(ctx)
		p := &poller{cl: sc, stop: stop, done: make(chan struct{})}
		go func() {
			defer close(p.done)
			for pctx.Err() == nil {
				sc.PollFetches(pctx)
			}
		}()
		return p
	}
	leave := func(p *poller) {
		p.stop()
		<-p.done
		p.cl.Close()
	}
	waitFor := func(what string, f func() bool) {
		t.Helper()
		for !f() {
			if ctx.Err() != nil {
				t.Fatalf("%s: never", what)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	held := func(ms []string, n int) bool {
		if len(ms) != n {
			return false
		}
		for _, m := range ms {
			if strings.HasSuffix(m, " []") {
				return false
			}
		}
		return true
	}
	// Once the first has left, the coordinator gives the second every
	// partition: the log's last assignment is then the one described.
	b1 := joinShare("barista-1")
	waitFor("barista-1 described with partitions", func() bool { return held(shareMembers(), 1) })
	b2 := joinShare("barista-2")
	defer leave(b2)
	waitFor("both baristas described with partitions", func() bool { return held(shareMembers(), 2) })
	leave(b1)
	waitFor("barista-1 gone, barista-2 given every partition", func() bool { return reflect.DeepEqual(shareMembers(), []string{"barista-2 [0 1 2]"}) })
	shareNow := shareMembers()
	d, err := adm.DescribeShareGroups(ctx, share)
	if err != nil || len(d[share].Members) != 1 {
		t.Fatalf("describe %s: %v %v", share, err, d)
	}
	shareEpoch := d[share].Members[0].MemberEpoch

	// The streams group: gale-a joins and leaves, then gale-b joins.
	co := adm.FindGroupCoordinators(ctx, streams)[streams]
	if co.Err != nil {
		t.Fatal(co.Err)
	}
	var streamsEpoch int32
	streamsMembers := func() []string {
		req := kmsg.NewPtrStreamsGroupDescribeRequest()
		req.Groups = []string{streams}
		kresp, err := cl.Broker(int(co.NodeID)).Request(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		g := kresp.(*kmsg.StreamsGroupDescribeResponse).Groups[0]
		var out []string
		for _, m := range g.Members {
			var ps []int32
			for _, a := range m.Assignment.ActiveTasks {
				ps = append(ps, a.Partitions...)
			}
			slices.Sort(ps)
			out = append(out, fmt.Sprint(m.ClientID, " ", ps))
			streamsEpoch = m.MemberEpoch
		}
		slices.Sort(out)
		return out
	}
	dumptest.JoinStreams(ctx, t, brokers, streams, topic, "gale-a").Leave(ctx)
	b := dumptest.JoinStreams(ctx, t, brokers, streams, topic, "gale-b")
	defer b.Leave(ctx)
	memberB, epochB := b.ID, b.Epoch
	// gale-b commits offset 7 on each partition (as a Streams client
	// does: its member id and epoch, topics by id).
	tds, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Group, oc.MemberID, oc.Generation = streams, memberB, epochB
	ot := kmsg.NewOffsetCommitRequestTopic()
	ot.Topic, ot.TopicID = topic, tds[topic].ID
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
	streamsNow := streamsMembers()
	t.Logf("described: share %q, streams %q", shareNow, streamsNow)
	if !reflect.DeepEqual(streamsNow, []string{"gale-b [0 1 2]"}) {
		t.Fatalf("the streams group described as %q", streamsNow)
	}

	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{offsetsTopic, topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	groups := quoteString(share) + ", " + quoteString(streams)
	defer func() {
		if t.Failed() {
			for _, row := range queryRows(t, e, `SELECT concat_ws(' ', log_offset, group_id, kind, coalesce(member_id, '-'), tombstone, coalesce(decode_error, 'ok'))
				FROM group_log WHERE group_id IN (`+groups+`) ORDER BY log_partition, log_offset`) {
				t.Log(row)
			}
		}
	}()
	// Every record of the two groups decodes.
	if got := queryRows(t, e, `SELECT count(*)::VARCHAR || ' ' || count(decode_error)::VARCHAR FROM group_log WHERE group_id IN (`+groups+`)`); strings.HasSuffix(got[0], " 0") == false || strings.HasPrefix(got[0], "0 ") {
		t.Errorf("records of the groups, and of those not decoded: %s", got[0])
	}
	// What each member held last, and its epoch, by the log, is what the
	// coordinator describes (the one member left in each group).
	last := func(group string) []string {
		return queryRows(t, e, fmt.Sprintf(`SELECT client_id || ' ' || list_sort(flatten(list_transform(assignment, a -> a.partitions)))::VARCHAR || ' epoch ' || generation
			FROM group_generations WHERE group_id = %s QUALIFY row_number() OVER (PARTITION BY member_id ORDER BY log_offset DESC) = 1
			  AND member_id NOT IN (SELECT member_id FROM group_log WHERE group_id = %[1]s AND tombstone AND kind LIKE '%%current_member')
			ORDER BY 1`, quoteString(group)))
	}
	if got := last(share); len(got) != 1 || strings.ReplaceAll(got[0], ",", "") != shareNow[0]+fmt.Sprint(" epoch ", shareEpoch) {
		t.Errorf("the share group's members in the log now %q, described %q", got, shareNow)
	}
	if got := last(streams); !reflect.DeepEqual(got, []string{fmt.Sprint("gale-b [0, 1, 2] epoch ", streamsEpoch)}) {
		t.Errorf("the streams group's members in the log now %q, described %q", got, streamsNow)
	}

	// Each of gale-b's commits names it, at its epoch.
	if got := queryRows(t, e, fmt.Sprintf(`SELECT DISTINCT concat_ws(' ', member_id, generation, committed_offset) FROM group_commit_log WHERE group_id = %s`,
		quoteString(streams))); !reflect.DeepEqual(got, []string{fmt.Sprint(memberB, " ", epochB, " 7")}) {
		t.Errorf("the streams group's commits %q, want each by %s at epoch %d", got, memberB, epochB)
	}
	for _, g := range []struct {
		group, protocol, first, second, records string
	}{{share, "share", "barista-1", "barista-2", "<nil>"}, {streams, "streams", "gale-a", "gale-b", "0"}} {
		r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: topic, Group: g.group})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("members of %s: %s %s", g.group, r.Status, r.Message)
		if r.Summary.Get("source") != "commit log" || r.Summary.Get("protocol") != g.protocol || asInt(r.Summary.Get("undecodable_log_records")) != 0 ||
			asInt(r.Summary.Get("members")) != 2 {
			t.Errorf("%s: summary %v", g.group, r.Summary.Vals)
		}
		var who []string
		for _, m := range r.Rows {
			left := "in"
			if m.Get("left_at") != nil {
				left = "left"
			}
			who = append(who, fmt.Sprint(m.Get("client_id"), " ", left, " ", m.Get("new_client_id"), " ", m.Get("partitions"), " ", m.Get("records_committed_past")))
		}
		// The first member held the three partitions alone before the
		// second joined; the second is a client id the group had not had.
		// gale-b's first commits are the first the log keeps of the
		// group: where it stood before is not known, nothing is counted.
		if len(who) != 2 || who[0] != g.first+" left <nil> [0 1 2] "+g.records || who[1] != g.second+" in true [0 1 2] "+g.records {
			t.Errorf("%s: members %q", g.group, who)
		}
		if r.Status != StatusWarn || !strings.Contains(r.Message, g.second+" on ") {
			t.Errorf("%s: %s %q", g.group, r.Status, r.Message)
		}
	}
}
