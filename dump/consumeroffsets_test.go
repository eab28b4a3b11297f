package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

const offsetsTopic = "__consumer_offsets"

// needOffsetsTopic skips the test on kfake, which keeps its groups in
// memory and writes no __consumer_offsets.
func needOffsetsTopic(t *testing.T) {
	t.Helper()
	if !dumptest.Real() {
		t.Skip("kfake writes no __consumer_offsets: this test runs on the real broker (set TOPICSNAP_TEST_BROKERS, as make test does)")
	}
}

// consumeAndCommit has a classic consumer group (client id clientID) read
// every record of topic and commit, then leave the group. It returns the
// group's committed offsets as kadm reads them back.
func consumeAndCommit(t *testing.T, brokers []string, group, clientID, topic string, records int) kadm.OffsetResponses {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ClientID(clientID), kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < records; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			cl.Close()
			t.Fatalf("consume %s as group %s: %v", topic, group, err)
		}
		n += fs.NumRecords()
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		cl.Close()
		t.Fatalf("commit: %v", err)
	}
	cl.Close() // leaves the group: one more generation, empty
	adm := kadm.NewClient(producer(t, brokers))
	offs, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	return offs
}

// offsetsLog decodes every record of __consumer_offsets the folder holds,
// and checks that each offset of each partition is stored once.
func offsetsLog(t *testing.T, dir string) []consumeroffsets.Record {
	t.Helper()
	var out []consumeroffsets.Record
	for p, rows := range readAllRows(t, dir, offsetsTopic) {
		seen := map[int64]bool{}
		for _, r := range rows {
			if seen[r.Offset] {
				t.Fatalf("__consumer_offsets partition %d offset %d stored twice", p, r.Offset)
			}
			seen[r.Offset] = true
			if r.Control {
				continue
			}
			rec, err := consumeroffsets.Decode(r.Key, r.Value)
			if err != nil && !errors.Is(err, consumeroffsets.ErrUnknownType) {
				t.Errorf("partition %d offset %d: %v", p, r.Offset, err)
			}
			out = append(out, rec)
		}
	}
	return out
}

// lastCommits are the group's newest commits in the log, by topic and
// partition (a tombstone removes one).
func lastCommits(recs []consumeroffsets.Record, group string) map[string]int64 {
	type at struct {
		offset int64
		time   int64
	}
	last := map[string]at{}
	for _, r := range recs {
		if r.Kind != consumeroffsets.KindOffsetCommit || r.Group != group {
			continue
		}
		k := fmt.Sprintf("%s/%d", r.Topic, r.Partition)
		if r.Tombstone {
			delete(last, k)
			continue
		}
		if c := r.Commit; c.CommitTimestampMs >= last[k].time {
			last[k] = at{c.Offset, c.CommitTimestampMs}
		}
	}
	out := map[string]int64{}
	for k, v := range last {
		out[k] = v.offset
	}
	return out
}

func TestDumpConsumerOffsetsOnceAndFollowing(t *testing.T) {
	needOffsetsTopic(t)
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	for i := range 30 {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprint(i))})
	}
	group := topic + "-readers"
	offs := consumeAndCommit(t, brokers, group, "watcher-a", topic, 30)

	dir := t.TempDir()
	dumpOnce(t, brokers, dir, offsetsTopic)
	recs := offsetsLog(t, dir)
	want := map[string]int64{}
	offs.Each(func(o kadm.OffsetResponse) { want[fmt.Sprintf("%s/%d", o.Topic, o.Partition)] = o.At })
	if got := lastCommits(recs, group); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("commits in the dumped log %v, want the group's committed offsets %v", got, want)
	}
	var member bool
	for _, r := range recs {
		if r.Kind == consumeroffsets.KindGroupMetadata && r.Group == group && r.Classic != nil {
			for _, m := range r.Classic.Members {
				if m.ClientID == "watcher-a" && len(m.Assignment) == 1 && m.Assignment[0].Topic == topic && len(m.Assignment[0].Partitions) == 3 {
					member = true
				}
			}
		}
	}
	if !member {
		t.Fatalf("no generation of group %s holds member watcher-a assigned the 3 partitions of %s", group, topic)
	}

	// Following: a commit made while the dump follows is stored, once.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{offsetsTopic}, Follow: true, Interval: 200 * time.Millisecond})
		done <- err
	}()
	if err := CommitGroupOffsets(context.Background(), kafkaconn.Conn{Brokers: brokers}, group, topic, map[int32]int64{0: 7}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if lastCommits(offsetsLog(t, dir), group)[topic+"/0"] == 7 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the follow never stored the new commit")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("follow ended with %v", err)
	}
	offsetsLog(t, dir) // every offset once, after two runs
	d, _ := catalog.Open(dir)
	if ms, err := d.Manifests(ctx, offsetsTopic); err != nil || len(ms) == 0 {
		t.Fatalf("manifests of %s: %v, %d", offsetsTopic, err, len(ms))
	}
}

