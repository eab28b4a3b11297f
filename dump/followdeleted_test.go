package dump

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestFollowOutlivesADeletedTopic: a dump --follow of two topics goes on
// following the one left when the other is deleted (a warning names it),
// instead of ending the whole follow with "topic is gone from the cluster"
// and leaving the other's new records to retention; when the deleted topic
// is made again under its name, the follow picks it up again (a
// topic-recreated rewrite, its new record stored).
func TestFollowOutlivesADeletedTopic(t *testing.T) {
	brokers := testCluster(t)
	kept := newTopic(t, brokers, 1, nil)
	gone := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	produce(t, p, &kgo.Record{Topic: kept, Value: []byte("k0")}, &kgo.Record{Topic: gone, Value: []byte("g0")})

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &waitLog{}
	ended := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{kept, gone},
			Follow: true, Interval: 200 * time.Millisecond, Progress: w})
		ended <- err
	}()
	manifest := func(topic string) *catalog.Manifest {
		d, err := catalog.Open(dir)
		if err != nil {
			return nil
		}
		m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic})
		if err != nil {
			return nil
		}
		return m
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(45 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			select {
			case err := <-ended:
				t.Fatalf("the follow ended (%v) while waiting for %s; said %q", err, what, w.said)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("never %s; said %q", what, w.said)
			}
		}
	}
	stored := func(topic string, n int64) func() bool {
		return func() bool { m := manifest(topic); return m != nil && m.NextOffset >= n }
	}
	waitFor("stored the first records", func() bool { return stored(kept, 1)() && stored(gone, 1)() })

	adm := kadm.NewClient(p)
	if _, err := adm.DeleteTopics(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	said := func(s string) func() bool {
		return func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return strings.Contains(strings.Join(w.said, "\n"), s)
		}
	}
	waitFor("warned of the deleted topic", said(gone+" is gone from the cluster"))
	produce(t, p, &kgo.Record{Topic: kept, Value: []byte("k1")})
	waitFor("stored the kept topic's record after the deletion", stored(kept, 2))

	// Made again: followed again, as another history of the name.
	for {
		if _, err := adm.CreateTopic(t.Context(), 1, 1, nil, gone); err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A new client: p still knows the deleted topic's id.
	produce(t, producer(t, brokers), &kgo.Record{Topic: gone, Value: []byte("g-new-0")}, &kgo.Record{Topic: gone, Value: []byte("g-new-1")})
	waitFor("followed the topic made again", func() bool {
		m := manifest(gone)
		return m != nil && len(m.Rewrites) > 0 && m.NextOffset >= 2
	})
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("follow ended with %v, want context.Canceled", err)
	}
}
