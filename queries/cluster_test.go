package queries

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// The tests on a real three-broker cluster (scripts/kafka-cluster.sh: one
// KRaft controller, brokers 1, 2 and 3). They stop, kill and restart
// brokers and move leaders and replicas, so they run one at a time, and
// each leaves every broker running.

// cluster is the three-broker cluster the tests drive.
type cluster struct {
	t       *testing.T
	brokers []string
	script  string
	adm     *kadm.Client
	cl      *kgo.Client
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	b := os.Getenv("TOPICSNAP_TEST_CLUSTER_BROKERS")
	if b == "" {
		t.Skip("TOPICSNAP_TEST_CLUSTER_BROKERS not set (scripts/kafka-cluster.sh start prints it; make test sets it)")
	}
	script := os.Getenv("TOPICSNAP_TEST_CLUSTER_SCRIPT")
	if script == "" {
		t.Fatal("TOPICSNAP_TEST_CLUSTER_BROKERS is set but TOPICSNAP_TEST_CLUSTER_SCRIPT is not: the tests stop and start brokers with it")
	}
	brokers := strings.Split(b, ",")
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, brokers: brokers, script: script, adm: kadm.NewClient(cl), cl: cl}
	t.Cleanup(func() {
		// Whatever a test stopped comes back for the next one.
		for n := 1; n <= 3; n++ {
			c.run("start-broker", strconv.Itoa(n))
		}
		cl.Close()
	})
	return c
}

// run runs the cluster script; a failure fails the test.
func (c *cluster) run(args ...string) string {
	c.t.Helper()
	out, err := exec.Command(c.script, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("%s %s: %v\n%s", c.script, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// createTopic makes topic with one partition on replicas (the first one
// its preferred leader) and configs, and waits until it has its leader.
func (c *cluster) createTopic(topic string, replicas []int32, configs map[string]string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 30*time.Second)
	defer cancel()
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, -1, -1
	a := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	a.Partition, a.Replicas = 0, replicas
	rt.ReplicaAssignment = append(rt.ReplicaAssignment, a)
	for k, v := range configs {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name, cfg.Value = k, kmsg.StringPtr(v)
		rt.Configs = append(rt.Configs, cfg)
	}
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 20000
	resp, err := req.RequestWith(ctx, c.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.Topics[0].ErrorCode)
	}
	if err != nil {
		c.t.Fatalf("create topic %s: %v", topic, err)
	}
	c.waitLeader(topic, replicas[0])
}

// partition is partition 0 of topic as the metadata says.
func (c *cluster) partition(topic string) (kadm.PartitionDetail, error) {
	ctx, cancel := context.WithTimeout(c.t.Context(), 10*time.Second)
	defer cancel()
	md, err := c.adm.Metadata(ctx, topic)
	if err != nil {
		return kadm.PartitionDetail{}, err
	}
	p, ok := md.Topics[topic].Partitions[0]
	if !ok {
		return kadm.PartitionDetail{}, fmt.Errorf("%s has no partition 0 yet", topic)
	}
	return p, nil
}

// waitFor polls what until it holds (a broker's view of the cluster
// changing, not goroutines).
func (c *cluster) waitFor(what string, cond func(kadm.PartitionDetail) bool, topic string) kadm.PartitionDetail {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := c.partition(topic)
		if err == nil && cond(p) {
			return p
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: %s never happened (last: %+v, %v)", topic, what, p, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *cluster) waitLeader(topic string, leader int32) kadm.PartitionDetail {
	c.t.Helper()
	return c.waitFor(fmt.Sprintf("leader %d", leader), func(p kadm.PartitionDetail) bool { return p.Leader == leader }, topic)
}

// produce writes n records (values prefix-0, prefix-1, ...) to partition 0
// of topic with acks=all, from an idempotent producer unless plain.
func (c *cluster) produce(topic, prefix string, n int, plain bool) {
	c.t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(c.brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerLinger(0)}
	if plain {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		c.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(c.t.Context(), 60*time.Second)
	defer cancel()
	var recs []*kgo.Record
	for i := range n {
		recs = append(recs, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("%s-%d", prefix, i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		c.t.Fatalf("produce %d records to %s: %v", n, topic, err)
	}
}

// dumpTopic dumps topic into dir.
func (c *cluster) dumpTopic(dir, topic string) dump.Summary {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 2*time.Minute)
	defer cancel()
	sum, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic}})
	if err != nil {
		c.t.Fatalf("dump %s: %v", topic, err)
	}
	return sum
}

// check runs a check on dir's topic.
func check(t *testing.T, dir, name, topic string) *Report {
	t.Helper()
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), name, CheckOptions{Topic: topic})
	if err != nil {
		t.Fatalf("check %s: %v", name, err)
	}
	return r
}

// uniqueTopic names a topic of this run.
func uniqueTopic(name string) string {
	return fmt.Sprintf("cluster-%s-%d", name, time.Now().UnixNano())
}

