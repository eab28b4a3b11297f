package dump

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

func needRealBroker(t *testing.T) {
	t.Helper()
	if !realBroker() {
		t.Skip("needs the real broker: retention and restarts are what kfake does not do (make test runs this)")
	}
}

// coverage checks that every offset below each partition's next offset is
// either stored or in a lost range, never both, never neither.
func coverage(t *testing.T, dir, topic string) (stored, lost int64) {
	t.Helper()
	d, _ := catalog.Open(dir)
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	rows := readAllRows(t, dir, topic)
	for _, m := range ms {
		seen := map[int64]int{}
		for _, r := range rows[m.Partition] {
			seen[r.Offset]++
		}
		for _, l := range m.Lost {
			for o := l.From; o <= l.To; o++ {
				seen[o] += 100
			}
			lost += l.To - l.From + 1
		}
		for o := int64(0); o < m.NextOffset; o++ {
			switch seen[o] {
			case 1, 100:
			case 0:
				t.Fatalf("partition %d offset %d: neither stored nor in a lost range", m.Partition, o)
			default:
				t.Fatalf("partition %d offset %d: counted %d times (stored and/or lost twice)", m.Partition, o, seen[o])
			}
		}
		stored += int64(len(rows[m.Partition]))
	}
	return stored, lost
}

func TestRetentionRacingTheDump(t *testing.T) {
	needRealBroker(t)
	brokers := testCluster(t)
	ms, segms := "1000", "200"
	topic := newTopic(t, brokers, 2, map[string]*string{"retention.ms": &ms, "segment.ms": &segms})
	p := producer(t, brokers)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			p.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))})
			time.Sleep(2 * time.Millisecond)
		}
	}()
	dir := t.TempDir()
	for i := 0; i < 5; i++ {
		// Slower than retention (1 s, checked every second): some records
		// are deleted before the next dump reaches them.
		time.Sleep(time.Duration(1500+i*500) * time.Millisecond)
		if _, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FileRows: 50}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	wg.Wait()
	stored, lost := coverage(t, dir, topic)
	if lost == 0 || stored == 0 {
		t.Fatalf("the race did not happen: %d stored, %d lost", stored, lost)
	}
	t.Logf("%d offsets stored, %d recorded lost, none both, none neither", stored, lost)
}

func TestBrokerRestartMidDump(t *testing.T) {
	needRealBroker(t)
	script := os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT")
	if script == "" || os.Getenv("TOPICSNAP_TEST_RESTART") == "" {
		t.Skip("restarts the shared broker: make test runs it alone (TOPICSNAP_TEST_RESTART=1)")
	}
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	const total = 600_000
	var recs []*kgo.Record
	for i := 0; i < total; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprintf("%d-%0150d", i, i))})
	}
	produce(t, p, recs...)
	p.Close()
	dir := t.TempDir()
	// The broker is killed mid-read: once 1/20 of the records are dumped
	// (small files keep the dump busy for seconds).
	w := &waitLog{fire: make(chan int64, 1), trigger: total / 20}
	done := make(chan error, 1)
	go func() {
		// Small fetches keep the reader close behind the writers, so the
		// kill lands while most records are still unread.
		_, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FileRows: 300, FetchMaxBytes: 256 << 10, Progress: w})
		done <- err
	}()
	// Kill the broker while the dump reads, keep it down, start it again.
	var atStop int64
	select {
	case atStop = <-w.fire:
	case err := <-done:
		t.Fatalf("dump ended before the broker was stopped: %v", err)
	}
	if out, err := exec.Command(script, "kill").CombinedOutput(); err != nil {
		t.Fatalf("kill: %v %s", err, out)
	}
	// make test keeps it down 10s; make faults 30s (TOPICSNAP_TEST_OUTAGE=30s).
	outage := 10 * time.Second
	if d, err := time.ParseDuration(os.Getenv("TOPICSNAP_TEST_OUTAGE")); err == nil && d > 0 {
		outage = d
	}
	select {
	case err := <-done:
		t.Fatalf("dump ended while the broker was down: %v", err)
	case <-time.After(outage):
	}
	if out, err := exec.Command(script, "start", "--keep-data").CombinedOutput(); err != nil {
		t.Fatalf("start: %v %s", err, out)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("dump across a restart: %v", err)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("dump never finished after the restart")
	}
	stored, lost := coverage(t, dir, topic)
	if stored != total || lost != 0 {
		t.Fatalf("stored %d, lost %d; want %d and 0", stored, lost, total)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.said) == 0 {
		t.Errorf("the dumper never said what it was waiting for")
	}
	t.Logf("broker killed mid-read (%d records dumped by then) and down for %s; %d records dumped exact; it said: %q", atStop, outage, stored, w.said[:min(len(w.said), 2)])
}

type waitLog struct {
	mu      sync.Mutex
	said    []string
	n       int64
	trigger int64
	fire    chan int64
}

func (*waitLog) Start(catalog.TopicPartition, int64, int64) {}
func (*waitLog) Done(catalog.TopicPartition)                {}
func (w *waitLog) Advance(_ catalog.TopicPartition, n, _ int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += n
	if w.trigger > 0 && w.n >= w.trigger {
		w.trigger = 0
		w.fire <- w.n
	}
}
func (w *waitLog) Waiting(s string) {
	w.mu.Lock()
	w.said = append(w.said, s)
	w.mu.Unlock()
}
func (w *waitLog) Warn(s string) { w.Waiting(s) }

func TestDiskFullCommitsNothingPartialAndResumes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a small tmpfs: needs root (CI runs as root)")
	}
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	var recs []*kgo.Record
	for i := 0; i < 40; i++ {
		v := make([]byte, 100_000) // random: zstd cannot shrink it
		rand.Read(v)
		recs = append(recs, &kgo.Record{Topic: topic, Value: v})
	}
	produce(t, p, recs...)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1500k", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	dir := filepath.Join(mnt, "snap")
	_, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FileRows: 4})
	if !errors.Is(err, catalog.ErrDiskFull) {
		t.Fatalf("want a disk-full error, got %v", err)
	}
	d, _ := catalog.Open(dir)
	if _, probs, verr := d.Verify(t.Context()); verr != nil || len(probs) > 0 {
		t.Fatalf("after disk full the catalog does not verify: %v %v", probs, verr)
	}
	before, _ := coverage(t, dir, topic)
	if out, err := exec.Command("mount", "-o", "remount,size=64m", mnt).CombinedOutput(); err != nil {
		t.Fatalf("remount: %v %s", err, out)
	}
	if _, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FileRows: 4}); err != nil {
		t.Fatalf("resume after space was freed: %v", err)
	}
	after, lost := coverage(t, dir, topic)
	if after != 40 || lost != 0 {
		t.Fatalf("after resume: %d stored, %d lost", after, lost)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "topic="+topic, "partition=0", ".tmp-*"))
	sort.Strings(leftovers)
	if len(leftovers) > 0 {
		t.Fatalf("temp files left: %v", leftovers)
	}
	t.Logf("disk full after %d of 40 records; resumed to 40 exactly", before)
}
