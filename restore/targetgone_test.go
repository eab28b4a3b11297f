package restore

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestTargetDeletedMidRestore: the target topic deleted while the
// restore produces into it ends the restore with a TargetGoneError (exit
// 4) naming the topic and what went with it; run again, the restore
// creates it again and restores every record once. Before, it was exit 2,
// `produce: UNKNOWN_TOPIC_OR_PARTITION: This server does not host this
// topic-partition.`, no topic named, no Try.
func TestTargetDeletedMidRestore(t *testing.T) {
	const n = 20000
	c, dir := kfakeSource(t, n)
	brokers := c.ListenAddrs()
	adm, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	var produces atomic.Int32
	var deleted atomic.Bool
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if produces.Add(1) != 4 {
			return nil, nil, false
		}
		// The fourth produce request waits until dst is deleted.
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := kadm.NewClient(adm).DeleteTopics(t.Context(), "dst"); err == nil {
				deleted.Store(true)
			}
		}()
		c.SleepControl(func() { <-done })
		return nil, nil, false
	})
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 500}
	_, err = Run(t.Context(), opts)
	if !deleted.Load() {
		t.Fatalf("dst was not deleted mid-restore (%d produce requests): the test proves nothing; the restore said %v", produces.Load(), err)
	}
	var ge *TargetGoneError
	if !errors.As(err, &ge) || !errors.Is(err, kafkaconn.ErrUnknownTopic) || !strings.Contains(err.Error(), "target topic dst was deleted while the restore produced into it") {
		t.Fatalf("target deleted mid-restore: %v, want a TargetGoneError naming dst", err)
	}
	if code, hint := exit.Of(err); code != exit.UnknownTopic || !strings.Contains(hint, "run the same command again") {
		t.Errorf("exit %d, Try %q; want %d and the run again", code, hint, exit.UnknownTopic)
	}
	if _, err := Run(t.Context(), opts); err != nil {
		t.Fatalf("the restore run again: %v", err)
	}
	onceEach(t, brokers, "dst", n)
}
