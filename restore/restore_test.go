package restore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// dumpOnce dumps topic into dir with dump.Run, as a user's dump would make
// the folder a restore reads; mod changes the dump's options.
func dumpOnce(t *testing.T, brokers []string, dir, topic string, mod ...func(*dump.Options)) {
	t.Helper()
	o := dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	for _, f := range mod {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := dump.Run(ctx, o); err != nil {
		t.Fatalf("dump %s: %v", topic, err)
	}
}

// restored is a committed data record as a consumer sees it: what a
// restore must reproduce.
type restored struct {
	Key, Value []byte
	Headers    []catalog.Header
	Timestamp  int64
}

// committedRecords reads the committed data records of topic in dir, per
// partition in offset order: no markers, no records of aborted
// transactions, transactions left open in a file decided by later markers.
// A record whose transaction is undecided fails the test.
func committedRecords(t *testing.T, dir, topic string) map[int32][]restored {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]restored{}
	for _, m := range ms {
		markers, err := d.ReadMarkers(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Files {
			rows, err := catalog.ReadDataFile(d.FilePath(m.TP(), f.Name))
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				ok, decided := catalog.Committed(&rows[i], markers)
				if !decided {
					t.Fatalf("%s/%d offset %d: transaction undecided in the dump", topic, m.Partition, rows[i].Offset)
				}
				if ok {
					r := rows[i]
					out[m.Partition] = append(out[m.Partition], restored{Key: r.Key, Value: r.Value, Headers: r.Headers, Timestamp: r.Timestamp})
				}
			}
		}
	}
	return out
}

// sameBytes is bytes.Equal that tells null from empty.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// compareRestored fails the test at the first record of want that got
// does not hold exactly, in the same partition and order.
func compareRestored(t *testing.T, want, got map[int32][]restored) (n int) {
	t.Helper()
	for p, w := range want {
		g := got[p]
		if len(g) != len(w) {
			t.Fatalf("partition %d: %d records restored, want %d", p, len(g), len(w))
		}
		for i := range w {
			a, b := w[i], g[i]
			same := sameBytes(a.Key, b.Key) && sameBytes(a.Value, b.Value) && a.Timestamp == b.Timestamp && len(a.Headers) == len(b.Headers)
			for j := 0; same && j < len(a.Headers); j++ {
				same = a.Headers[j].Key == b.Headers[j].Key && sameBytes(a.Headers[j].Value, b.Headers[j].Value)
			}
			if !same {
				t.Fatalf("partition %d record %d: restored %+v, want %+v", p, i, b, a)
			}
		}
		n += len(w)
	}
	for p, g := range got {
		if _, ok := want[p]; !ok && len(g) > 0 {
			t.Fatalf("partition %d: %d records restored to a partition the source did not have", p, len(g))
		}
	}
	return n
}

func restoreOnce(t *testing.T, brokers []string, dir, topic, to string, mod ...func(*Options)) Summary {
	t.Helper()
	o := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: topic, ToTopic: to}
	for _, f := range mod {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	s, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	return s
}

