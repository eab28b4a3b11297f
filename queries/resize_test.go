package queries

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/queries/spark"
)

// produceKeyed writes each key once per round with the Java client's
// default partitioner (franz-go's default: murmur2, as Kafka's) and returns
// the partition the broker acknowledged for each record, by key.
func produceKeyed(ctx context.Context, t *testing.T, bs []string, topic string, keys, rounds int) map[string][]int32 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.DefaultProduceTopic(topic), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out := map[string][]int32{}
	for round := 0; round < rounds; round++ {
		for k := 0; k < keys; k++ {
			r := &kgo.Record{Key: []byte(fmt.Sprintf("turbine-%03d", k)), Value: []byte(fmt.Sprintf(`{"round":%d}`, round))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
			out[string(r.Key)] = append(out[string(r.Key)], r.Partition)
		}
	}
	return out
}

// TestKeysAcrossAPartitionCountChange: on the real broker, a keyed topic
// of 3 partitions gets 3 more, and the same keys are written again. Every
// record is judged by the count in force when it was written: keys reports
// the change (from the cuts when a cut saw 3, inferred from the placement
// when none did), the records placed before it, and the keys split at the
// seam, all as the broker's acknowledgements say; order says those keys'
// order is broken by the change, not by the producer.
func TestKeysAcrossAPartitionCountChange(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("resized-%d", time.Now().UnixNano())
	if err := dump.CreateTopic(ctx, conn, topic, 3, keepForever); err != nil {
		t.Fatal(err)
	}
	const keys = 60
	before := produceKeyed(ctx, t, bs, topic, keys, 3)
	withCuts, oneCut := t.TempDir(), t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: withCuts, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kadm.NewClient(cl).CreatePartitions(ctx, 3, topic); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	time.Sleep(50 * time.Millisecond) // the new records' timestamps come after every old one
	after := produceKeyed(ctx, t, bs, topic, keys, 2)
	for _, dir := range []string{withCuts, oneCut} {
		if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
	}
	// What the acknowledgements say.
	var split, moved int64
	for k, ps := range before {
		if ps[0] != after[k][0] {
			split++
			moved += int64(len(ps))
		}
	}
	if split == 0 {
		t.Fatal("no key moved: the fixture proves nothing")
	}
	for _, c := range []struct{ dir, source string }{{withCuts, "snapshots"}, {oneCut, "inferred"}} {
		e, err := Open(ctx, c.dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.RunCheck(ctx, "keys", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(r.Status, r.Summary.Get("partitioner"), r.Summary.Get("partition_count_from"), r.Summary.Get("partition_count_to"),
			r.Summary.Get("partition_count_source"), r.Summary.Get("split_at_seam"), r.Summary.Get("old_placement_records"), r.Summary.Get("misplaced_records"))
		want := fmt.Sprint(StatusWarn, "murmur2", 3, 6, c.source, split, moved, 0)
		if got != want {
			t.Errorf("%s: keys says %s, want %s: %s", c.source, got, want, r.Message)
		}
		seams := 0
		for _, row := range r.Rows {
			if row.Get("kind") == "seam" {
				seams++
			}
		}
		if seams == 0 || !strings.Contains(r.Message, "changed from 3 to 6") {
			t.Errorf("%s: %d seam rows; %s", c.source, seams, r.Message)
		}
		o, err := e.RunCheck(ctx, "order", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		if asInt(o.Summary.Get("keys_split_by_partition_change")) != split || asInt(o.Summary.Get("out_of_order_records")) != 0 ||
			!strings.Contains(o.Message, "not the producer's doing") {
			t.Errorf("%s: order: %s %v", c.source, o.Message, o.Summary.Vals)
		}
		t.Logf("%s: %s", c.source, r.Message)
		if remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE"); remote != "" {
			// The same change, its seam and the keys split at it, on Spark.
			s, err := spark.Connect(ctx, remote)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := Open(ctx, c.dir, Options{Remote: s})
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []*Report{r, o} {
				got, err := sp.RunCheck(ctx, want.Check, CheckOptions{Topic: topic})
				if err != nil {
					t.Fatalf("%s on spark: %v", want.Check, err)
				}
				if d := sameJSON(t, want, got); d != "" {
					t.Errorf("%s: %s: DuckDB and Spark differ: %s", c.source, want.Check, d)
				}
			}
			sp.Close()
			s.Close()
		}
		e.Close()
	}
}

// TestOnePartitionIsNotAResize: a producer that writes every key to
// partition 0 of a 6-partition topic (a manual partitioner) is not a count
// changed from 1 to 6: nothing was ever placed by the new count.
func TestOnePartitionIsNotAResize(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	base := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	for i := 0; i < 200; i++ {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: base.Add(time.Duration(i) * time.Second).UnixMilli(),
			Key: []byte(fmt.Sprintf("k%d", i%40)), Value: []byte("{}")})
	}
	writePartition(t, d, "manual", 0, "s1", 200, rows)
	for p := int32(1); p < 6; p++ {
		writePartition(t, d, "manual", p, "s1", 0, nil)
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "manual", AsOf: base.Add(time.Hour), PartitionCount: 6}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "keys", CheckOptions{Topic: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Get("partition_count_from") != nil || strings.Contains(r.Message, "changed") || r.Summary.Get("partitioner") != "custom" {
		t.Fatalf("%s: %s %v", r.Status, r.Message, r.Summary.Vals)
	}
}