// TestClusterUncleanElection is issue 29's finding, on a real cluster: a
// partition on brokers 1 and 2 is dumped, broker 2 stops, broker 1 takes
// 50 more records that are dumped too, broker 1 stops, broker 2 is
// elected with the real kafka-leader-election --election-type unclean and
// takes 60 new records at offsets 100-159, broker 1 comes back (and
// truncates its log to broker 2's). The next dump must notice offsets
// 100-149 are another history, keep both versions, and the checks must
// fail on it.
func TestClusterUncleanElection(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("unclean")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2}, map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "false"})

	c.produce(topic, "first", 100, false)
	if s := c.dumpTopic(dir, topic); s.Records != 100 || s.Rewrites != 0 {
		t.Fatalf("first dump: %v", s)
	}
	c.run("stop-broker", "2")
	c.waitFor("ISR [1]", func(p kadm.PartitionDetail) bool { return slices.Equal(p.ISR, []int32{1}) }, topic)
	c.produce(topic, "lost", 50, false) // offsets 100-149, on broker 1 alone
	if s := c.dumpTopic(dir, topic); s.Records != 50 || s.Rewrites != 0 {
		t.Fatalf("second dump: %v", s)
	}
	before, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m0, err := before.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic, Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	oldEpoch := *m0.Files[len(m0.Files)-1].LastLeaderEpoch

	c.run("stop-broker", "1")
	c.run("start-broker", "2")
	// Broker 2 is not in the ISR: only an unclean election makes it leader.
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := exec.Command(c.script, "run", "org.apache.kafka.tools.LeaderElectionCommand",
			"--bootstrap-server", strings.Join(c.brokers, ","), "--election-type", "unclean",
			"--topic", topic, "--partition", "0").CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("unclean election of broker 2: %v\n%s", err, out)
		}
		time.Sleep(time.Second) // broker 2 registering with the controller
	}
	c.waitLeader(topic, 2)
	c.produce(topic, "second", 60, false) // offsets 100-159 of the new history
	c.run("start-broker", "1")

	s := c.dumpTopic(dir, topic)
	if s.Rewrites != 1 || s.RewrittenOffsets != 50 {
		t.Fatalf("the dump after the unclean election did not report 50 rewritten offsets: %v", s)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic, Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rewrites) != 1 {
		t.Fatalf("manifest rewrites %+v, want one", m.Rewrites)
	}
	rw := m.Rewrites[0]
	if rw.Kind != catalog.RewriteTruncated || rw.First != 100 || rw.Last != 149 || rw.OldEpoch != oldEpoch || rw.NewEpoch <= oldEpoch || rw.EpochEnd != 100 || rw.History != 1 {
		t.Errorf("rewrite %+v, want truncated 100-149 from epoch %d to a later one, the leader ending it at 100, history 1", rw, oldEpoch)
	}
	if m.NextOffset != 160 || len(m.Superseded) != 1 || m.Superseded[0].FirstOffset != 100 || m.Superseded[0].LastOffset != 149 {
		t.Errorf("next offset %d, superseded %+v; want 160 and the old file 100-149", m.NextOffset, m.Superseded)
	}

	// SQL: one row per offset of Kafka's history in the view, the old
	// version in "T$superseded".
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// ints runs a query of one row of whole numbers.
	ints := func(sql string, args ...any) []int64 {
		t.Helper()
		rows, err := e.Query(t.Context(), sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		out := make([]int64, len(cols))
		ptrs := make([]any, len(cols))
		for i := range out {
			ptrs[i] = &out[i]
		}
		if !rows.Next() {
			t.Fatalf("%s: no row (%v)", sql, rows.Err())
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	view := quoteIdent(topic)
	got := ints(fmt.Sprintf(`SELECT count(*), count(DISTINCT "offset"), max("offset"),
		count(*) FILTER (WHERE starts_with(CAST(value_raw AS VARCHAR), 'second-')),
		count(*) FILTER (WHERE starts_with(CAST(value_raw AS VARCHAR), 'lost-')) FROM %s`, view))
	if want := []int64{160, 160, 159, 60, 0}; !slices.Equal(got, want) {
		t.Errorf("view %s: rows, offsets, last offset, new history, old history = %v, want %v", view, got, want)
	}
	got = ints(fmt.Sprintf(`SELECT count(*), min("offset"), max("offset"),
		count(*) FILTER (WHERE starts_with(CAST(value_raw AS VARCHAR), 'lost-')) FROM %s`, quoteIdent(topic+"$superseded")))
	if want := []int64{50, 100, 149, 50}; !slices.Equal(got, want) {
		t.Errorf("superseded view: rows, first, last, old history = %v, want %v (the 50 records Kafka lost)", got, want)
	}
	got = ints(`SELECT count(*), min(from_offset), max(to_offset), sum(offsets) FROM rewrites WHERE topic = ?`, topic)
	if want := []int64{1, 100, 149, 50}; !slices.Equal(got, want) {
		t.Errorf("rewrites table: %v, want %v", got, want)
	}
	got = ints(`SELECT count(*) FILTER (WHERE superseded), count(*) FILTER (WHERE NOT superseded AND history = 1) FROM files WHERE topic = ?`, topic)
	if want := []int64{1, 1}; !slices.Equal(got, want) {
		t.Errorf("files table: superseded files, files of history 1 = %v, want %v", got, want)
	}

	// The same on an engine that builds views as queries name them and
	// guards untrusted SQL (topicsnap sql -c, the server).
	lazy, err := Open(t.Context(), dir, Options{Lazy: true, Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	lr, err := lazy.Query(t.Context(), fmt.Sprintf(`SELECT count(*) FROM %s WHERE "offset" BETWEEN 100 AND 149`, quoteIdent(topic+"$superseded")))
	if err != nil {
		t.Fatalf("superseded view on a lazy, locked engine: %v", err)
	}
	var lazyN int64
	if !lr.Next() || lr.Scan(&lazyN) != nil || lazyN != 50 {
		t.Errorf("superseded view on a lazy, locked engine: %d rows, want 50 (%v)", lazyN, lr.Err())
	}
	lr.Close()

	g := check(t, dir, "gaps", topic)
	if g.Status != StatusFail || g.Summary.Get("rewritten_offsets") != int64(50) || g.Summary.Get("missing_offsets") != int64(0) {
		t.Errorf("check gaps: %s rewritten=%v missing=%v: %s", g.Status, g.Summary.Get("rewritten_offsets"), g.Summary.Get("missing_offsets"), g.Message)
	}
	du := check(t, dir, "durability", topic)
	if du.Status != StatusFail || du.Summary.Get("rewritten_offsets") != int64(50) || !strings.Contains(du.Message, "50 offsets were rewritten") {
		t.Errorf("check durability: %s rewritten=%v: %s", du.Status, du.Summary.Get("rewritten_offsets"), du.Message)
	}

	// A dump after that appends to the new history and finds nothing new.
	c.produce(topic, "third", 5, false)
	if s := c.dumpTopic(dir, topic); s.Records != 5 || s.Rewrites != 0 {
		t.Errorf("dump after the rewrite: %v, want 5 records and no rewrite", s)
	}
}

// killOnFirstFile kills a broker (through the cluster script) when the dump
// commits its first file, inside the Progress call: the writer waits for
// the kill, so it lands while the rest of the partition is still to read.
type killOnFirstFile struct {
	c      *cluster
	broker int32
	done   bool
	err    error
}

func (k *killOnFirstFile) Start(catalog.TopicPartition, int64, int64) {}
func (k *killOnFirstFile) Advance(catalog.TopicPartition, int64, int64) {
	if k.done {
		return
	}
	k.done = true
	if out, err := exec.Command(k.c.script, "kill-broker", strconv.Itoa(int(k.broker))).CombinedOutput(); err != nil {
		k.err = fmt.Errorf("kill-broker %d: %v: %s", k.broker, err, out)
	}
}
func (k *killOnFirstFile) Done(catalog.TopicPartition) {}
func (k *killOnFirstFile) Waiting(string)              {}
func (k *killOnFirstFile) Warn(string)                 {}

// TestClusterLeaderKilledMidDump kills -9 the leader of a partition with
// replication factor 3 and min.insync.replicas 2 while a dump reads it:
// the dump rides through the election, and every offset is stored once.
func TestClusterLeaderKilledMidDump(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("killed")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2, 3}, map[string]string{"min.insync.replicas": "2"})
	const n = 20000
	c.produce(topic, "rec", n, false)
	p := c.waitFor("ISR of 3", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 3 }, topic)
	k := &killOnFirstFile{c: c, broker: p.Leader}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic},
		FileRows: 500, FetchMaxBytes: 64 << 10, Progress: k})
	if err != nil {
		t.Fatalf("dump with the leader killed: %v", err)
	}
	if k.err != nil || !k.done {
		t.Fatalf("the leader was not killed mid-dump (done %v): %v", k.done, k.err)
	}
	t.Logf("dumped %d records in %s with broker %d killed after the first file", s.Records, time.Since(start).Round(time.Millisecond), p.Leader)
	// The kill took: another broker leads the partition now.
	after := c.waitFor("a new leader", func(q kadm.PartitionDetail) bool { return q.Leader >= 0 && q.Leader != p.Leader }, topic)
	t.Logf("leader %d (epoch %d) after broker %d was killed (epoch %d)", after.Leader, after.LeaderEpoch, p.Leader, p.LeaderEpoch)
	m, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	man, err := m.ReadManifest(ctx, catalog.TopicPartition{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	epochs := map[int32]bool{}
	for _, f := range man.Files {
		epochs[*f.LastLeaderEpoch] = true
	}
	t.Logf("%d files, leader epochs of their last records %v", len(man.Files), epochs)
	c.run("start-broker", strconv.Itoa(int(p.Leader)))
	if s.Records != n || s.Rewrites != 0 || s.Lost != 0 {
		t.Fatalf("dump: %v, want %d records, no rewrite, nothing lost", s, n)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, err := e.Query(t.Context(), fmt.Sprintf(`SELECT count(*), count(DISTINCT "offset"), min("offset"), max("offset"),
		count(DISTINCT value_raw) FROM %s`, quoteIdent(topic)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cnt, distinct, lo, hi, values int64
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	if err := rows.Scan(&cnt, &distinct, &lo, &hi, &values); err != nil {
		t.Fatal(err)
	}
	if cnt != n || distinct != n || lo != 0 || hi != n-1 || values != n {
		t.Errorf("rows %d, offsets %d (%d-%d), values %d; want %d of each, 0-%d: records lost or duplicated", cnt, distinct, lo, hi, values, n, n-1)
	}
	if g := check(t, dir, "gaps", topic); g.Status != StatusOK {
		t.Errorf("check gaps: %s: %s", g.Status, g.Message)
	}
}

// TestClusterDurabilityVerdicts: a topic with replication factor 3 and
// min.insync.replicas 2 (unclean election off, idempotent writes) is kept
// safely (ok); one with replication factor 1 is not (fail); records of a
// producer without idempotence (kcat's default, and franz-go with it
// disabled) are counted as such.
func TestClusterDurabilityVerdicts(t *testing.T) {
	c := newCluster(t)
	dir := filepath.Join(t.TempDir(), "snap")
	safe, single, plain := uniqueTopic("rf3"), uniqueTopic("rf1"), uniqueTopic("plain")
	c.createTopic(safe, []int32{1, 2, 3}, map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "false"})
	c.createTopic(single, []int32{3}, map[string]string{"min.insync.replicas": "1"})
	c.createTopic(plain, []int32{2, 3, 1}, map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "false"})
	c.produce(safe, "safe", 20, false)
	c.produce(single, "single", 20, false)
	c.produce(plain, "idem", 10, false)
	c.produce(plain, "plain", 5, true)
	nonIdem := int64(5)
	if kcat := os.Getenv("TOPICSNAP_KCAT"); kcat != "" {
		cmd := exec.Command(kcat, "-b", strings.Join(c.brokers, ","), "-t", plain, "-p", "0", "-P", "-X", "acks=all")
		cmd.Stdin = strings.NewReader(strings.Repeat("kcat\n", 10))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat: %v: %s", err, out)
		}
		nonIdem += 10
	} else {
		t.Log("TOPICSNAP_KCAT not set: the records without idempotence come from franz-go alone")
	}
	for _, tp := range []string{safe, plain} {
		c.waitFor("ISR of 3", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 3 }, tp)
		c.dumpTopic(dir, tp)
	}
	c.dumpTopic(dir, single)

	cases := []struct {
		topic   string
		status  string
		nonIdem int64
		says    string
	}{
		{safe, StatusOK, 0, "kept safely"},
		{single, StatusFail, 0, "replication factor 1"},
		{plain, StatusWarn, nonIdem, "without idempotence"},
	}
	for _, tc := range cases {
		r := check(t, dir, "durability", tc.topic)
		if r.Status != tc.status || r.Summary.Get("non_idempotent_records") != tc.nonIdem || r.Summary.Get("rewritten_offsets") != int64(0) ||
			!strings.Contains(r.Message, tc.says) {
			t.Errorf("%s: %s non_idempotent=%v rewritten=%v, want %s, %d, 0, saying %q: %s", tc.topic, r.Status,
				r.Summary.Get("non_idempotent_records"), r.Summary.Get("rewritten_offsets"), tc.status, tc.nonIdem, tc.says, r.Message)
		}
		if u := r.Summary.Get("unclean_leader_election"); u != false {
			t.Errorf("%s: unclean_leader_election %v, want false as the cut recorded it", tc.topic, u)
		}
	}
}

