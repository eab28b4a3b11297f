package queries

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestKeysAgainstLibrdkafkaAndJava: kcat (librdkafka, crc32 "consistent"
// partitioner) and franz-go (the Java client's murmur2) write the same keys
// to a real broker; the keys check tells them apart exactly and
// kafka_partition_crc32 agrees with where librdkafka put every record.
func TestKeysAgainstLibrdkafkaAndJava(t *testing.T) {
	kcat := os.Getenv("TOPICSNAP_KCAT")
	if kcat == "" || os.Getenv("TOPICSNAP_TEST_BROKERS") == "" {
		t.Skip("needs kcat and the real broker: make test provides both (TOPICSNAP_KCAT, TOPICSNAP_TEST_BROKERS)")
	}
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := fmt.Sprintf("keys-%d", time.Now().UnixNano())
	const n = 6
	if err := dump.CreateTopic(ctx, kafkaconn.Conn{Brokers: bs}, topic, n, nil); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&lines, "k%d:v%d\n", i, i)
	}
	cmd := exec.CommandContext(ctx, kcat, "-P", "-b", bs[0], "-t", topic, "-K:", "-X", "partitioner=consistent")
	cmd.Stdin = strings.NewReader(lines.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kcat: %v %s", err, out)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < 100; i++ {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte("java")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var misplaced, split int64
	for i := 0; i < 200; i++ {
		k := []byte(fmt.Sprintf("k%d", i))
		if catalog.CRC32Partition(k, n) != catalog.JavaPartition(k, n) {
			misplaced++
			if i < 100 {
				split++
			}
		}
	}
	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "keys", CheckOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("misplaced=%d explained=%d unexplained=0 split=%d partitioner=mixed", misplaced, misplaced, split)
	got := fmt.Sprintf("misplaced=%v explained=%v unexplained=%v split=%v partitioner=%v", r.Summary.Get("misplaced_records"),
		r.Summary.Get("explained_by_crc32"), r.Summary.Get("unexplained_records"), r.Summary.Get("split_keys"), r.Summary.Get("partitioner"))
	if got != want || misplaced == 0 {
		t.Fatalf("keys: got %s, want %s (%s)", got, want, r.Message)
	}
	// Two producers with two partitioners on one topic is the fault.
	if r.Status != StatusFail || !strings.Contains(r.Message, "two partitioners") {
		t.Errorf("keys on a topic written by kcat and franz-go: %s: %s", r.Status, r.Message)
	}
	var wrong int
	q := fmt.Sprintf(`SELECT count(*) FROM %s WHERE value_raw <> 'java'::BLOB AND "partition" <> kafka_partition_crc32(key_raw, %d)`, quoteIdent(topic), n)
	if err := e.DB().QueryRowContext(ctx, q).Scan(&wrong); err != nil || wrong != 0 {
		t.Fatalf("kafka_partition_crc32 disagrees with librdkafka on %d records: %v", wrong, err)
	}
}
