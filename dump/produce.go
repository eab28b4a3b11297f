package dump

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Record is a record to produce, for the demo and the tests' fixtures.
type Record struct {
	Topic     string
	Partition int32 // produced to exactly this partition
	Key       []byte
	Value     []byte
	Timestamp time.Time
	Headers   []kgo.RecordHeader
}

// CreateTopic creates topic with partitions and configs; it is not an
// error if it exists.
func CreateTopic(ctx context.Context, c kafkaconn.Conn, topic string, partitions int32, configs map[string]*string) error {
	cl, adm, err := kafkaconn.Connect(ctx, c)
	if err != nil {
		return err
	}
	defer cl.Close()
	r, err := adm.CreateTopic(ctx, partitions, 1, configs, topic)
	if err == nil {
		err = r.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("create topic %s: %w", topic, kafkaconn.Classify(err))
	}
	return nil
}

// Produce writes recs in order, each to its own partition, and waits until
// all are acknowledged.
func Produce(ctx context.Context, c kafkaconn.Conn, recs []Record) error {
	cl, err := kafkaconn.NewClient(ctx, c, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(5*time.Millisecond),
		kgo.MaxBufferedRecords(1<<16))
	if err != nil {
		return err
	}
	defer cl.Close()
	var first error
	done := make(chan struct{}, 1)
	results := make(chan error, 1024)
	go func() {
		for range recs {
			if err := <-results; err != nil && first == nil {
				first = err
			}
		}
		done <- struct{}{}
	}()
	for i := range recs {
		r := &recs[i]
		cl.Produce(ctx, &kgo.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp, Headers: r.Headers},
			func(_ *kgo.Record, err error) { results <- err })
	}
	<-done
	if first != nil {
		return fmt.Errorf("produce: %w", kafkaconn.Classify(first))
	}
	return nil
}

// CommitGroupOffsets commits offsets for a consumer group that has no live
// members (as `kafka-consumer-groups --reset-offsets` does). The demo uses
// it to leave a group behind; dump itself never commits.
func CommitGroupOffsets(ctx context.Context, c kafkaconn.Conn, group, topic string, offsets map[int32]int64) error {
	cl, adm, err := kafkaconn.Connect(ctx, c)
	if err != nil {
		return err
	}
	defer cl.Close()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.Add(kadm.Offset{Topic: topic, Partition: p, At: o, LeaderEpoch: -1})
	}
	if err := adm.CommitAllOffsets(ctx, group, os); err != nil {
		return fmt.Errorf("commit offsets of group %s: %w", group, kafkaconn.Classify(err))
	}
	return nil
}