// onFirstFile runs fn when the dump commits its first file, inside the
// Progress call: the writer waits for fn, so what fn changes in the
// cluster lands while the rest of the partition is still to read.
type onFirstFile struct {
	fn   func() error
	done bool
	err  error
}

func (h *onFirstFile) Start(catalog.TopicPartition, int64, int64) {}
func (h *onFirstFile) Advance(catalog.TopicPartition, int64, int64) {
	if h.done {
		return
	}
	h.done = true
	h.err = h.fn()
}
func (h *onFirstFile) Done(catalog.TopicPartition) {}
func (h *onFirstFile) Waiting(string)              {}
func (h *onFirstFile) Warn(string)                 {}

// pollUntil polls cond every 200ms for up to a minute; it returns cond's
// last error when the minute is up.
func pollUntil(ctx context.Context, cond func() error) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// reassign moves partition 0 of topic to replicas and waits until Kafka
// reports the reassignment finished: none listed, the metadata showing
// exactly replicas.
func (c *cluster) reassign(ctx context.Context, topic string, replicas []int32) error {
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign(topic, 0, replicas)
	rs, err := c.adm.AlterPartitionAssignments(ctx, req)
	if err == nil {
		err = rs.Error()
	}
	if err != nil {
		return fmt.Errorf("reassign %s-0 to %v: %w", topic, replicas, err)
	}
	return pollUntil(ctx, func() error {
		l, err := c.adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
		if err != nil {
			return fmt.Errorf("list reassignments of %s: %w", topic, err)
		}
		if r, ok := l[topic][0]; ok {
			return fmt.Errorf("%s-0 still reassigning: adding %v, removing %v", topic, r.AddingReplicas, r.RemovingReplicas)
		}
		p, err := c.partition(topic)
		if err != nil {
			return err
		}
		if !slices.Equal(p.Replicas, replicas) || len(p.ISR) != len(replicas) {
			return fmt.Errorf("%s-0 replicas %v, ISR %v; want %v, all in sync", topic, p.Replicas, p.ISR, replicas)
		}
		return nil
	})
}

