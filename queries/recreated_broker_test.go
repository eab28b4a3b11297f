package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRecreatedTopicIsNotABrokersLoss: a topic deleted and made again
// under its name between two dumps (a new topic id: the dump keeps the old
// records as superseded) is someone's doing. gaps and durability say so
// and warn; before, both failed it as "rewritten by Kafka ... an unclean
// leader election".
func TestRecreatedTopicIsNotABrokersLoss(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 1, nil)
	p := dumptest.Producer(t, brokers)
	for i := range 10 {
		dumptest.Produce(t, p, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "old-%d", i)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, brokers, topic, 1)
	p2 := dumptest.Producer(t, brokers)
	for i := range 15 {
		dumptest.Produce(t, p2, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "new-%d", i)})
	}
	if s, err := dump.Run(ctx, opts); err != nil || s.Rewrites != 1 {
		t.Fatalf("second dump: %v %v, want one rewrite", s, err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ check, field string }{{"gaps", "recreated_offsets"}, {"durability", "recreated_offsets"}} {
		r, err := e.RunCheck(ctx, c.check, CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		// durability may fail for the test broker's replication factor
		// 1; never for the topic made again.
		if (c.check == "gaps" && r.Status != StatusWarn) || strings.Contains(r.Message, "truncated its log") || strings.Contains(r.Message, "rewritten by Kafka") ||
			!strings.Contains(r.Message, "deleted and made again") || r.Summary.Get(c.field) != int64(10) || r.Summary.Get("rewritten_offsets") != int64(0) {
			t.Errorf("%s: %s %q, %s=%v, rewritten_offsets=%v; want the topic made again said (10 offsets), no rewrite by Kafka", c.check, r.Status, r.Message,
				c.field, r.Summary.Get(c.field), r.Summary.Get("rewritten_offsets"))
		}
	}
}
