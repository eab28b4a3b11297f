package dump

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

func testCluster(t *testing.T) []string { return dumptest.Brokers(t) }

func realBroker() bool { return dumptest.Real() }

func newTopic(t *testing.T, brokers []string, partitions int32, configs map[string]*string) string {
	return dumptest.NewTopic(t, brokers, partitions, configs)
}

func producer(t *testing.T, brokers []string, opts ...kgo.Opt) *kgo.Client {
	return dumptest.Producer(t, brokers, opts...)
}

func produce(t *testing.T, cl *kgo.Client, recs ...*kgo.Record) { dumptest.Produce(t, cl, recs...) }

func readAllRows(t *testing.T, dir string, topic string) map[int32][]catalog.Row {
	return dumptest.ReadAllRows(t, dir, topic)
}

func dumpOnce(t *testing.T, brokers []string, dir, topic string, mod ...func(*Options)) Summary {
	t.Helper()
	o := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	for _, f := range mod {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	return s
}

func TestDumpKeepsEveryByteAndResumes(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	big := bytes.Repeat([]byte("x"), 900_000)
	produce(t, p,
		&kgo.Record{Topic: topic, Partition: 0, Key: nil, Value: nil},                      // tombstone, null key
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte{}, Value: []byte{}},            // empty, not null
		&kgo.Record{Topic: topic, Partition: 0, Key: []byte{0xff, 0xfe, 0x00}, Value: big}, // binary key, big value
		&kgo.Record{Topic: topic, Partition: 1, Key: []byte("k"), Value: []byte{0, 0, 0, 0, 7, 'x'}, // schema id 7
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: nil}, {Key: "b", Value: []byte{0, 1}}}},
	)
	dir := t.TempDir()
	s := dumpOnce(t, brokers, dir, topic, func(o *Options) { o.FileRows = 2 })
	if s.Records != 4 || s.Partitions != 2 {
		t.Fatalf("summary %+v", s)
	}
	rows := readAllRows(t, dir, topic)
	p0, p1 := rows[0], rows[1]
	if len(p0) != 3 || len(p1) != 1 {
		t.Fatalf("rows per partition: %d %d", len(p0), len(p1))
	}
	if p0[0].Key != nil || p0[0].Value != nil {
		t.Errorf("null key/value came back non-null: %#v %#v", p0[0].Key, p0[0].Value)
	}
	if p0[1].Key == nil || len(p0[1].Key) != 0 || p0[1].Value == nil || len(p0[1].Value) != 0 {
		t.Errorf("empty key/value came back as %#v %#v", p0[1].Key, p0[1].Value)
	}
	if !bytes.Equal(p0[2].Key, []byte{0xff, 0xfe, 0x00}) || !bytes.Equal(p0[2].Value, big) {
		t.Errorf("binary key or big value changed")
	}
	h := p1[0].Headers
	if len(h) != 3 || h[0].Key != "h" || string(h[0].Value) != "1" || h[1].Key != "h" || h[1].Value != nil || !bytes.Equal(h[2].Value, []byte{0, 1}) {
		t.Errorf("headers: %#v", h)
	}
	if p1[0].SchemaID == nil || *p1[0].SchemaID != 7 {
		t.Errorf("schema id: %v", p1[0].SchemaID)
	}
	// Resume: only new records are dumped, nothing twice.
	produce(t, p, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("later")})
	s = dumpOnce(t, brokers, dir, topic)
	if s.Records != 1 {
		t.Fatalf("second dump read %d records, want 1", s.Records)
	}
	rows = readAllRows(t, dir, topic)
	var offs []int64
	for _, r := range rows[0] {
		offs = append(offs, r.Offset)
	}
	if fmt.Sprint(offs) != "[0 1 2 3]" {
		t.Fatalf("partition 0 offsets %v", offs)
	}
	// Nothing new: a third dump reads nothing and changes nothing.
	if s := dumpOnce(t, brokers, dir, topic); s.Records != 0 {
		t.Fatalf("third dump read %d", s.Records)
	}
	d, _ := catalog.Open(dir)
	n, probs, err := d.Verify(t.Context())
	if err != nil || len(probs) > 0 || n == 0 {
		t.Fatalf("verify: %d files, %v, %v", n, probs, err)
	}
}