// electPreferred runs a preferred-leader election on partition 0 of topic
// and waits until leader leads it. Kafka answering that no election was
// needed is fine (the controller may have moved it already).
func (c *cluster) electPreferred(ctx context.Context, topic string, leader int32) error {
	rs, err := c.adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}}})
	if err != nil {
		return fmt.Errorf("elect the preferred leader of %s-0: %w", topic, err)
	}
	if r, ok := rs[topic][0]; !ok {
		return fmt.Errorf("elect the preferred leader of %s-0: no result for the partition (%+v)", topic, rs)
	} else if r.Err != nil && r.Err != kerr.ElectionNotNeeded {
		return fmt.Errorf("elect the preferred leader of %s-0: %w %s", topic, r.Err, r.ErrMessage)
	}
	return pollUntil(ctx, func() error {
		p, err := c.partition(topic)
		if err != nil {
			return err
		}
		if p.Leader != leader {
			return fmt.Errorf("%s-0 led by %d, want %d", topic, p.Leader, leader)
		}
		return nil
	})
}

// lastFileEpochs lists the leader epochs of the last records of topic's
// partition 0 files in dir, file by file.
func (c *cluster) lastFileEpochs(dir, topic string) []int32 {
	c.t.Helper()
	m, err := catalog.Open(dir)
	if err != nil {
		c.t.Fatal(err)
	}
	man, err := m.ReadManifest(c.t.Context(), catalog.TopicPartition{Topic: topic})
	if err != nil {
		c.t.Fatal(err)
	}
	var epochs []int32
	for _, f := range man.Files {
		if f.LastLeaderEpoch == nil {
			c.t.Fatalf("%s: file %d-%d has no leader epoch", topic, f.FirstOffset, f.LastOffset)
		}
		epochs = append(epochs, *f.LastLeaderEpoch)
	}
	return epochs
}

