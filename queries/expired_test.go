package queries

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestGapsAgreesWithDeletedRecords: records deleted before the first
// snapshot are reported and leave the verdict ok; records deleted between
// snapshots (lost on our watch) make it fail, with exact counts.
func TestGapsAgreesWithDeletedRecords(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("expired-%d", time.Now().UnixNano())
	if err := dump.CreateTopic(ctx, conn, topic, 2, keepForever); err != nil {
		t.Fatal(err)
	}
	produceN := func(n int) {
		var recs []dump.Record
		for i := 0; i < n; i++ {
			recs = append(recs, dump.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))})
		}
		if err := dump.Produce(ctx, conn, recs); err != nil {
			t.Fatal(err)
		}
	}
	cl, _ := kgo.NewClient(kgo.SeedBrokers(bs...))
	defer cl.Close()
	adm := kadm.NewClient(cl)
	deleteBefore := func(p int32, off int64) {
		o := kadm.Offsets{}
		o.Add(kadm.Offset{Topic: topic, Partition: p, At: off})
		if r, err := adm.DeleteRecords(ctx, o); err != nil || r.Error() != nil {
			t.Fatalf("delete records: %v %v", err, r.Error())
		}
	}
	dir := t.TempDir()
	snap := func() *Report {
		if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
		e, err := Open(ctx, dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	produceN(20)       // 10 per partition
	deleteBefore(0, 4) // 0..3 gone before the first snapshot
	r := snap()
	if r.Status != StatusOK || asInt(r.Summary.Get("expired_offsets")) != 4 || asInt(r.Summary.Get("records")) != 16 {
		t.Fatalf("first snapshot: %s %s %v", r.Status, r.Message, r.Summary.Vals)
	}
	produceN(20)        // 10..19 on each partition
	deleteBefore(1, 15) // partition 1: 10..14 gone between snapshots
	r = snap()
	if r.Status != StatusFail || asInt(r.Summary.Get("expired_offsets")) != 9 || asInt(r.Summary.Get("missing_offsets")) != 0 {
		t.Fatalf("second snapshot: %s %s %v", r.Status, r.Message, r.Summary.Vals)
	}
	t.Logf("%s: %s", r.Status, r.Message)
}
