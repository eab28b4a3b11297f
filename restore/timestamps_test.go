package restore

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRestoreRefusesTimestampItCannotProduce: Kafka takes any int64
// timestamp, but franz-go's producer counts a record's time in int64
// nanoseconds, which wrap after 2262-04-11: a record of 9999-12-31 was
// restored as 1816-03-30, and the summary said every record was restored.
// Such a record is refused before anything is created or produced (exit
// 12), naming it; the records around it restore with their timestamps.
func TestRestoreRefusesTimestampItCannotProduce(t *testing.T) {
	brokers := dumptest.Brokers(t)
	maxTS := strconv.FormatInt(math.MaxInt64, 10)
	topic := dumptest.NewTopic(t, brokers, 1, map[string]*string{"message.timestamp.after.max.ms": &maxTS})
	now := time.Now().UnixMilli()                    // recent: the target's retention.ms (a week) keeps them
	ts := []int64{now, 253_402_300_799_000, now + 1} // now, 9999-12-31, now
	dumptest.ProduceTimestamps(t, brokers, topic, 0, ts)
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)

	to := topic + "-r"
	for _, dry := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: topic, ToTopic: to, DryRun: dry})
		cancel()
		var le *LimitError
		if !errors.As(err, &le) || le.Config != limProducerTime || le.Offset != 1 {
			t.Fatalf("dry run %v: restore of a record of 9999-12-31: %v, want it refused naming offset 1", dry, err)
		}
		if c := code(err); c != exit.Target {
			t.Errorf("dry run %v: exit %d, want %d", dry, c, exit.Target)
		}
		for _, want := range []string{"offset 1 has timestamp 9999-12-31", "cannot produce", "nothing was produced"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("dry run %v: error %q lacks %q", dry, err, want)
			}
		}
		if h := le.Hint(); !strings.Contains(h, "--until 1") || !strings.Contains(h, "--from 2") {
			t.Errorf("hint %q does not say how to restore around the record", h)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	td, err := kadm.NewClient(cl).ListTopics(t.Context(), to)
	if err != nil {
		t.Fatal(err)
	}
	if td.Has(to) {
		t.Fatalf("the refused restore created %s", to)
	}

	// Around it: the other records keep their timestamps.
	restoreOnce(t, brokers, dir, topic, to, func(o *Options) { o.Until = "1" })
	restoreOnce(t, brokers, dir, topic, to, func(o *Options) { o.From = "2" })
	got := committedRecords(t, dumpTarget(t, brokers, to), to)[0]
	if len(got) != 2 || got[0].Timestamp != ts[0] || got[1].Timestamp != ts[2] {
		t.Fatalf("restored around the record: %+v, want timestamps %d and %d", got, ts[0], ts[2])
	}
}
