package dump

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSoakFollowAcrossBrokerRestarts: `dump --follow` while producers keep
// writing and the broker restarts three times; at the end every
// acknowledged record is in the snapshot once, nothing recorded lost.
// make soak runs it (TOPICSNAP_TEST_SOAK=5m); it restarts the shared broker.
func TestSoakFollowAcrossBrokerRestarts(t *testing.T) {
	script := os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT")
	d, err := time.ParseDuration(os.Getenv("TOPICSNAP_TEST_SOAK"))
	if err != nil || script == "" || !realBroker() {
		t.Skip("a soak against the real broker: make soak (TOPICSNAP_TEST_SOAK=5m)")
	}
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	var acked, failed atomic.Int64
	stopProduce := make(chan struct{})
	var pwg sync.WaitGroup
	pwg.Add(1)
	go func() {
		defer pwg.Done()
		for i := 0; ; i++ {
			select {
			case <-stopProduce:
				return
			default:
			}
			p.Produce(context.Background(), &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprintf(`{"n":%d}`, i))}, func(_ *kgo.Record, err error) {
				if err != nil {
					failed.Add(1)
				} else {
					acked.Add(1)
				}
			})
			time.Sleep(2 * time.Millisecond)
		}
	}()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w := &waitLog{}
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, Follow: true, Interval: 2 * time.Second, Progress: w})
		done <- err
	}()
	step := d / 4
	for i := 0; i < 3; i++ {
		time.Sleep(step)
		if out, err := exec.Command(script, "restart-broker").CombinedOutput(); err != nil {
			t.Fatalf("restart %d: %v %s", i+1, err, out)
		}
		t.Logf("restart %d done at %d acked records", i+1, acked.Load())
	}
	time.Sleep(step)
	close(stopProduce)
	pwg.Wait()
	fctx, fcancel := context.WithTimeout(context.Background(), time.Minute)
	if err := p.Flush(fctx); err != nil {
		t.Fatalf("flush the producer: %v", err)
	}
	fcancel()
	time.Sleep(5 * time.Second) // two more rounds of --follow
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("--follow ended with %v", err)
	}
	// One last plain run reaches the end of the log.
	if _, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	stored, lost := coverage(t, dir, topic)
	if stored != acked.Load() || lost != 0 {
		t.Fatalf("stored %d, lost %d; %d acknowledged, %d failed", stored, lost, acked.Load(), failed.Load())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	t.Logf("soak of %s: 3 broker restarts, %d acknowledged records stored exactly once, 0 lost (%d produce failures); the dumper said %d waiting messages",
		d, stored, failed.Load(), len(w.said))
}