// txnProduce writes recs in one transaction of a new transactional
// producer and commits or aborts it.
func txnProduce(t *testing.T, brokers []string, commit bool, recs ...*kgo.Record) {
	t.Helper()
	cl := dumptest.Producer(t, brokers, kgo.TransactionalID(fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

// dumpTarget dumps a restore's target into a new folder with topicsnap's
// own dump, once its last transaction's markers are written.
func dumpTarget(t *testing.T, brokers []string, target string) string {
	t.Helper()
	dumptest.WaitStable(t, brokers, target)
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, target)
	return dir
}

// sourceWithEverything fills a new 3-partition topic with what a restore
// must keep exactly (nulls, empties, binary keys, duplicate headers with a
// null value, old and far timestamps) and what it must leave out (markers,
// an aborted transaction), and dumps it into a new folder.
func sourceWithEverything(t *testing.T, brokers []string, configs map[string]*string) (topic, dir string) {
	t.Helper()
	// Timestamps from 1970 on: without retention.ms=-1 the broker would
	// delete them under the dump.
	keep := "-1"
	if configs == nil {
		configs = map[string]*string{}
	}
	configs["retention.ms"] = &keep
	topic = dumptest.NewTopic(t, brokers, 3, configs)
	p := dumptest.Producer(t, brokers)
	ts := func(ms int64) time.Time { return time.UnixMilli(ms) }
	hdrs := []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: nil}, {Key: "b", Value: []byte{0, 1}}, {Key: "h", Value: []byte{}}}
	dumptest.Produce(t, p,
		&kgo.Record{Topic: topic, Partition: 0, Key: nil, Value: nil, Timestamp: ts(1)},
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte{}, Value: []byte{}, Timestamp: ts(1_600_000_000_000)},
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte{0xff, 0xfe, 0}, Value: bytes.Repeat([]byte("v"), 300_000), Timestamp: ts(253_402_300_799_000)},
		&kgo.Record{Topic: topic, Partition: 1, Key: []byte("k"), Value: []byte("with headers"), Headers: hdrs, Timestamp: ts(1_700_000_000_000)},
		&kgo.Record{Topic: topic, Partition: 2, Key: nil, Value: []byte("null key"), Timestamp: ts(1_700_000_000_001)},
	)
	txnProduce(t, brokers, true,
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte("c1"), Value: []byte("committed 1"), Timestamp: ts(1_700_000_001_000)},
		&kgo.Record{Topic: topic, Partition: 1, Key: []byte("c2"), Value: []byte("committed 2"), Headers: hdrs[:2], Timestamp: ts(1_700_000_001_001)},
	)
	txnProduce(t, brokers, false,
		&kgo.Record{Topic: topic, Partition: 1, Key: []byte("a1"), Value: []byte("aborted 1"), Timestamp: ts(1_700_000_002_000)},
		&kgo.Record{Topic: topic, Partition: 2, Key: []byte("a2"), Value: []byte("aborted 2"), Timestamp: ts(1_700_000_002_001)},
	)
	var more []*kgo.Record
	for i := 0; i < 3000; i++ {
		more = append(more, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i)), Timestamp: ts(1_700_000_003_000 + int64(i))})
	}
	dumptest.Produce(t, p, more...)
	dumptest.WaitStable(t, brokers, topic)
	dir = t.TempDir()
	dumpOnce(t, brokers, dir, topic, func(o *dump.Options) { o.FileRows = 700 })
	return topic, dir
}