func TestDumpTransactionsKeepsMarkersAndFlagsAborted(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	txn := producer(t, brokers, kgo.TransactionalID("tx-"+topic))
	ctx := context.Background()
	for i, commit := range []bool{true, false, true} {
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produce(t, txn, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("a%d", i))}, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("b%d", i))})
		if err := txn.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	dumptest.WaitStable(t, brokers, topic) // the last marker is written after EndTransaction returns
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	rows := readAllRows(t, dir, topic)[0]
	// 3 transactions of 2 records and a marker each: offsets 0..8.
	if len(rows) != 9 {
		t.Fatalf("got %d rows, want 9: %+v", len(rows), rows)
	}
	var got []string
	for _, r := range rows {
		switch {
		case r.Control:
			got = append(got, "marker:"+*r.ControlType)
		default:
			got = append(got, string(r.Value)+":"+*r.TxnState)
		}
	}
	want := "[a0:committed b0:committed marker:commit a1:aborted b1:aborted marker:abort a2:committed b2:committed marker:commit]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got  %v\nwant %s", got, want)
	}
}

func TestDumpRecordsDeletedRanges(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	for i := 0; i < 10; i++ {
		produce(t, p, &kgo.Record{Topic: topic, Value: []byte{byte(i)}})
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(brokers...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	del := func(before int64) {
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: topic, Partition: 0, At: before})
		r, err := adm.DeleteRecords(context.Background(), o)
		if err != nil || r.Error() != nil {
			t.Fatalf("delete records: %v %v", err, r.Error())
		}
	}
	del(3) // before the first snapshot
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	for i := 10; i < 20; i++ {
		produce(t, p, &kgo.Record{Topic: topic, Value: []byte{byte(i)}})
	}
	del(15) // between snapshots: 10..14 never read
	dumpOnce(t, brokers, dir, topic)
	d, _ := catalog.Open(dir)
	m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic, Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	for _, l := range m.Lost {
		lost = append(lost, fmt.Sprintf("%s:%d-%d", l.Kind, l.From, l.To))
	}
	sort.Strings(lost)
	want := "[expired-before-first-snapshot:0-2 expired-between-snapshots:10-14]"
	if fmt.Sprint(lost) != want {
		t.Fatalf("lost %v, want %s", lost, want)
	}
	var offs []int64
	for _, r := range readAllRows(t, dir, topic)[0] {
		offs = append(offs, r.Offset)
	}
	if fmt.Sprint(offs) != "[3 4 5 6 7 8 9 15 16 17 18 19]" {
		t.Fatalf("offsets %v", offs)
	}
}

func TestDumpOverSASLSCRAM(t *testing.T) {
	sasl := os.Getenv("TOPICSNAP_TEST_SASL_BROKERS")
	if sasl == "" {
		t.Skip("needs the real broker's SASL listener (make test starts it)")
	}
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	produce(t, producer(t, brokers), &kgo.Record{Topic: topic, Value: []byte("secret-stuff")})
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-512"} {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "client.properties")
		os.WriteFile(cfg, []byte(fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=%s\n"+
			"sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"%s\" password=\"%s\";\n",
			sasl, mech, os.Getenv("TOPICSNAP_TEST_SASL_USER"), os.Getenv("TOPICSNAP_TEST_SASL_PASSWORD"))), 0o600)
		s, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{ConfigFile: cfg}, Dir: filepath.Join(dir, "snap"), Topics: []string{topic}})
		if err != nil || s.Records != 1 {
			t.Fatalf("%s: %v, %+v", mech, err, s)
		}
		// A wrong password is an authentication error that never shows the password.
		os.WriteFile(cfg, []byte(fmt.Sprintf("bootstrap.servers=%s\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=%s\nsasl.username=topicsnap\nsasl.password=hunter2-wrong\n", sasl, mech)), 0o600)
		_, err = Run(context.Background(), Options{Conn: kafkaconn.Conn{ConfigFile: cfg}, Dir: filepath.Join(dir, "snap2"), Topics: []string{topic}})
		if !errors.Is(err, kafkaconn.ErrAuthentication) {
			t.Fatalf("%s wrong password: %v", mech, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("error leaks the password: %v", err)
		}
	}
}

