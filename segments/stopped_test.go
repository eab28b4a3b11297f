package segments_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/segments"
)

// stopBroker stops the broker through TOPICSNAP_TEST_KAFKA_SCRIPT (which
// broker: the script's TOPICSNAP_KAFKA_DIR) and, in a cleanup, starts it
// again with its data and waits until it answers. It runs only with
// TOPICSNAP_TEST_RESTART=1: scripts/test.sh sets it in the phase that runs
// alone after the rest, as for dump's TestBrokerRestartMidDump.
func stopBroker(t *testing.T, brokers []string) {
	t.Helper()
	script := os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT")
	if out, err := exec.Command(script, "stop").CombinedOutput(); err != nil {
		t.Fatalf("stop the broker: %v\n%s", err, out)
	}
	if out, err := exec.Command(script, "status").CombinedOutput(); err == nil {
		t.Fatalf("the broker still runs after stop: %s", out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script, "start", "--keep-data").CombinedOutput(); err != nil {
			t.Errorf("start the broker again: %v\n%s", err, out)
			return
		}
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
		if err != nil {
			t.Error(err)
			return
		}
		defer cl.Close()
		deadline := time.Now().Add(90 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := kadm.NewClient(cl).ListTopics(ctx)
			cancel()
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("the broker does not answer 90s after its start: %v", err)
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	})
}

// TestImportStoppedBroker: the broker stopped, its log directory imported
// (filtered to the test's topics): every codec, committed and aborted
// transactions, headers, nulls, and a compacted topic with tombstones,
// equal record for record to what dump read from the running broker.
func TestImportStoppedBroker(t *testing.T) {
	brokers, data := brokerEnv(t)
	if os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT") == "" || os.Getenv("TOPICSNAP_TEST_RESTART") == "" {
		t.Skip("stops the shared broker: make test runs it alone (TOPICSNAP_TEST_RESTART=1)")
	}
	stamp := time.Now().UnixNano()
	topic := fmt.Sprintf("ts-import-stopped-%d", stamp)
	compacted := fmt.Sprintf("ts-import-stopped-compact-%d", stamp)
	createTopic(t, brokers, topic, int32(len(codecs)), nil)
	cfg := func(s string) *string { return &s }
	createTopic(t, brokers, compacted, 2, map[string]*string{"cleanup.policy": cfg("compact")})
	produceAll(t, brokers, topic)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(compacted), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 200 {
		r := &kgo.Record{Partition: int32(i % 2), Key: []byte(fmt.Sprintf("key-%d", i%17)), Value: []byte(fmt.Sprintf("value %d", i))}
		if i%11 == 0 {
			r.Value = nil // a tombstone
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	dumpDir, impDir := t.TempDir(), t.TempDir()
	dumpTopic(t, brokers, topic, dumpDir)
	dumpTopic(t, brokers, compacted, dumpDir)
	stopBroker(t, brokers)

	var warns []string
	sum, err := segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: []string{data}, Topics: []string{topic, compacted},
		Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	if len(warns) > 0 {
		t.Errorf("warnings on a stopped broker's log directory: %q", warns)
	}
	parts := map[string]int{topic: len(codecs), compacted: 2}
	total := 0
	for name, n := range parts {
		for p := range n {
			tp := catalog.TopicPartition{Topic: name, Partition: int32(p)}
			dm, drows := readRows(t, dumpDir, tp)
			im, irows := readRows(t, impDir, tp)
			if len(drows) == 0 || len(irows) != len(drows) {
				t.Fatalf("%s: dump %d rows, import %d", tp, len(drows), len(irows))
			}
			for i := range drows {
				if a, b := rowText(drows[i]), rowText(irows[i]); a != b {
					t.Fatalf("%s row %d:\ndump   %s\nimport %s", tp, i, a, b)
				}
			}
			if im.NextOffset != dm.NextOffset || len(im.Lost) != 0 || len(im.Snapshots) != 1 || im.Snapshots[0].Imported != "segments" {
				t.Errorf("%s: import next %d (dump %d), lost %v, snapshots %+v", tp, im.NextOffset, dm.NextOffset, im.Lost, im.Snapshots)
			}
			if want := filepath.Join(data, fmt.Sprintf("%s-%d", name, p), "00000000000000000000.log"); im.Files[0].Source != want {
				t.Errorf("%s: source %q, want %q", tp, im.Files[0].Source, want)
			}
			total += len(irows)
		}
	}
	if sum.Partitions != len(codecs)+2 || sum.Records != int64(total) {
		t.Errorf("summary %v: want %d partitions, %d records", sum, len(codecs)+2, total)
	}
}
