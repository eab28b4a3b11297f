package queries

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestGroupWithoutCommittedOffsetIsSaid: a group whose only committed
// offset is -1 (Kafka's "no committed offset"; kafka-consumer-groups lists
// it with "-") is a known group to lag and reset, which say it has no
// committed offset there and never compute a lag or a replay from -1.
func TestGroupWithoutCommittedOffsetIsSaid(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := fmt.Sprintf("nooffset_%d", time.Now().UnixNano())
	conn := kafkaconn.Conn{Brokers: bs}
	if err := dump.CreateTopic(ctx, conn, topic, 2, nil); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := range 6 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	group := topic + "-neg"
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: -1, LeaderEpoch: -1})
	if err := kadm.NewClient(cl).CommitAllOffsets(ctx, group, offs); err != nil {
		t.Fatalf("commit: %v", err)
	}
	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: topic, Group: group})
	var u *UnknownGroupError
	if errors.As(err, &u) {
		t.Fatalf("lag --group %s: %v (the group is known to Kafka, with no committed offset)", group, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "no committed offset") || !strings.Contains(r.Message, group) {
		t.Errorf("lag: %s %q, want a warning that %s has no committed offset", r.Status, r.Message, group)
	}
	offsets := 0
	for _, row := range r.Rows {
		if row.Get("kind") != "offset" {
			continue
		}
		offsets++
		for _, c := range []string{"committed_offset", "lag_records", "lag_seconds", "skipped_records"} {
			if v := row.Get(c); v != nil {
				t.Errorf("lag row partition %v: %s = %v, want NULL (no committed offset)", row.Get("partition"), c, v)
			}
		}
	}
	if offsets != 1 {
		t.Errorf("lag: %d offset rows, want 1 (partition 0)", offsets)
	}
	for _, c := range []string{"max_lag_records", "max_lag_seconds"} {
		if v := r.Summary.Get(c); v != nil {
			t.Errorf("lag: %s = %v, want NULL (no lag is known)", c, v)
		}
	}
	if n := r.Summary.Get("no_committed_offset_partitions"); asInt(n) != 1 {
		t.Errorf("lag: no_committed_offset_partitions = %v, want 1", n)
	}

	rr, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: topic, Group: group, ToTime: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Status != StatusWarn || !strings.Contains(rr.Message, "no committed offset") {
		t.Errorf("reset: %s %q, want a warning that partition 0 has no committed offset", rr.Status, rr.Message)
	}
	for _, row := range rr.Rows {
		if row.Get("kind") == "partition" && (row.Get("committed_offset") != nil || row.Get("offsets") != nil) {
			t.Errorf("reset row partition %v: committed_offset %v, offsets %v, want NULL (no committed offset)", row.Get("partition"), row.Get("committed_offset"), row.Get("offsets"))
		}
	}
	if rr.Summary.Get("as_of") == nil {
		t.Errorf("reset: as_of NULL, want the cut's time")
	}
	if n := asInt(rr.Summary.Get("records_to_reread")); n != 0 {
		t.Errorf("reset: records_to_reread = %d, want 0 (nothing known to replay)", n)
	}
}
