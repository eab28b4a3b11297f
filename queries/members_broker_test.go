package queries

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// groupMember is a kgo classic-group member polling in the background,
// committing what it polled; polled counts its records.
type groupMember struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	polled int
}

func joinGroup(t *testing.T, brokers []string, group, clientID, topic string, opts ...kgo.Opt) *groupMember {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ClientID(clientID), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AutoCommitInterval(200 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &groupMember{cl: cl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			m.mu.Lock()
			m.polled += fs.NumRecords()
			m.mu.Unlock()
		}
	}()
	return m
}

// leave stops polling and leaves the group (kgo commits what was polled).
func (m *groupMember) leave() int {
	m.cancel()
	<-m.done
	m.cl.Close()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.polled
}

// TestMembersOnTheBroker: a classic group of one writer on the real broker;
// two members with a client id the group had not had join, are handed
// partitions, commit, and leave. check members, from the dump of
// __consumer_offsets, names both, each with partitions, a time it left,
// and as many records committed past as it polled; the writer, of the
// first generation with members the log keeps, is not called new. check
// reset attributes the watchers' records to them from the log.
func TestMembersOnTheBroker(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("kfake writes no __consumer_offsets: this test runs on the real broker (set TOPICSNAP_TEST_BROKERS, as make test does)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("farms-%d", time.Now().UnixNano()%1e9)
	group := topic + "-writers"
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 6, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	produced := 0
	produce := func(n int) {
		for i := range n {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 6), Value: []byte(fmt.Sprint(produced))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			produced++
		}
	}
	// waitFor polls cond until it holds.
	waitFor := func(what string, cond func() bool) {
		for !cond() {
			if ctx.Err() != nil {
				t.Fatalf("waiting for %s: %v", what, ctx.Err())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	committed := func() int64 {
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return -1
		}
		var n int64
		offs.Each(func(o kadm.OffsetResponse) { n += o.At })
		return n
	}
	members := func() int {
		gs, err := adm.DescribeGroups(ctx, group)
		if err != nil {
			return -1
		}
		g := gs[group]
		if g.State != "Stable" {
			return -1
		}
		return len(g.Members)
	}
	produce(60)
	writer := joinGroup(t, brokers, group, "galewatch-writer", topic)
	waitFor("the writer's commits", func() bool { return committed() == int64(produced) })
	w1 := joinGroup(t, brokers, group, "galewatch-watcher", topic)
	w2 := joinGroup(t, brokers, group, "galewatch-watcher", topic)
	waitFor("three members", func() bool { return members() == 3 })
	produce(60)
	waitFor("the commits of three members", func() bool { return committed() == int64(produced) })
	watchersPolled := map[string]int{}
	n1, n2 := w1.leave(), w2.leave()
	waitFor("one member", func() bool { return members() == 1 })
	produce(60)
	waitFor("the writer's commits after the watchers left", func() bool { return committed() == int64(produced) })
	writer.leave()

	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic, offsetsTopic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: topic, Group: group})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", r.Status, r.Message)
	if r.Status != StatusWarn || r.Summary.Get("source") != "commit log" || asInt(r.Summary.Get("new_client_ids")) != 1 || asInt(r.Summary.Get("members")) != 3 {
		t.Fatalf("summary %v", r.Summary.Vals)
	}
	var watcherRecords int64
	for _, row := range r.Rows {
		c, _ := row.Get("client_id").(string)
		isNew, _ := row.Get("new_client_id").(bool)
		switch c {
		case "galewatch-writer":
			if row.Get("new_client_id") != nil {
				t.Errorf("writer: new %v", row.Get("new_client_id"))
			}
		case "galewatch-watcher":
			watchersPolled[fmt.Sprint(row.Get("member_id"))]++
			if !isNew || row.Get("left_at") == nil || len(fmt.Sprint(row.Get("partitions"))) <= 2 {
				t.Errorf("watcher %v: new %v, left %v, partitions %v", row.Get("member_id"), isNew, row.Get("left_at"), row.Get("partitions"))
			}
			watcherRecords += asInt(row.Get("records_committed_past"))
		default:
			t.Errorf("a member with client id %q", c)
		}
	}
	if len(watchersPolled) != 2 {
		t.Errorf("watchers named: %v", watchersPolled)
	}
	if watcherRecords != int64(n1+n2) {
		t.Errorf("the watchers committed past %d records, they polled %d", watcherRecords, n1+n2)
	}
	// A reset of the group to before its first record re-reads them all,
	// the watchers' exactly as many as they polled, attributed by the log.
	rr, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: topic, Group: group, ToTime: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", rr.Status, rr.Message)
	if asInt(rr.Summary.Get("records_to_reread")) != int64(produced) {
		t.Fatalf("records_to_reread %v, want %d", rr.Summary.Get("records_to_reread"), produced)
	}
	for _, row := range rr.Rows {
		if row.Get("kind") == "member" && row.Get("client_id") == "galewatch-watcher" {
			if got := asInt(row.Get("records_by_commit_log")); got != int64(n1+n2) || asInt(row.Get("records")) != got {
				t.Errorf("reset: the watchers re-read %v (%d by the log), they polled %d", row.Get("records"), got, n1+n2)
			}
		}
	}
}
