package restore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestTargetNameCollidingByDotAndUnderscore: Kafka refuses to create a
// topic whose name differs from an existing topic's only by '.' and '_'
// (a.b beside a_b: their metric names would be one). A restore into
// restored_Orders while the cluster had restored.Orders said in its dry run
// "would restore 11 records ... into new topic restored_Orders" (exit 0),
// and the restore failed "create topic restored_Orders:
// INVALID_TOPIC_EXCEPTION: The request attempted to perform an operation on
// an invalid topic." (exit 2, no Try). Now both refuse it before anything
// is produced, exit 12, naming the topic it collides with.
func TestTargetNameCollidingByDotAndUnderscore(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 1, nil)
	dumptest.Produce(t, dumptest.Producer(t, brokers), &kgo.Record{Topic: topic, Value: []byte("v")})
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)
	dotted := "restored." + strings.ReplaceAll(topic, "-", ".")
	cl := dumptest.Producer(t, brokers)
	if r, err := kadm.NewClient(cl).CreateTopic(t.Context(), 1, 1, nil, dotted); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", dotted, err, r.Err)
	}
	underscored := strings.ReplaceAll(dotted, ".", "_")
	for _, dry := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: topic, ToTopic: underscored, DryRun: dry})
		cancel()
		var ce *CollisionError
		code, hint := exit.Of(err)
		if !errors.As(err, &ce) || !errors.Is(err, ErrTarget) || code != exit.Target || ce.Other != dotted || hint == "" ||
			!strings.Contains(err.Error(), "the cluster has topic "+dotted+", and Kafka refuses a topic whose name differs from another's only by '.' and '_'") {
			t.Errorf("dry run %v: restore into %s beside %s: exit %d, %v (Try: %s); want exit %d naming %s", dry, underscored, dotted, code, err, hint, exit.Target, dotted)
		}
	}
	td, err := kadm.NewClient(cl).ListTopics(context.Background(), underscored)
	if err != nil || td.Has(underscored) {
		t.Errorf("topic %s was made: %v", underscored, err)
	}
}
