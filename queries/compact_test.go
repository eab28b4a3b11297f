package queries

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestGapsOnACompactedTopic: a real broker's cleaner removes old values of
// the same keys; the holes it leaves are classified as compaction, not as
// missing offsets.
func TestGapsOnACompactedTopic(t *testing.T) {
	if os.Getenv("TOPICSNAP_TEST_BROKERS") == "" {
		t.Skip("needs the real broker's log cleaner (make test runs it)")
	}
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("compacted-%d", time.Now().UnixNano())
	cfg := map[string]*string{"cleanup.policy": ptr("compact"), "segment.ms": ptr("100"),
		"min.cleanable.dirty.ratio": ptr("0.01"), "delete.retention.ms": ptr("100"), "min.compaction.lag.ms": ptr("0")}
	if err := dump.CreateTopic(ctx, conn, topic, 1, cfg); err != nil {
		t.Fatal(err)
	}
	produced := 0
	for round := 0; round < 20; round++ {
		var recs []dump.Record
		for k := 0; k < 10; k++ {
			recs = append(recs, dump.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", k)), Value: []byte(fmt.Sprint(round))})
		}
		if err := dump.Produce(ctx, conn, recs); err != nil {
			t.Fatal(err)
		}
		produced += len(recs)
		time.Sleep(150 * time.Millisecond)
	}
	// Wait for the cleaner, dumping into a fresh folder each time.
	for attempt := 0; ; attempt++ {
		dir := t.TempDir()
		if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
		e, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		c, recs := asInt(r.Summary.Get("compacted_offsets")), asInt(r.Summary.Get("records"))
		if c > 0 {
			if asInt(r.Summary.Get("missing_offsets")) != 0 || r.Status != StatusOK || c+recs != int64(produced) {
				t.Fatalf("compacted topic: %v records + %d compacted != %d produced, or not ok: %s %s", recs, c, produced, r.Status, r.Message)
			}
			t.Logf("%d compacted offsets explained, %d records kept, 0 missing: %s", c, recs, r.Message)
			return
		}
		if attempt > 40 {
			t.Fatalf("the cleaner never compacted the topic: %s", r.Message)
		}
		time.Sleep(time.Second)
	}
}