// TestRestoreRoundTrip restores a snapshot into a topic that does not
// exist, dumps that topic with topicsnap's own dump, and compares every
// committed data record; a second run restores nothing more.
func TestRestoreRoundTrip(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): transactions and created-topic configs")
	}
	brokers := dumptest.Brokers(t)
	ms, maxBytes := "-1", "2000000"
	topic, dir := sourceWithEverything(t, brokers, map[string]*string{"retention.ms": &ms, "max.message.bytes": &maxBytes})
	want := committedRecords(t, dir, topic)
	target := topic + "-restored"

	s := restoreOnce(t, brokers, dir, topic, target, func(o *Options) { o.TxnRecords = 500 })
	if !s.Created || s.Records != 3007 || s.Markers != 4 || s.Aborted != 2 || s.Transactions < 3 {
		t.Fatalf("summary %+v", s)
	}
	// The target has the source's partition count and recorded configs.
	cl, _ := kgo.NewClient(kgo.SeedBrokers(brokers...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	td, err := adm.ListTopics(ctx, target)
	if err != nil || len(td[target].Partitions) != 3 {
		t.Fatalf("target partitions: %v %v", td, err)
	}
	rc, err := adm.DescribeTopicConfigs(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rc[0].Configs {
		if c.Value != nil {
			got[c.Key] = *c.Value
		}
	}
	if got["retention.ms"] != "-1" || got["max.message.bytes"] != "2000000" {
		t.Fatalf("target configs: retention.ms=%s max.message.bytes=%s", got["retention.ms"], got["max.message.bytes"])
	}

	out := dumpTarget(t, brokers, target)
	n := compareRestored(t, want, committedRecords(t, out, target))

	// Again: the committed progress says everything is there.
	s = restoreOnce(t, brokers, dir, topic, target)
	if s.Records != 0 || s.Created {
		t.Fatalf("second restore: %+v", s)
	}
	out2 := dumpTarget(t, brokers, target)
	compareRestored(t, want, committedRecords(t, out2, target))
	t.Logf("%d records restored exactly, markers and aborted records left out, second run produced nothing", n)
}

// TestRestoreCompressions restores the same snapshot with every
// --compression into its own target and finds every record byte for byte;
// an unknown one is refused before anything is read or produced.
func TestRestoreCompressions(t *testing.T) {
	if _, err := Run(context.Background(), Options{Dir: t.TempDir(), Topic: "t", Compression: "brotli"}); !errors.Is(err, kafkaconn.ErrBadOption) || !strings.Contains(err.Error(), "brotli") {
		t.Fatalf("--compression brotli: %v", err)
	}
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): transactions")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	want := committedRecords(t, dir, topic)
	for _, c := range []string{"none", "snappy", "zstd", "gzip", "lz4"} {
		target := topic + "-" + c
		s := restoreOnce(t, brokers, dir, topic, target, func(o *Options) { o.Compression = c })
		if s.Records != 3007 {
			t.Fatalf("%s: summary %+v", c, s)
		}
		compareRestored(t, want, committedRecords(t, dumpTarget(t, brokers, target), target))
	}
}

// TestRestoreResumesByRange restores a snapshot in three runs (--until an
// offset, --until a time, then the rest) and finds every record once.
func TestRestoreResumesByRange(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	want := committedRecords(t, dir, topic)
	target := topic + "-r"
	a := restoreOnce(t, brokers, dir, topic, target, func(o *Options) { o.Until = "500" })
	b := restoreOnce(t, brokers, dir, topic, target, func(o *Options) {
		o.Until = time.UnixMilli(1_700_000_003_000 + 2000).UTC().Format(time.RFC3339Nano)
	})
	c := restoreOnce(t, brokers, dir, topic, target)
	if a.Records == 0 || b.Records == 0 || c.Records == 0 || a.Records+b.Records+c.Records != 3007 {
		t.Fatalf("three runs restored %d + %d + %d records, want 3007 in all:\n%+v\n%+v\n%+v", a.Records, b.Records, c.Records, a.Partitions, b.Partitions, c.Partitions)
	}
	for _, p := range c.Partitions {
		if !p.Resumed {
			t.Errorf("partition %d of the last run did not resume from committed progress: %+v", p.Partition, p)
		}
	}
	out := dumpTarget(t, brokers, target)
	compareRestored(t, want, committedRecords(t, out, target))
}

// TestRestoreRefusesSmallerTarget: a target with fewer partitions than the
// source is refused before anything is produced.
func TestRestoreRefusesSmallerTarget(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	small := dumptest.NewTopic(t, brokers, 2, nil)
	_, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: topic, ToTopic: small})
	var te *TargetError
	if !errors.Is(err, ErrTarget) || !errors.As(err, &te) || te.Has != 2 || te.Needs != 3 {
		t.Fatalf("restore into 2 partitions: %v", err)
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(brokers...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, lerr := adm.ListEndOffsets(context.Background(), small)
	if lerr != nil {
		t.Fatal(lerr)
	}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset != 0 {
			t.Errorf("partition %d of the refused target has %d records", o.Partition, o.Offset)
		}
	})
	if !strings.Contains(err.Error(), "has 2 partitions, the source had 3") {
		t.Errorf("message: %v", err)
	}
}

// TestRestoreDryRun says what a restore would produce, creates nothing and
// produces nothing.
func TestRestoreDryRun(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	target := topic + "-dry"
	s := restoreOnce(t, brokers, dir, topic, target, func(o *Options) { o.DryRun = true })
	per := map[int32]int64{}
	for _, p := range s.Partitions {
		per[p.Partition] = p.Records
	}
	// 3 plain + 1 committed on 0; 1 plain + 1 committed on 1; 1 plain on 2; 1000 more each.
	if !s.Created || s.Records != 3007 || per[0] != 1004 || per[1] != 1002 || per[2] != 1001 || s.Aborted != 2 || s.Markers != 4 {
		t.Fatalf("dry run: %+v", s)
	}
	if !strings.Contains(s.String(), "would restore 3007 records") || !strings.Contains(s.String(), "partition 1: source offsets [0,") {
		t.Errorf("dry run says:\n%s", s)
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(brokers...))
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	if td.Has(target) {
		t.Fatalf("a dry run created %s", target)
	}
}

