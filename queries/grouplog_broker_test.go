package queries

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// consumeGroup has a consumer group (client id clientID; opts choose the
// protocol) read n records of topic, commit them, and leave. It returns
// the group's committed offsets as kadm reads them back, "topic/partition
// offset" sorted.
func consumeGroup(t *testing.T, brokers []string, group, clientID, topic string, n int, opts ...kgo.Opt) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.ClientID(clientID), kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	for got := 0; got < n; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			cl.Close()
			t.Fatalf("group %s consumes %s: %v", group, topic, err)
		}
		got += fs.NumRecords()
	}
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		cl.Close()
		t.Fatalf("group %s commits: %v", group, err)
	}
	cl.Close()
	admCl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	offs, err := kadm.NewClient(admCl).FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	offs.Each(func(o kadm.OffsetResponse) { out = append(out, fmt.Sprintf("%s/%d %d", o.Topic, o.Partition, o.At)) })
	sort.Strings(out)
	return out
}

// lastCommitsSQL lists a group's last commit of each partition in
// group_commit_log, "topic/partition offset", leaving out those deleted.
const lastCommitsSQL = `SELECT topic || '/' || "partition" || ' ' || arg_max(committed_offset, log_offset)
	FROM group_commit_log WHERE group_id = %s GROUP BY topic, "partition" HAVING NOT arg_max(deleted, log_offset) ORDER BY 1`

// classicAssignedSQL lists what a classic group's members were assigned,
// "client_id topic [partitions]".
const classicAssignedSQL = `SELECT DISTINCT client_id || ' ' || a.topic || ' ' || list_sort(a.partitions)::VARCHAR
	FROM (SELECT client_id, unnest(assignment) AS a FROM group_generations WHERE group_id = %s AND group_protocol = 'classic') ORDER BY 1`

// TestGroupCommitLogOnTheBroker: a classic group and a consumer-protocol
// (KIP-848) group consume and commit on the real broker; the dump of
// __consumer_offsets then answers, in group_commit_log, each group's
// commits exactly as the broker reads its committed offsets back, and in
// group_generations each member with its client id and its partitions;
// each classic commit names the member that held its partition.
func TestGroupCommitLogOnTheBroker(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("kfake writes no __consumer_offsets: this test runs on the real broker (set TOPICSNAP_TEST_BROKERS, as make test does)")
	}
	ctx := context.Background()
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("turbines-%d", time.Now().UnixNano()%1e9)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if r, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	for i := range 30 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprint(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	classic, consumer := topic+"-watchers", topic+"-next"
	wantClassic := consumeGroup(t, brokers, classic, "watcher-classic", topic, 30)
	wantConsumer := consumeGroup(t, brokers, consumer, "watcher-848", topic, 30,
		kgo.Balancers(kgo.RangeBalancer()), kgo.ServerSideBalancer())

	dir := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := dump.Run(dctx, dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{offsetsTopic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// Each partition's last commit in the log is the committed offset.
	last := func(group string) []string { return queryRows(t, e, fmt.Sprintf(lastCommitsSQL, quoteString(group))) }
	for _, g := range []struct {
		group string
		want  []string
	}{{classic, wantClassic}, {consumer, wantConsumer}} {
		if got := last(g.group); !reflect.DeepEqual(got, g.want) {
			t.Errorf("group %s: group_commit_log's last commits %q, the broker's committed offsets %q", g.group, got, g.want)
		}
	}
	// The classic member held the three partitions, named by topic.
	got := queryRows(t, e, fmt.Sprintf(classicAssignedSQL, quoteString(classic)))
	if want := []string{"watcher-classic " + topic + " [0, 1, 2]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("classic group_generations %q, want %q", got, want)
	}
	// Each of the classic group's commits names the member that held the
	// partition in the generation current at the commit.
	got = queryRows(t, e, fmt.Sprintf(`SELECT DISTINCT coalesce(client_id, '-') || ' ' || (generation IS NOT NULL)
		FROM group_commit_log WHERE group_id = %s AND NOT deleted`, quoteString(classic)))
	if want := []string{"watcher-classic true"}; !reflect.DeepEqual(got, want) {
		t.Errorf("the classic group's commits were made by %q, want %q", got, want)
	}
	// The consumer-protocol member, its partitions named by topic id.
	got = queryRows(t, e, fmt.Sprintf(`SELECT DISTINCT client_id || ' ' || list_sort(a.partitions)::VARCHAR
		FROM (SELECT client_id, unnest(assignment) AS a FROM group_generations WHERE group_id = %s AND group_protocol = 'consumer') WHERE len(a.partitions) = 3`, quoteString(consumer)))
	if want := []string{"watcher-848 [0, 1, 2]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("consumer-protocol group_generations %q, want %q", got, want)
	}
	if n := queryRows(t, e, `SELECT count(*)::VARCHAR FROM group_log WHERE decode_error IS NOT NULL AND kind <> 'other' AND kind <> 'consumer_group_partition_metadata'`); n[0] != "0" {
		t.Errorf("%s records of known types did not decode", n[0])
	}
}