func TestDumpErrorsNameTheThing(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	ctx := context.Background()
	cases := []struct {
		name string
		o    Options
		want error
		text string
	}{
		{"unreachable", Options{Conn: kafkaconn.Conn{Brokers: []string{"127.0.0.1:1"}, DialTimeout: 500 * time.Millisecond}, Topics: []string{topic}}, kafkaconn.ErrUnreachable, "127.0.0.1:1"},
		{"unknown topic", Options{Conn: kafkaconn.Conn{Brokers: brokers}, Topics: []string{topic + "x"}}, kafkaconn.ErrUnknownTopic, "did you mean"},
		{"bad from", Options{Conn: kafkaconn.Conn{Brokers: brokers}, Topics: []string{topic}, From: "yesterday"}, kafkaconn.ErrBadOption, "--from"},
		{"bad partitions", Options{Conn: kafkaconn.Conn{Brokers: brokers}, Topics: []string{topic}, Partitions: "3-1"}, kafkaconn.ErrBadOption, "--partitions"},
		{"bad address", Options{Conn: kafkaconn.Conn{Brokers: []string{"nohostport"}}, Topics: []string{topic}}, kafkaconn.ErrBadConfig, "HOST:PORT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Dir = t.TempDir()
			_, err := Run(ctx, c.o)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("got %v, want %v containing %q", err, c.want, c.text)
			}
		})
	}
}

func TestTwoWritersOnOnePartitionRefused(t *testing.T) {
	dir := t.TempDir()
	d, _ := catalog.Create(dir)
	tp := catalog.TopicPartition{Topic: "t", Partition: 0}
	l, err := d.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if _, err := d.LockPartition(t.Context(), tp); !errors.Is(err, catalog.ErrLocked) {
		t.Fatalf("second lock: %v", err)
	}
	if l2, err := d.LockPartition(t.Context(), catalog.TopicPartition{Topic: "t", Partition: 1}); err != nil {
		t.Fatalf("disjoint partition: %v", err)
	} else {
		l2.Unlock()
	}
}

func TestFollowKeepsTailingUntilInterrupted(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Summary, 1)
	go func() {
		s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, Follow: true, Interval: 200 * time.Millisecond})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("follow ended with %v, want context.Canceled", err)
		}
		done <- s
	}()
	// Produce in chunks, each only once the follow has stored every record
	// before it (the manifests are replaced atomically, so reading them
	// while the dump runs is safe): the records are spread over at least
	// one round per chunk, whatever the machine's speed.
	const total, chunk = 3000, 500
	waitStored := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if n, _ := coverage(t, dir, topic); n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the follow never stored the first %d records", want)
			}
		}
	}
	for i := 0; i < total; i++ {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))})
		if (i+1)%chunk == 0 {
			waitStored(int64(i + 1))
		}
	}
	cancel()
	s := <-done
	if s.Records != total || len(s.Snapshots) < total/chunk {
		t.Fatalf("follow dumped %d records in %d snapshots, want %d in at least %d", s.Records, len(s.Snapshots), total, total/chunk)
	}
	// Partitions, not partition-rounds: the summary said 12 for a topic of 3.
	if s.Partitions != 2 {
		t.Errorf("follow's summary counts %d partitions over %d snapshots, want the topic's 2", s.Partitions, len(s.Snapshots))
	}
	stored, lost := coverage(t, dir, topic)
	if stored != total || lost != 0 {
		t.Fatalf("stored %d lost %d", stored, lost)
	}
	t.Logf("followed %d records through %d snapshots", s.Records, len(s.Snapshots))
}