// exactlyOnce asserts the snapshot of topic in dir has every offset
// 0..n-1 exactly once with n distinct values, and that check gaps is ok.
func exactlyOnce(t *testing.T, dir, topic string, n int64) {
	t.Helper()
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, err := e.Query(t.Context(), fmt.Sprintf(`SELECT count(*), count(DISTINCT "offset"), min("offset"), max("offset"),
		count(DISTINCT value_raw) FROM %s`, quoteIdent(topic)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cnt, distinct, lo, hi, values int64
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	if err := rows.Scan(&cnt, &distinct, &lo, &hi, &values); err != nil {
		t.Fatal(err)
	}
	if cnt != n || distinct != n || lo != 0 || hi != n-1 || values != n {
		t.Errorf("rows %d, offsets %d (%d-%d), values %d; want %d of each, 0-%d: records lost or duplicated", cnt, distinct, lo, hi, values, n, n-1)
	}
	if g := check(t, dir, "gaps", topic); g.Status != StatusOK {
		t.Errorf("check gaps: %s: %s", g.Status, g.Message)
	}
}

// rideThrough is the shape of the tests where the cluster changes under a
// dump: produce n records to a topic on replicas, dump it with change run
// after the first file, produce m more under the new leadership, dump
// again, and require every offset exactly once. It returns the partition
// before and after the change.
func rideThrough(t *testing.T, c *cluster, topic string, replicas []int32, change func(context.Context) error) (before, after kadm.PartitionDetail) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, replicas, map[string]string{"min.insync.replicas": strconv.Itoa(len(replicas) - 1)})
	const n, m = 20000, 1000
	c.produce(topic, "rec", n, false)
	before = c.waitFor(fmt.Sprintf("ISR of %d", len(replicas)), func(p kadm.PartitionDetail) bool { return len(p.ISR) == len(replicas) }, topic)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	h := &onFirstFile{fn: func() error { return change(ctx) }}
	start := time.Now()
	s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic},
		FileRows: 500, FetchMaxBytes: 64 << 10, Progress: h})
	if err != nil {
		t.Fatalf("dump while the cluster changed: %v", err)
	}
	if h.err != nil || !h.done {
		t.Fatalf("the cluster did not change mid-dump (done %v): %v", h.done, h.err)
	}
	t.Logf("dumped %d records in %s with the change after the first file", s.Records, time.Since(start).Round(time.Millisecond))
	if s.Records != n || s.Rewrites != 0 || s.Lost != 0 {
		t.Fatalf("dump: %v, want %d records, no rewrite, nothing lost", s, n)
	}
	after, err = c.partition(topic)
	if err != nil {
		t.Fatal(err)
	}
	if after.Leader == before.Leader || after.LeaderEpoch <= before.LeaderEpoch {
		t.Fatalf("leadership did not change: leader %d epoch %d before, %d epoch %d after", before.Leader, before.LeaderEpoch, after.Leader, after.LeaderEpoch)
	}
	t.Logf("leader %d (epoch %d) before, %d (epoch %d) after; replicas %v → %v", before.Leader, before.LeaderEpoch, after.Leader, after.LeaderEpoch, before.Replicas, after.Replicas)
	exactlyOnce(t, dir, topic, n)

	// The next dump takes exactly what came after, from the new leader.
	c.produce(topic, "more", m, false)
	if s := c.dumpTopic(dir, topic); s.Records != m || s.Rewrites != 0 || s.Lost != 0 {
		t.Fatalf("second dump: %v, want %d records, no rewrite, nothing lost", s, m)
	}
	exactlyOnce(t, dir, topic, n+m)
	epochs := c.lastFileEpochs(dir, topic)
	if first, last := epochs[0], epochs[len(epochs)-1]; first != before.LeaderEpoch || last != after.LeaderEpoch {
		t.Errorf("leader epochs of the files' last records %d … %d, want %d (before) … %d (after)", first, last, before.LeaderEpoch, after.LeaderEpoch)
	}
	return before, after
}

// TestClusterPreferredLeaderElection: while a dump reads a partition on
// brokers [1,2,3], its replicas are reordered to [2,3,1] and a
// preferred-leader election (kadm's ElectLeaders, as
// kafka-leader-election --election-type preferred) moves the leadership
// to broker 2. The dump rides through it: every offset once.
func TestClusterPreferredLeaderElection(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("preferred")
	before, after := rideThrough(t, c, topic, []int32{1, 2, 3}, func(ctx context.Context) error {
		if err := c.reassign(ctx, topic, []int32{2, 3, 1}); err != nil {
			return err
		}
		return c.electPreferred(ctx, topic, 2)
	})
	if before.Leader != 1 || after.Leader != 2 {
		t.Errorf("leader %d before, %d after; want 1, then 2", before.Leader, after.Leader)
	}
}

// TestClusterReassignMidDump: while a dump reads a partition on brokers
// [1,2], it is reassigned to [2,3]: broker 3 copies the log, broker 1
// leaves, broker 2 leads. The dump rides through it: every offset once.
func TestClusterReassignMidDump(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("reassign")
	before, after := rideThrough(t, c, topic, []int32{1, 2}, func(ctx context.Context) error {
		if err := c.reassign(ctx, topic, []int32{2, 3}); err != nil {
			return err
		}
		return pollUntil(ctx, func() error {
			p, err := c.partition(topic)
			if err != nil {
				return err
			}
			if p.Leader != 2 {
				return fmt.Errorf("%s-0 led by %d after the reassignment, want 2", topic, p.Leader)
			}
			return nil
		})
	})
	if before.Leader != 1 || after.Leader != 2 || !slices.Equal(after.Replicas, []int32{2, 3}) {
		t.Errorf("leader %d before, %d on %v after; want 1, then 2 on [2 3]", before.Leader, after.Leader, after.Replicas)
	}
}

// TestClusterLeaderCrashedBeforeCut: the leader of a partition with
// replication factor 3 is killed -9 just before a dump starts, while the
// metadata still names it (until the controller fences it and elects
// another, broker.session.timeout.ms later). The dump waits for the
// election and dumps every record, and its cut records the new leader;
// it exited 3 within 0.1 s, "cannot reach the Kafka cluster" with two
// brokers up, dumping nothing.
func TestClusterLeaderCrashedBeforeCut(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("crashed")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2, 3}, map[string]string{"min.insync.replicas": "2"})
	c.produce(topic, "rec", 100, false)
	p := c.waitFor("ISR of 3", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 3 }, topic)
	c.run("kill-broker", strconv.Itoa(int(p.Leader)))
	s := c.dumpTopic(dir, topic)
	if s.Records != 100 || s.Lost != 0 {
		t.Fatalf("dump: %v, want 100 records, nothing lost", s)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cuts, err := d.ClusterSnapshotsOf(t.Context(), []string{topic})
	if err != nil || len(cuts) != 1 || len(cuts[0].Partitions) != 1 {
		t.Fatalf("cuts %+v, %v: want one of one partition", cuts, err)
	}
	if got := cuts[0].Partitions[0]; got.Leader == p.Leader || got.Leader < 0 || got.LeaderEpoch <= p.LeaderEpoch || slices.Contains(got.ISR, p.Leader) {
		t.Errorf("the cut recorded leader %d (epoch %d, ISR %v); want the one elected after broker %d (epoch %d) crashed", got.Leader, got.LeaderEpoch, got.ISR, p.Leader, p.LeaderEpoch)
	}
	exactlyOnce(t, dir, topic, 100)
}

