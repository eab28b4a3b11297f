package segments_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
// transactions, headers, nulls, a compacted topic with tombstones, and a
// topic whose log start DeleteRecords raised inside its segment (the
// records below it still on disk: the stop flushes the broker's
// log-start-offset-checkpoint, which the import reads), equal record for
// record and lost range for lost range to what dump read from the running
// broker.
func TestImportStoppedBroker(t *testing.T) {
	brokers, data := brokerEnv(t)
	if os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT") == "" || os.Getenv("TOPICSNAP_TEST_RESTART") == "" {
		t.Skip("stops the shared broker: make test runs it alone (TOPICSNAP_TEST_RESTART=1)")
	}
	stamp := time.Now().UnixNano()
	topic := fmt.Sprintf("ts-import-stopped-%d", stamp)
	compacted := fmt.Sprintf("ts-import-stopped-compact-%d", stamp)
	deleted := fmt.Sprintf("ts-import-stopped-deleted-%d", stamp)
	createTopic(t, brokers, topic, int32(len(codecs)), nil)
	cfg := func(s string) *string { return &s }
	createTopic(t, brokers, compacted, 2, map[string]*string{"cleanup.policy": cfg("compact")})
	createTopic(t, brokers, deleted, 1, nil)
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
	// A topic whose log start DeleteRecords raises to 37, inside its one
	// segment: records 0-36 stay on disk, the broker no longer serves them.
	recs = recs[:0]
	for i := range 60 {
		recs = append(recs, &kgo.Record{Topic: deleted, Value: []byte(fmt.Sprintf("d%d", i))})
	}
	if err := cl.ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	at := kadm.Offsets{}
	at.Add(kadm.Offset{Topic: deleted, Partition: 0, At: 37, LeaderEpoch: -1})
	dr, err := kadm.NewClient(cl).DeleteRecords(t.Context(), at)
	if err != nil {
		t.Fatal(err)
	}
	if err := dr.Error(); err != nil {
		t.Fatal(err)
	}
	cl.Close()

	dumpDir, impDir := t.TempDir(), t.TempDir()
	dumpTopic(t, brokers, topic, dumpDir)
	dumpTopic(t, brokers, compacted, dumpDir)
	dumpTopic(t, brokers, deleted, dumpDir)
	if n := countRecords(filepath.Join(data, deleted+"-0")); n != 60 {
		t.Fatalf("%d records of %s on disk before the stop, want all 60 (DeleteRecords deletes no segment here)", n, deleted)
	}
	stopBroker(t, brokers)

	var warns []string
	sum, err := segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: []string{data}, Topics: []string{topic, compacted, deleted},
		Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	if len(warns) > 0 {
		t.Errorf("warnings on a stopped broker's log directory: %q", warns)
	}
	parts := map[string]int{topic: len(codecs), compacted: 2, deleted: 1}
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
			if im.NextOffset != dm.NextOffset || len(im.Snapshots) != 1 || im.Snapshots[0].Imported != "segments" || im.Snapshots[0].LogStart != dm.Snapshots[0].LogStart {
				t.Errorf("%s: import next %d (dump %d), snapshots %+v (dump %+v)", tp, im.NextOffset, dm.NextOffset, im.Snapshots, dm.Snapshots)
			}
			// The same lost ranges as the dump: none, or for the
			// DeleteRecords the offsets below the log start, which the
			// import says it read in the broker's checkpoint.
			var lost, dlost []string
			for _, l := range im.Lost {
				lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
				if !strings.Contains(l.Reason, "log-start-offset-checkpoint") {
					t.Errorf("%s: lost range %d-%d, reason %q", tp, l.From, l.To, l.Reason)
				}
			}
			for _, l := range dm.Lost {
				dlost = append(dlost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
			}
			if want := map[bool]string{true: "expired-before-first-snapshot 0-36", false: ""}[name == deleted]; strings.Join(lost, ", ") != want || !slices.Equal(lost, dlost) {
				t.Errorf("%s: lost %q, dump %q, want %q", tp, lost, dlost, want)
			}
			if want := filepath.Join(data, fmt.Sprintf("%s-%d", name, p), "00000000000000000000.log"); im.Files[0].Source != want {
				t.Errorf("%s: source %q, want %q", tp, im.Files[0].Source, want)
			}
			total += len(irows)
		}
	}
	if sum.Partitions != len(codecs)+3 || sum.Records != int64(total) {
		t.Errorf("summary %v: want %d partitions, %d records", sum, len(codecs)+3, total)
	}
}