// TestIdlePartitionsAreLeftAlone: an incremental dump writes, locks and
// cleans only the partitions it has something to write in (issue 32). A
// partition with nothing new keeps its manifest as it was and is listed
// in the cut at its next offset, even while another dumper holds its lock;
// once it has records (or retention deleted offsets it never dumped) the
// dump takes its lock, and refuses it while another holds it. A log start
// that reached the next offset without passing it loses nothing.
func TestIdlePartitionsAreLeftAlone(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	adm := kadm.NewClient(p)
	rec := func(part int32) *kgo.Record { return &kgo.Record{Topic: topic, Partition: part, Value: []byte("v")} }
	del := func(part int32, before int64) {
		t.Helper()
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: topic, Partition: part, At: before})
		r, err := adm.DeleteRecords(t.Context(), o)
		if err != nil || r.Error() != nil {
			t.Fatalf("delete records: %v %v", err, r.Error())
		}
	}
	produce(t, p, rec(0), rec(1), rec(2))
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	manifest := func(part int32) *catalog.Manifest {
		t.Helper()
		m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic, Partition: part})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	// dumped is what a run's cut says of each partition: "dumped@HWM".
	dumped := func(s Summary) string {
		t.Helper()
		snaps, err := d.ClusterSnapshots(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range snaps {
			if cs.ID != s.Snapshots[len(s.Snapshots)-1] {
				continue
			}
			var out []string
			for _, ps := range cs.Partitions {
				out = append(out, fmt.Sprintf("%d@%d", ps.Partition, ps.HighWatermark))
			}
			return fmt.Sprintf("%v of %v", cs.Dumped, out)
		}
		t.Fatalf("no cut %v", s.Snapshots)
		return ""
	}
	held, err := d.LockPartition(t.Context(), catalog.TopicPartition{Topic: topic, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { held.Unlock() }()
	before := manifest(1)

	produce(t, p, rec(0))
	del(2, 1) // partition 2's log start reaches its next offset: nothing lost
	s := dumpOnce(t, brokers, dir, topic)
	if s.Records != 1 || s.Partitions != 3 || s.Lost != 0 {
		t.Fatalf("dumped %d records of %d partitions, %d lost ranges; want 1 of 3, none lost", s.Records, s.Partitions, s.Lost)
	}
	if got := dumped(s); got != "[0 1 2] of [0@2 1@1 2@1]" {
		t.Fatalf("the cut says %s", got)
	}
	if m := manifest(0); len(m.Snapshots) != 2 || m.NextOffset != 2 {
		t.Fatalf("partition 0, with a new record: %d snapshots, next %d; want 2, 2", len(m.Snapshots), m.NextOffset)
	}
	for _, part := range []int32{1, 2} {
		if m := manifest(part); len(m.Snapshots) != 1 || m.NextOffset != 1 || len(m.Lost) != 0 {
			t.Fatalf("idle partition %d: %d snapshots, next %d, lost %v; want its first dump's manifest", part, len(m.Snapshots), m.NextOffset, m.Lost)
		}
	}
	if !reflect.DeepEqual(manifest(1), before) {
		t.Fatal("the manifest of the idle, locked partition changed")
	}

	produce(t, p, rec(1))
	_, err = Run(t.Context(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}})
	if !errors.Is(err, catalog.ErrLocked) || !strings.Contains(err.Error(), "another topicsnap dump is writing") {
		t.Fatalf("a dump with a new record in a partition another holds: %v, want ErrLocked", err)
	}
	held.Unlock()

	produce(t, p, rec(2), rec(2))
	del(2, 3) // offsets 1 and 2 deleted before any dump read them
	s = dumpOnce(t, brokers, dir, topic)
	if s.Records != 1 || s.Lost != 1 || s.LostOffsets != 2 {
		t.Fatalf("dumped %d records, %d lost ranges of %d offsets; want 1, 1 of 2", s.Records, s.Lost, s.LostOffsets)
	}
	if m := manifest(2); len(m.Lost) != 1 || m.Lost[0].From != 1 || m.Lost[0].To != 2 || m.NextOffset != 3 || len(m.Snapshots) != 2 {
		t.Fatalf("partition 2: lost %v, next %d, %d snapshots; want 1-2 lost, 3, 2", m.Lost, m.NextOffset, len(m.Snapshots))
	}
	if got := dumped(s); got != "[0 1 2] of [0@2 1@2 2@3]" {
		t.Fatalf("the cut says %s", got)
	}
	if stored, lost := coverage(t, dir, topic); stored != 5 || lost != 2 {
		t.Fatalf("stored %d, lost %d; want 5, 2", stored, lost)
	}
}