// TestClusterOnlyReplicaDownMidDump: the only replica of a partition is
// killed -9 while a one-shot dump reads it, and stays down. The dump ends
// once the partition has had no leader for --wait-unreachable (5 s here),
// with what it read committed and an error naming the partition (exit 2);
// it waited without end (the test's context ran out after 2 min, 1,960
// of 20,000 records read), as the cluster answered and so was never "out
// of reach". With the broker back, the next dump takes the rest, every
// offset once.
func TestClusterOnlyReplicaDownMidDump(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("onlyreplica")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{3}, nil)
	const n = 20000
	c.produceRandom(topic, n, 2000)
	k := &killOnFirstFile{c: c, broker: 3}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic},
		FileRows: 500, FetchMaxBytes: 64 << 10, Progress: k, WaitUnreachable: 5 * time.Second})
	took := time.Since(start)
	if k.err != nil || !k.done {
		t.Fatalf("broker 3 was not killed mid-dump (done %v): %v", k.done, k.err)
	}
	var le *dump.LeaderlessError
	if !errors.As(err, &le) || ctx.Err() != nil {
		t.Fatalf("dump after %s: %v, error %v; want a LeaderlessError before the test's deadline", took.Round(time.Millisecond), s, err)
	}
	if code, hint := exit.Of(err); code != exit.Error || !strings.Contains(hint, "bring their brokers back") {
		t.Errorf("exit %d, hint %q", code, hint)
	}
	if !slices.Equal(le.Partitions, []int32{0}) || le.ReadTo[0] != s.Records || s.Records <= 0 || s.Records >= n {
		t.Errorf("error %v after %d records; want partition 0 named, read up to the records dumped, some but not all", err, s.Records)
	}
	t.Logf("dump ended after %s with %d records: %v", took.Round(time.Millisecond), s.Records, err)
	c.run("start-broker", "3")
	c.waitLeader(topic, 3)
	if s2 := c.dumpTopic(dir, topic); s.Records+s2.Records != n || s2.Lost != 0 {
		t.Fatalf("second dump: %v after %d, want the other %d records", s2, s.Records, n-s.Records)
	}
	exactlyOnce(t, dir, topic, n)
}

// produceRandom writes n records of size random bytes (that do not
// compress) to partition 0 of topic with acks=all.
func (c *cluster) produceRandom(topic string, n, size int) {
	c.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		c.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(c.t.Context(), 2*time.Minute)
	defer cancel()
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]*kgo.Record, n)
	for i := range recs {
		v := make([]byte, size)
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		recs[i] = &kgo.Record{Partition: 0, Value: v}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		c.t.Fatalf("produce %d records to %s: %v", n, topic, err)
	}
}

// uncleanElect makes broker leader of partition 0 of topic by an unclean
// election (kafka-leader-election --election-type unclean), retrying while
// the broker registers with the controller.
func (c *cluster) uncleanElect(ctx context.Context, topic string, broker int32) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := exec.CommandContext(ctx, c.script, "run", "org.apache.kafka.tools.LeaderElectionCommand",
			"--bootstrap-server", strings.Join(c.brokers, ","), "--election-type", "unclean",
			"--topic", topic, "--partition", "0").CombinedOutput()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("unclean election of broker %d: %v\n%s", broker, err, out)
		}
		time.Sleep(time.Second)
	}
	return pollUntil(ctx, func() error {
		p, err := c.partition(topic)
		if err != nil {
			return err
		}
		if p.Leader != broker {
			return fmt.Errorf("%s-0 led by %d, want %d", topic, p.Leader, broker)
		}
		return nil
	})
}