// TestRestoreStopsAtOpenTransaction: a transaction open at the snapshot
// stops its partition there, as a read_committed consumer would; once a
// later dump has its marker, the next restore goes on from there.
func TestRestoreStopsAtOpenTransaction(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 1, nil)
	p := dumptest.Producer(t, brokers)
	dumptest.Produce(t, p, &kgo.Record{Topic: topic, Value: []byte("before")})
	tx := dumptest.Producer(t, brokers, kgo.TransactionalID(t.Name()+fmt.Sprint(time.Now().UnixNano())))
	ctx := context.Background()
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("in txn")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dumptest.Produce(t, p, &kgo.Record{Topic: topic, Value: []byte("after")})
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	target := topic + "-r"
	s := restoreOnce(t, brokers, dir, topic, target)
	if s.Records != 1 || s.Partitions[0].OpenAt != 1 {
		t.Fatalf("with a transaction open: %+v", s)
	}
	// Run again while it is still open: nothing to produce, and it says
	// why (not "everything was already restored").
	s = restoreOnce(t, brokers, dir, topic, target)
	if s.Records != 0 || s.Partitions[0].OpenAt != 1 || !strings.Contains(s.String(), "starts at a transaction still open at the last snapshot (partition 0)") {
		t.Fatalf("again with the transaction open: %+v: %s", s, s)
	}
	if err := tx.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	// EndTxn answers once the commit is prepared; the coordinator writes
	// the marker after: wait for it, or the dump may still see it open.
	dumptest.WaitStable(t, brokers, topic)
	dumpOnce(t, brokers, dir, topic)
	s = restoreOnce(t, brokers, dir, topic, target)
	if s.Records != 2 || s.Partitions[0].OpenAt != -1 {
		t.Fatalf("after the commit: %+v", s)
	}
	out := dumpTarget(t, brokers, target)
	compareRestored(t, committedRecords(t, dir, topic), committedRecords(t, out, target))
}