// TestTopicRegexSkipsInternalTopics: only --topic names an internal topic;
// --topic-regex never selects one, though the listing now holds them.
func TestTopicRegexSkipsInternalTopics(t *testing.T) {
	brokers := testCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: t.TempDir(), TopicRegex: "^__consumer_offsets$"})
	if !errors.Is(err, kafkaconn.ErrUnknownTopic) {
		t.Fatalf("--topic-regex ^__consumer_offsets$: %v, want no topic matched", err)
	}
}

// TestTopicRegexSelectsAUsersDoubleUnderscoreTopic: a topic a user made
// whose name starts with "__" (Debezium's heartbeat topics are
// __debezium-heartbeat.SERVER) is no internal topic of Kafka's. A nightly
// dump with --topic-regex '.*' left it out in silence (the regex skipped
// every name starting with "__"); "--topic-regex '^__audit'" said "no topic
// matches". Only what the broker marks internal is left out now.
func TestTopicRegexSelectsAUsersDoubleUnderscoreTopic(t *testing.T) {
	brokers := testCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	topic := fmt.Sprintf("__audit-%d", time.Now().UnixNano())
	if err := CreateTopic(ctx, kafkaconn.Conn{Brokers: brokers}, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	cl := producer(t, brokers)
	produce(t, cl, &kgo.Record{Topic: topic, Value: []byte("a")}, &kgo.Record{Topic: topic, Value: []byte("b")})
	// A group's commit makes __consumer_offsets, which the regex must still leave out.
	g, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumerGroup("g-"+topic), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 2 && ctx.Err() == nil; {
		n += g.PollFetches(ctx).NumRecords()
	}
	if err := g.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	g.Close()
	dir := t.TempDir()
	s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, TopicRegex: "^__"})
	if err != nil {
		t.Fatalf("--topic-regex ^__: %v, want %s dumped", err, topic)
	}
	d, _ := catalog.Open(dir)
	ms, err := d.Manifests(ctx, topic)
	if err != nil || len(ms) != 1 || ms[0].NextOffset != 2 {
		t.Fatalf("manifests of %s: %v, %v; want its 2 records (summary %+v)", topic, ms, err, s)
	}
	for _, internal := range []string{"__consumer_offsets", "__transaction_state"} {
		if ms, _ := d.Manifests(ctx, internal); len(ms) > 0 {
			t.Errorf("--topic-regex ^__ dumped Kafka's internal topic %s", internal)
		}
	}
}

// TestTopicRegexNamesFolderTopicsTheClusterNoLongerLists: a nightly
// --topic-regex '.*' dump into a folder holding a topic the cluster no
// longer lists (deleted, or the principal lost DESCRIBE on it: the broker
// lists only the topics a principal may describe) left it out without a
// word. Now it warns, naming the topic and why as far as the broker says.
func TestTopicRegexNamesFolderTopicsTheClusterNoLongerLists(t *testing.T) {
	brokers := testCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	prefix := fmt.Sprintf("unlisted-%d-", time.Now().UnixNano())
	kept, gone := prefix+"kept", prefix+"gone"
	for _, n := range []string{kept, gone} {
		if err := CreateTopic(ctx, kafkaconn.Conn{Brokers: brokers}, n, 1, nil); err != nil {
			t.Fatal(err)
		}
		produce(t, producer(t, brokers), &kgo.Record{Topic: n, Value: []byte("v")})
	}
	dir := t.TempDir()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, TopicRegex: "^" + prefix}
	if _, err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	cl := producer(t, brokers)
	if _, err := kadm.NewClient(cl).DeleteTopics(ctx, gone); err != nil {
		t.Fatal(err)
	}
	for {
		if td, err := kadm.NewClient(cl).ListTopics(ctx, gone); err == nil && !td.Has(gone) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the topic was not gone")
		}
		time.Sleep(100 * time.Millisecond)
	}
	w := &waitLog{}
	opts.Progress = w
	if _, err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	said := strings.Join(w.said, "\n")
	if !strings.Contains(said, "topic "+gone+" of the folder matches --topic-regex \"^"+prefix+"\" but the cluster does not list it: deleted from the cluster; it is not dumped") || strings.Contains(said, kept+" of the folder") {
		t.Errorf("warnings:\n%s\nwant one naming %s as deleted, none of %s", said, gone, kept)
	}
}
