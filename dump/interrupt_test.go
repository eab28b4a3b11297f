package dump

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestInterruptedAtTheCutsEnd cancels a one-shot dump (Ctrl-C) while its
// reader hands the writers the batches that reach the cut's end: the k-th
// partition's last batch, k = 1 .. 3. Whatever partition the interruption
// lands on, the dump is interrupted (context.Canceled, exit 130), never a
// success: no cluster snapshot (cut) is written, as on any interrupted
// snapshot, so none lists a partition whose dump did not reach the cut;
// no manifest records this snapshot as complete unless its partition
// reached the cut; and the next dump completes the snapshot exactly.
//
// Finding G5: the reader dropped the last batch on ctx.Done, still counted
// its partition as finished, and ended its loop with nil once the last
// partition was so "finished"; the writers, interrupted, committed what
// they had without recording the snapshot; and the cut was written with
// every partition dumped: exit 0, the normal summary, each partition a
// batch short of the cut.
func TestInterruptedAtTheCutsEnd(t *testing.T) {
	for k := 1; k <= 3; k++ {
		t.Run(fmt.Sprintf("last-batch-%d-of-3", k), func(t *testing.T) {
			brokers := testCluster(t)
			topic := newTopic(t, brokers, 3, nil)
			p := producer(t, brokers)
			const perPartition = 3000
			var recs []*kgo.Record
			for part := int32(0); part < 3; part++ {
				for i := 0; i < perPartition; i++ {
					recs = append(recs, &kgo.Record{Topic: topic, Partition: part, Value: fmt.Appendf(nil, `{"i":%d}`, i)})
				}
			}
			produce(t, p, recs...)
			dir := t.TempDir()

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			lasts := 0
			beforeHandOff = func(_ catalog.TopicPartition, last bool) {
				if last {
					if lasts++; lasts == k {
						cancel() // as Ctrl-C does, through signal.NotifyContext
					}
				}
			}
			defer func() { beforeHandOff = func(catalog.TopicPartition, bool) {} }()
			s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, FileRows: 500})
			beforeHandOff = func(catalog.TopicPartition, bool) {}
			if lasts < k {
				t.Fatalf("only %d partitions reached the cut's end; the test meant to interrupt at the %d-th", lasts, k)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("interrupted at the %d-th partition's last batch: Run returned %v (summary %q), want context.Canceled", k, err, s.String())
			}

			d, err := catalog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			cuts, err := d.ClusterSnapshotsOf(t.Context(), []string{topic})
			if err != nil {
				t.Fatal(err)
			}
			if len(cuts) != 0 {
				t.Errorf("the interrupted dump wrote %d cluster snapshots (dumped partitions %v), want none", len(cuts), cuts[0].Dumped)
			}
			ms, err := d.Manifests(t.Context(), topic)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				for _, ps := range m.Snapshots {
					if ps.Complete && m.NextOffset < ps.Until {
						t.Errorf("partition %d: snapshot %s recorded complete at next offset %d, below its end %d", m.Partition, ps.ID, m.NextOffset, ps.Until)
					}
				}
			}
			if stored, lost := coverage(t, dir, topic); lost != 0 || stored > 3*perPartition {
				t.Fatalf("after the interruption: %d stored, %d lost", stored, lost)
			}

			// Run again: the dump resumes and completes, every offset once.
			dumpOnce(t, brokers, dir, topic, func(o *Options) { o.FileRows = 500 })
			if stored, lost := coverage(t, dir, topic); stored != 3*perPartition || lost != 0 {
				t.Fatalf("after the rerun: %d stored, %d lost, want %d, 0", stored, lost, 3*perPartition)
			}
			cuts, err = d.ClusterSnapshotsOf(t.Context(), []string{topic})
			if err != nil {
				t.Fatal(err)
			}
			if len(cuts) != 1 || fmt.Sprint(cuts[0].Dumped) != "[0 1 2]" {
				t.Fatalf("after the rerun: %d cluster snapshots, want 1 listing [0 1 2]", len(cuts))
			}
			ms, err = d.Manifests(t.Context(), topic)
			if err != nil {
				t.Fatal(err)
			}
			// A partition the interrupted run wrote to its end is idle in
			// the rerun: the cut lists it, its manifest is not written again.
			for _, m := range ms {
				if m.NextOffset != perPartition {
					t.Errorf("after the rerun: partition %d next offset %d, want %d", m.Partition, m.NextOffset, perPartition)
				}
			}
		})
	}
}
