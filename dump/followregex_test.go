package dump

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestFollowRegexTakesNewTopics: dump --follow --topic-regex follows a
// topic made after it started that the regex matches (as a consumer's
// pattern subscription does), said with a warning, rather than leaving its
// records to retention without a word.
func TestFollowRegexTakesNewTopics(t *testing.T) {
	brokers := testCluster(t)
	prefix := fmt.Sprintf("t-followregex-%d", time.Now().UnixNano()%1e9)
	p := producer(t, brokers)
	adm := kadm.NewClient(p)
	first, later := prefix+"-a", prefix+"-b"
	if _, err := adm.CreateTopic(t.Context(), 1, 1, nil, first); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adm.DeleteTopics(context.Background(), first, later) })
	produce(t, p, &kgo.Record{Topic: first, Value: []byte("a0")})

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := &waitLog{}
	ended := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, TopicRegex: "^" + prefix + "-",
			Follow: true, Interval: 200 * time.Millisecond, Progress: w})
		ended <- err
	}()
	stored := func(topic string, n int64) bool {
		d, err := catalog.Open(dir)
		if err != nil {
			return false
		}
		m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: topic})
		return err == nil && m.NextOffset >= n
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(100 * time.Millisecond) {
			select {
			case err := <-ended:
				t.Fatalf("the follow ended (%v) while waiting for %s", err, what)
			default:
			}
			if time.Now().After(deadline) {
				w.mu.Lock()
				t.Fatalf("never %s; said %q", what, w.said)
			}
		}
	}
	waitFor("stored the first topic's record", func() bool { return stored(first, 1) })
	if _, err := adm.CreateTopic(t.Context(), 1, 1, nil, later); err != nil {
		t.Fatal(err)
	}
	produce(t, producer(t, brokers), &kgo.Record{Topic: later, Value: []byte("b0")}, &kgo.Record{Topic: later, Value: []byte("b1")})
	waitFor("stored the records of the topic made later", func() bool { return stored(later, 2) })
	w.mu.Lock()
	said := strings.Join(w.said, "\n")
	w.mu.Unlock()
	if !strings.Contains(said, "topic "+later+" now matches --topic-regex") {
		t.Errorf("the new topic was not said: %q", said)
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("follow ended with %v, want context.Canceled", err)
	}
}