// TestClusterUncleanElectionMidDump: a partition on brokers 1 and 2 takes
// 100 records on both, then 20,000 on broker 1 alone; a dump reads it, and
// after its first file broker 1 stops, broker 2 is elected uncleanly and
// takes 60 records at offsets 100-159. The dump stops the partition at
// what it read (its history changed, exit 2) and records at once that the
// offsets it read from 100 on are no longer Kafka's: check gaps and check
// durability fail on them, the view T$superseded holds them. Before, the
// folder said "OK gaps: 0 missing offsets" until another dump ran. The
// next dump takes the new history.
func TestClusterUncleanElectionMidDump(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("uncleanmid")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2}, map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "false"})
	c.produce(topic, "first", 100, false)
	c.waitFor("ISR of 2", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 2 }, topic)
	c.run("stop-broker", "2")
	c.waitFor("ISR [1]", func(p kadm.PartitionDetail) bool { return slices.Equal(p.ISR, []int32{1}) }, topic)
	const lost = 20000
	c.produceRandom(topic, lost, 2000) // offsets 100-20099, on broker 1 alone
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	h := &onFirstFile{fn: func() error {
		if out, err := exec.Command(c.script, "stop-broker", "1").CombinedOutput(); err != nil {
			return fmt.Errorf("stop broker 1: %v: %s", err, out)
		}
		if out, err := exec.Command(c.script, "start-broker", "2").CombinedOutput(); err != nil {
			return fmt.Errorf("start broker 2: %v: %s", err, out)
		}
		if err := c.uncleanElect(ctx, topic, 2); err != nil {
			return err
		}
		c.produce(topic, "second", 60, false) // offsets 100-159 of the new history
		return nil
	}}
	s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic},
		FileRows: 500, FetchMaxBytes: 64 << 10, Progress: h})
	c.run("start-broker", "1")
	if h.err != nil || !h.done {
		t.Fatalf("the unclean election did not happen mid-dump (done %v): %v", h.done, h.err)
	}
	var hc *dump.HistoryChangedError
	if !errors.As(err, &hc) || s.Records <= 100 || s.Records >= 100+lost {
		t.Fatalf("first dump: %v, error %v; want some of the lost records read, then a HistoryChangedError", s, err)
	}
	read := s.Records // offsets 0 to read-1
	if !hc.Recorded || hc.ReadTo != read || s.Rewrites != 1 || s.RewrittenOffsets != read-100 {
		t.Errorf("first dump: %v, error %v; want the %d offsets read past 100 recorded as rewritten", s, err, read-100)
	}
	g := check(t, dir, "gaps", topic)
	if g.Status != StatusFail || g.Summary.Get("rewritten_offsets") != read-100 {
		t.Errorf("check gaps after the interrupted dump: %s rewritten=%v: %s", g.Status, g.Summary.Get("rewritten_offsets"), g.Message)
	}
	du := check(t, dir, "durability", topic)
	if du.Status != StatusFail || du.Summary.Get("rewritten_offsets") != read-100 {
		t.Errorf("check durability after the interrupted dump: %s rewritten=%v: %s", du.Status, du.Summary.Get("rewritten_offsets"), du.Message)
	}

	s2 := c.dumpTopic(dir, topic)
	if s2.Rewrites != 0 {
		t.Errorf("second dump: %v, want no other rewrite", s2)
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, err := e.Query(t.Context(), fmt.Sprintf(`SELECT (SELECT count(*) FROM %s), (SELECT max("offset") FROM %s),
		(SELECT count(*) FROM %s WHERE starts_with(CAST(value_raw AS VARCHAR), 'second-')),
		(SELECT count(DISTINCT "offset") FILTER (WHERE "offset" >= 100) FROM %s)`,
		quoteIdent(topic), quoteIdent(topic), quoteIdent(topic), quoteIdent(topic+"$superseded")))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var n, last, second, old int64
	if !rows.Next() || rows.Scan(&n, &last, &second, &old) != nil {
		t.Fatalf("no row: %v", rows.Err())
	}
	if n != 160 || last != 159 || second != 60 || old != read-100 {
		t.Errorf("view: %d rows up to offset %d, %d of the new history; superseded offsets from 100: %d; want 160, 159, 60, %d", n, last, second, old, read-100)
	}
	if g := check(t, dir, "gaps", topic); g.Status != StatusFail || g.Summary.Get("rewritten_offsets") != read-100 || g.Summary.Get("missing_offsets") != int64(0) {
		t.Errorf("check gaps after the second dump: %s rewritten=%v: %s", g.Status, g.Summary.Get("rewritten_offsets"), g.Message)
	}
}

// TestClusterBrokerCrashedBeforeGroupsRead: a broker that leads none of
// the topic is killed -9 just before a dump; the cut lists the consumer
// groups on every broker the metadata still names, the dead one too. The
// dump asks again until the controller fences it and records the group's
// commit; it exited 3 within 0.5 s, "list groups: cannot reach the Kafka
// cluster", dumping nothing, with two brokers of three up.
func TestClusterBrokerCrashedBeforeGroupsRead(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("groupsread")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2}, map[string]string{"min.insync.replicas": "1"})
	c.produce(topic, "rec", 30, false)
	group := topic + "-readers"
	var o kadm.Offsets
	o.AddOffset(topic, 0, 20, -1)
	if r, err := c.adm.CommitOffsets(t.Context(), group, o); err != nil || r.Error() != nil {
		t.Fatalf("commit %s: %v %v", group, err, r.Error())
	}
	c.run("kill-broker", "3")
	s := c.dumpTopic(dir, topic)
	if s.Records != 30 {
		t.Fatalf("dump: %v, want 30 records", s)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	cuts, err := d.ClusterSnapshotsOf(t.Context(), []string{topic})
	if err != nil || len(cuts) != 1 {
		t.Fatalf("cuts %+v, %v: want one", cuts, err)
	}
	var got []catalog.GroupOffset
	for _, g := range cuts[0].Groups {
		if g.Group == group {
			got = g.Offsets
		}
	}
	if cuts[0].GroupsError != "" || len(got) != 1 || got[0].Offset != 20 {
		t.Errorf("the cut recorded %s at %+v, groups error %q; want offset 20 and every group read", group, got, cuts[0].GroupsError)
	}
}

// cancelOnStart cancels a dump when its first partition starts reading:
// after the dump's rewrite check, before anything is read or its cut is
// written (Ctrl-C at that moment).
type cancelOnStart struct{ cancel context.CancelFunc }

func (h *cancelOnStart) Start(catalog.TopicPartition, int64, int64)   { h.cancel() }
func (h *cancelOnStart) Advance(catalog.TopicPartition, int64, int64) {}
func (h *cancelOnStart) Done(catalog.TopicPartition)                  {}
func (h *cancelOnStart) Waiting(string)                               {}
func (h *cancelOnStart) Warn(string)                                  {}

