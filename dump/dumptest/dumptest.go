// Package dumptest gives tests the Kafka cluster they run against, the way
// net/http/httptest gives them a server: the real broker `make test` starts
// (TOPICSNAP_TEST_BROKERS), or else an in-process kfake cluster. The same
// tests run unchanged on both, as franz-go's own suite does.
package dumptest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Brokers returns the seed brokers of the cluster under test.
func Brokers(t testing.TB) []string {
	t.Helper()
	if b := os.Getenv("TOPICSNAP_TEST_BROKERS"); b != "" {
		return strings.Split(b, ",")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(-1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// Real reports whether the tests run against a real broker.
func Real() bool { return os.Getenv("TOPICSNAP_TEST_BROKERS") != "" }

// WaitStable waits until every partition's last stable offset is its high
// watermark: the coordinator writes a transaction's markers after
// EndTransaction returns, and a dump before them sees it open.
func WaitStable(t testing.TB, brokers []string, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for {
		ends, err1 := adm.ListEndOffsets(ctx, topic)
		stable, err2 := adm.ListCommittedOffsets(ctx, topic)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		same := true
		ends.Each(func(o kadm.ListedOffset) {
			if s, _ := stable.Lookup(topic, o.Partition); s.Offset != o.Offset {
				same = false
			}
		})
		if same {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: last stable offsets never reached the high watermarks", topic)
		case <-time.After(20 * time.Millisecond): // polling the broker, not synchronizing goroutines
		}
	}
}

// NewTopic creates a topic named after the test, with partitions and
// configs, and returns its name.
func NewTopic(t testing.TB, brokers []string, partitions int32, configs map[string]*string) string {
	t.Helper()
	name := fmt.Sprintf("t-%s-%d", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), time.Now().UnixNano()%1e9)
	if len(name) > 200 {
		name = name[:200]
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := adm.CreateTopic(ctx, partitions, 1, configs, name)
	if err != nil || r.Err != nil {
		t.Fatalf("create topic %s: %v %v", name, err, r.Err)
	}
	// CreateTopic returns once the controller committed the topic; the
	// broker's metadata can lag it, and a dump or produce right after then
	// meets UNKNOWN_TOPIC_OR_PARTITION: wait until every partition has a
	// leader.
	for {
		td, err := adm.ListTopics(ctx, name)
		if err == nil {
			if d, ok := td[name]; ok && d.Err == nil && len(d.Partitions) == int(partitions) && func() bool {
				for _, p := range d.Partitions {
					if p.Err != nil || p.Leader < 0 {
						return false
					}
				}
				return true
			}() {
				return name
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("topic %s created but not served within 30s: %v", name, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// RemakeTopic deletes topic and makes it again under its name with
// partitions (Kafka gives it another topic id), retrying the creation until
// the deletion has finished.
func RemakeTopic(t testing.TB, brokers []string, topic string, partitions int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := adm.DeleteTopics(ctx, topic); err != nil {
		t.Fatal(err)
	}
	for { // the deletion takes a moment to finish
		if _, err := adm.CreateTopic(ctx, partitions, 1, nil, topic); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("could not make topic %s again", topic)
		case <-time.After(200 * time.Millisecond): // polling the broker
		}
	}
}

// Producer is a client producing to the partition each record names; it
// closes when the test ends.
func Producer(t testing.TB, brokers []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Produce produces recs and waits for their acknowledgements.
func Produce(t testing.TB, cl *kgo.Client, recs ...*kgo.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
}

// ReadAllRows reads every row of topic in the snapshot folder dir, per
// partition in file order.
func ReadAllRows(t testing.TB, dir string, topic string) map[int32][]catalog.Row {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32][]catalog.Row{}
	for _, m := range ms {
		for _, f := range m.Files {
			rows, err := catalog.ReadDataFile(d.FilePath(m.TP(), f.Name))
			if err != nil {
				t.Fatal(err)
			}
			out[m.Partition] = append(out[m.Partition], rows...)
		}
	}
	return out
}

// ProduceTimestamps produces one record batch to topic's partition with a
// record of each timestamp (ms) in ts, key "ts<ms>", value "v", written as
// a Produce request of its own: franz-go's producer counts a record's time
// in int64 nanoseconds, so it cannot write a timestamp before 1677 or after
// 2262, which Kafka takes (with message.timestamp.after.max.ms set so).
func ProduceTimestamps(t testing.TB, brokers []string, topic string, partition int32, ts []int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var recs []byte
	maxTS := ts[0]
	for i, v := range ts {
		maxTS = max(maxTS, v)
		key := fmt.Appendf(nil, "ts%d", v)
		body := []byte{0} // attributes
		body = binary.AppendVarint(body, v-ts[0])
		body = binary.AppendVarint(body, int64(i))
		body = binary.AppendVarint(body, int64(len(key)))
		body = append(body, key...)
		body = binary.AppendVarint(body, 1)
		body = append(body, 'v')
		body = binary.AppendVarint(body, 0) // no headers
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	rb := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: int32(len(ts) - 1), FirstTimestamp: ts[0], MaxTimestamp: maxTS,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(len(ts)), Records: recs}
	rb.Length = int32(49 + len(recs)) // the batch after its length field
	batch := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(batch[17:21], crc32.Checksum(batch[21:], crc32.MakeTable(crc32.Castagnoli)))
	for {
		req := kmsg.NewPtrProduceRequest()
		req.Acks, req.TimeoutMillis = -1, 10000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic, rt.TopicID = topic, td[topic].ID
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = partition, batch
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
		err = kerr.ErrorForCode(resp.Topics[0].Partitions[0].ErrorCode)
		if err == nil {
			return
		}
		if !kerr.IsRetriable(err) || ctx.Err() != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond): // the broker's metadata catching up
		}
	}
}
