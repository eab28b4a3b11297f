package dump

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestFollowCompactsAsItGoes: a --follow dump with Compact merges its own
// small files between rounds (it holds the partitions' locks, so a
// separate catalog compact would skip them): every offset stays stored
// once, readers of the manifests meanwhile read whole files, and the
// replaced files are kept as retired for the grace period.
func TestFollowCompactsAsItGoes(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Summary, 1)
	const fileRows = 50
	go func() {
		s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, Follow: true,
			Interval: 200 * time.Millisecond, FileRows: fileRows,
			Compact: &FollowCompact{Target: 1 << 30, MinAge: 0, Grace: time.Hour, Every: 0}})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("follow ended with %v, want context.Canceled", err)
		}
		done <- s
	}()
	const total, chunk = 3000, 500
	for i := 0; i < total; i++ {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprint(i))})
		if (i+1)%chunk != 0 {
			continue
		}
		// Read while the follow writes and compacts: every manifest read
		// lists files that are there, whole (coverage fails otherwise).
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if n, _ := coverage(t, dir, topic); n == int64(i+1) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the follow never stored the first %d records", i+1)
			}
		}
	}
	// One more round's pass merges the last round's files too.
	time.Sleep(time.Second)
	cancel()
	s := <-done
	if s.Records != total {
		t.Fatalf("follow dumped %d records, want %d", s.Records, total)
	}
	if stored, lost := coverage(t, dir, topic); stored != total || lost != 0 {
		t.Fatalf("stored %d lost %d", stored, lost)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		written := total / 2 / fileRows // at least this many files were written, one or more per round
		if len(m.Files) > 2 || len(m.Retired) < written-2 {
			t.Errorf("partition %d: %d files listed, %d retired; want the %d+ small files merged into at most 2", m.Partition, len(m.Files), len(m.Retired), written)
		}
		t.Logf("partition %d: %d files listed, %d retired", m.Partition, len(m.Files), len(m.Retired))
		onDisk, _ := filepath.Glob(filepath.Join(d.PartitionDir(m.TP()), "*.parquet"))
		if len(onDisk) != len(m.Files)+len(m.Retired) {
			t.Errorf("partition %d: %d parquet files on disk, the manifest lists %d and %d retired", m.Partition, len(onDisk), len(m.Files), len(m.Retired))
		}
	}
}