// TestClusterUncleanElectionDumpInterrupted: as TestClusterUncleanElection
// (offsets 100-149 dumped, then lost to an unclean election), but the dump
// that finds the rewrite is interrupted once it recorded it, before it
// wrote its cut. check gaps then said the 50 rewritten offsets were also
// "offsets Kafka held at the partition's last cut … not in the folder"
// (undumped: a folder edited or put back from an older copy), though the
// folder keeps them (T$superseded) and that cut's high watermark counted
// the history Kafka since rewrote. They are said once, as rewritten.
func TestClusterUncleanElectionDumpInterrupted(t *testing.T) {
	c := newCluster(t)
	topic := uniqueTopic("uncleanint")
	dir := filepath.Join(t.TempDir(), "snap")
	c.createTopic(topic, []int32{1, 2}, map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "false"})
	c.produce(topic, "first", 100, false)
	c.waitFor("ISR of 2", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 2 }, topic)
	c.dumpTopic(dir, topic)
	c.run("stop-broker", "2")
	c.waitFor("ISR [1]", func(p kadm.PartitionDetail) bool { return slices.Equal(p.ISR, []int32{1}) }, topic)
	c.produce(topic, "lost", 50, false)
	if s := c.dumpTopic(dir, topic); s.Records != 50 {
		t.Fatalf("second dump: %v", s)
	}
	c.run("stop-broker", "1")
	c.run("start-broker", "2")
	if err := c.uncleanElect(t.Context(), topic, 2); err != nil {
		t.Fatal(err)
	}
	c.produce(topic, "second", 60, false)
	c.run("start-broker", "1")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic}, Progress: &cancelOnStart{cancel}})
	if err == nil || s.Rewrites != 1 || s.RewrittenOffsets != 50 {
		t.Fatalf("interrupted dump: %v, %v; want the rewrite of 50 offsets recorded, then the dump interrupted", s, err)
	}
	g := check(t, dir, "gaps", topic)
	if g.Status != StatusFail || g.Summary.Get("rewritten_offsets") != int64(50) || g.Summary.Get("undumped_offsets") != int64(0) ||
		g.Summary.Get("missing_offsets") != int64(0) {
		t.Errorf("check gaps: %s rewritten=%v undumped=%v missing=%v: %s", g.Status, g.Summary.Get("rewritten_offsets"),
			g.Summary.Get("undumped_offsets"), g.Summary.Get("missing_offsets"), g.Message)
	}
	// The next dump takes the new history; the rewrite is said once.
	if s := c.dumpTopic(dir, topic); s.Records != 60 || s.Rewrites != 0 {
		t.Errorf("the next dump: %v, want the 60 records of the new history", s)
	}
	if g := check(t, dir, "gaps", topic); g.Summary.Get("rewritten_offsets") != int64(50) || g.Summary.Get("undumped_offsets") != int64(0) {
		t.Errorf("check gaps after the next dump: %s: %s", g.Status, g.Message)
	}
}

// TestClusterHistoryFlipsBack: two unclean elections in turn. 100 records
// are on brokers 1 and 2; broker 1 alone takes 50 (history A, offsets
// 100-149, leader epoch 0); broker 2 is elected uncleanly and takes its
// own (history B from offset 100, epoch 2), which a dump reads; then
// broker 1, which never saw B, is elected uncleanly and takes 20 more
// (C, after A's 149). Asked where epoch 2 (B's, the last record dumped)
// ends, broker 1 answers for the epoch it knows below it, 0, ending at
// 150; the folder's epoch-0 records end at 100, where its history left
// Kafka's. Taking 150 merged the histories: with B longer than A (60
// records), only 150-159 were said rewritten and the view kept B's
// 100-149 beside C; with B shorter (20), no rewrite was found at all,
// "OK gaps", the view B's 100-119 then A's 120-149. Now B's offsets are
// said rewritten from 100, kept in T$superseded, and the view is Kafka's.
func TestClusterHistoryFlipsBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    int
	}{
		{"B longer than A", 60},
		{"B shorter than A", 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			topic := uniqueTopic("flipback")
			dir := filepath.Join(t.TempDir(), "snap")
			c.createTopic(topic, []int32{1, 2}, map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "false"})
			c.produce(topic, "common", 100, false)
			c.waitFor("ISR of 2", func(p kadm.PartitionDetail) bool { return len(p.ISR) == 2 }, topic)
			c.run("stop-broker", "2")
			c.waitFor("ISR [1]", func(p kadm.PartitionDetail) bool { return slices.Equal(p.ISR, []int32{1}) }, topic)
			c.produce(topic, "A", 50, false) // 100-149 on broker 1 alone
			c.run("stop-broker", "1")
			c.run("start-broker", "2")
			if err := c.uncleanElect(t.Context(), topic, 2); err != nil {
				t.Fatal(err)
			}
			c.produce(topic, "B", tc.b, false) // from 100 on broker 2 alone
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			// Files of 50 records: the files before the divergence are kept.
			if s, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: c.brokers}, Dir: dir, Topics: []string{topic}, FileRows: 50}); err != nil || s.Records != int64(100+tc.b) {
				t.Fatalf("dump of history B: %v, %v", s, err)
			}
			c.run("stop-broker", "2")
			c.run("start-broker", "1")
			if err := c.uncleanElect(t.Context(), topic, 1); err != nil {
				t.Fatal(err)
			}
			c.produce(topic, "C", 20, false) // 150-169 after A's 100-149, on broker 1
			c.run("start-broker", "2")
			s := c.dumpTopic(dir, topic)
			t.Logf("dump after history A came back: %v", s)

			e, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			rows, err := e.Query(t.Context(), fmt.Sprintf(`SELECT count(*), count(DISTINCT "offset"), max("offset"),
				count(*) FILTER (WHERE starts_with(CAST(value_raw AS VARCHAR), 'B-')),
				count(*) FILTER (WHERE starts_with(CAST(value_raw AS VARCHAR), 'A-')) FROM %s`, quoteIdent(topic)))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var n, distinct, last, b, a int64
			if !rows.Next() || rows.Scan(&n, &distinct, &last, &b, &a) != nil {
				t.Fatalf("no row: %v", rows.Err())
			}
			if n != 170 || distinct != 170 || last != 169 || b != 0 || a != 50 {
				t.Errorf("view: %d rows, %d offsets up to %d, %d of history B, %d of history A; want 170, 170, 169, 0 and 50 (Kafka's history now)", n, distinct, last, b, a)
			}
			g := check(t, dir, "gaps", topic)
			if g.Status != StatusFail || g.Summary.Get("rewritten_offsets") != int64(tc.b) {
				t.Errorf("check gaps: %s rewritten=%v, want the %d offsets of history B: %s", g.Status, g.Summary.Get("rewritten_offsets"), tc.b, g.Message)
			}
		})
	}
}
