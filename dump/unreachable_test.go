package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestOneShotDumpGivesUpOnADownCluster: the cluster goes away in the middle
// of a one-shot dump (no --follow). The dump waited for it without end (a
// cron job stalled for ever); now it waits WaitUnreachable, then ends with
// exit 3 and a hint, having committed what it read.
func TestOneShotDumpGivesUpOnADownCluster(t *testing.T) {
	defer func(d time.Duration) { stallCheck = d }(stallCheck)
	stallCheck = 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		// hung: the cluster stops answering (a broker hung, a network
		// cut) rather than refusing connections: each listing waited out
		// the client's retry timeout (30 s), and the dump gave up after
		// minutes on a bound of seconds (187 s on a 15 s bound, a real
		// broker under SIGSTOP).
		hung bool
	}{{"refused", false}, {"hung", true}} {
		t.Run(tc.name, func(t *testing.T) { oneShotDownCluster(t, tc.hung) })
	}
}

func oneShotDownCluster(t *testing.T, hung bool) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	defer close(release) // before c.Close: a hung handler lets go
	brokers := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 200
	for i := range n {
		for p := range int32(2) {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: p, Value: fmt.Appendf(nil, "record %d of partition %d, padded to some size ...................................", i, p)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	cl.Close()
	// The cluster goes down once the reader passed offset 50.
	var down atomic.Bool
	var once sync.Once
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		for _, tp := range req.(*kmsg.FetchRequest).Topics {
			for _, p := range tp.Partitions {
				if p.FetchOffset > 50 {
					once.Do(func() {
						down.Store(true)
						if !hung {
							go c.Close()
						}
					})
				}
			}
		}
		if hung && down.Load() {
			<-release // the cluster answers nothing more, to anyone
		}
		return nil, nil, false
	})
	dir := t.TempDir()
	log := &waitLog{}
	start := time.Now()
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = Run(rctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}, FetchMaxBytes: 1024,
		WaitUnreachable: 2 * time.Second, Progress: log})
	took := time.Since(start)
	if !down.Load() {
		t.Fatal("the cluster never went down: the test proves nothing")
	}
	if rctx.Err() != nil {
		t.Fatalf("the dump still waited after a minute (%v); said %q", err, log.said)
	}
	if code, hint := exit.Of(err); code != exit.Unreachable || !errors.Is(err, kafkaconn.ErrUnreachable) || !strings.Contains(hint, "run the same command again") || !strings.Contains(err.Error(), "could not be reached for 2s") {
		t.Fatalf("dump: %v (exit %d, hint %q); want exit %d with a hint", err, code, hint, exit.Unreachable)
	}
	if took > 20*time.Second {
		t.Errorf("the dump took %v to give up, with a bound of 2s", took)
	}
	rows := dumptest.ReadAllRows(t, dir, "t")
	if len(rows[0])+len(rows[1]) == 0 {
		t.Errorf("nothing read before the cluster went down was committed")
	}
	if _, err := catalog.Open(dir); err != nil {
		t.Fatalf("the folder after the dump gave up: %v", err)
	}
}