// TestRestoreFencesEveryProducer leaves, as a run killed mid-transaction
// would, a transaction open on every transactional id of restores into the
// target, each holding records and progress that would skip the whole
// source. The next restore must fence all of them before it reads the
// progress: their records end aborted, their progress never counts, every
// record is in the target once, and the old producers are fenced.
func TestRestoreFencesEveryProducer(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): transactions")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	want := committedRecords(t, dir, topic)
	target := topic + "-restored"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: brokers}
	if err := dump.CreateTopic(ctx, conn, target, 3, nil); err != nil {
		t.Fatal(err)
	}
	cl, adm, err := kafkaconn.Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tg, err := describeTarget(ctx, adm, target, "")
	if err != nil {
		t.Fatal(err)
	}
	// Progress of an earlier run that restored nothing yet (next source
	// offset 0 everywhere), so that the partitions are in the group: the
	// broker tells of pending offsets only for partitions with committed
	// ones.
	var zero kadm.Offsets
	for part := range int32(3) {
		zero.Add(kadm.Offset{Topic: target, Partition: part, At: 0, LeaderEpoch: -1, Metadata: progressMeta(topic, tg.id)})
	}
	r, err := adm.CommitOffsets(ctx, ID(target), zero)
	if err == nil {
		err = r.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	var stale []*kgo.Client
	for i := range producerCount {
		p := dumptest.Producer(t, brokers, kgo.TransactionalID(TxnID(target, i)))
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for part := range int32(3) {
			if err := p.ProduceSync(ctx, &kgo.Record{Topic: target, Partition: part, Value: []byte(fmt.Sprintf("stale %d", i))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		skip := &txnProducer{cl: p, txnID: TxnID(target, i), opts: Options{Topic: topic, ToTopic: target}, t: tg,
			next: map[int32]int64{0: 1 << 40, 1: 1 << 40, 2: 1 << 40}}
		if err := skip.commitProgress(ctx); err != nil {
			t.Fatal(err)
		}
		stale = append(stale, p) // left open: no EndTransaction
	}

	start := time.Now()
	s := restoreOnce(t, brokers, dir, topic, target)
	if s.Records != 3007 || s.Created {
		t.Fatalf("summary %+v", s)
	}
	// Not fenced, an open transaction's offsets would keep the progress
	// unstable until the broker timed it out (60 s): restore gives up
	// after 30 s.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("restore took %v: it waited for a transaction it should have fenced", d)
	}
	out := dumpTarget(t, brokers, target)
	n := compareRestored(t, want, committedRecords(t, out, target))
	aborted := abortedRecords(t, out, target)
	for _, r := range aborted {
		if !bytes.HasPrefix(r.Value, []byte("stale ")) {
			t.Errorf("aborted record %q at %d is not a stale one", r.Value, r.Offset)
		}
	}
	if len(aborted) != 3*producerCount {
		t.Errorf("%d aborted records in the target, want the %d the stale transactions held", len(aborted), 3*producerCount)
	}
	for i, p := range stale {
		if err := p.EndTransaction(ctx, kgo.TryCommit); err == nil {
			t.Errorf("stale producer %s committed after the restore: it was not fenced", TxnID(target, i))
		}
	}
	t.Logf("%d records restored once after fencing %d open transactions (%d stale records aborted)", n, producerCount, len(aborted))
}

func TestShareOut(t *testing.T) {
	mk := func(ws ...int64) ([]*plan, map[*plan]int64) {
		var pls []*plan
		w := map[*plan]int64{}
		for i, x := range ws {
			pl := &plan{m: &catalog.Manifest{Partition: int32(i)}}
			pls = append(pls, pl)
			w[pl] = x
		}
		return pls, w
	}
	for _, tc := range []struct {
		weights []int64
		n       int
		want    [][]int32
	}{
		{[]int64{10, 10, 10, 10, 10, 10}, 2, [][]int32{{0, 2, 4}, {1, 3, 5}}},
		{[]int64{100, 10, 10, 10}, 2, [][]int32{{0}, {1, 2, 3}}},
		{[]int64{5}, 2, [][]int32{{0}, nil}},
		{nil, 2, [][]int32{nil, nil}},
		{[]int64{3, 3, 2, 2, 2}, 2, [][]int32{{0, 2, 4}, {1, 3}}},
	} {
		pls, w := mk(tc.weights...)
		shares := shareOut(pls, tc.n, func(pl *plan) int64 { return w[pl] })
		var got [][]int32
		for _, sh := range shares {
			var ps []int32
			for _, pl := range sh {
				ps = append(ps, pl.m.Partition)
			}
			got = append(got, ps)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("shareOut(%v, %d) = %v, want %v", tc.weights, tc.n, got, tc.want)
		}
	}
}

// holdAfterCommit is the Progress of a restore that stops after its first
// committed transaction until release is closed.
type holdAfterCommit struct {
	once      sync.Once
	committed chan struct{}
	release   chan struct{}
}

func (h *holdAfterCommit) Start(catalog.TopicPartition, int64, int64) {}
func (h *holdAfterCommit) Advance(catalog.TopicPartition, int64, int64) {
	h.once.Do(func() { close(h.committed) })
	<-h.release
}
func (h *holdAfterCommit) Done(catalog.TopicPartition) {}
func (h *holdAfterCommit) Waiting(string)              {}
func (h *holdAfterCommit) Warn(string)                 {}

// TestRestoreSecondRunFencesFirst: a restore into a target while another
// is running takes over. The first, held after its first commit, finds
// itself fenced (ErrFenced, exit 8 on the command line) when it goes on;
// the second restores what the first had not, and the target holds every
// record once.
func TestRestoreSecondRunFencesFirst(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): transactions")
	}
	brokers := dumptest.Brokers(t)
	topic, dir := sourceWithEverything(t, brokers, nil)
	want := committedRecords(t, dir, topic)
	target := topic + "-restored"
	hold := &holdAfterCommit{committed: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	firstErr := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: topic, ToTopic: target, TxnRecords: 200, Progress: hold})
		firstErr <- err
	}()
	select {
	case <-hold.committed:
	case err := <-firstErr:
		t.Fatalf("the first restore ended before its first commit: %v", err)
	}
	second := restoreOnce(t, brokers, dir, topic, target)
	close(hold.release)
	if err := <-firstErr; !errors.Is(err, ErrFenced) {
		t.Fatalf("the first restore, taken over: %v, want ErrFenced", err)
	}
	if second.Records == 0 || second.Records >= 3007 {
		t.Fatalf("the second restore produced %d records: it should have gone on after the first's commits", second.Records)
	}
	out := dumpTarget(t, brokers, target)
	n := compareRestored(t, want, committedRecords(t, out, target))
	t.Logf("first restore fenced after its first commit; the second produced the other %d; %d records in the target once", second.Records, n)
}

// abortedRecords are the data records of aborted transactions in a dumped
// target: what killed or fenced restores left behind.
func abortedRecords(t *testing.T, dir, topic string) []catalog.Row {
	t.Helper()
	var out []catalog.Row
	for _, rows := range dumptest.ReadAllRows(t, dir, topic) {
		for _, r := range rows {
			if !r.Control && r.TxnState != nil && *r.TxnState == "aborted" {
				out = append(out, r)
			}
		}
	}
	return out
}
