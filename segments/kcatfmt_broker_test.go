package segments_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/segments"
)

// TestImportKcatFormatBroker: the real kcat reads a topic with -f FORMAT
// (three formats: every token with lengths, the binary length, a key
// ended by the line's end), its output is imported and compared with a
// dump: keys, values (holding the formats' delimiters, nulls, empties),
// headers and timestamps where the format has them, null where it has
// not; the aborted transaction and the markers are offsets not in the
// file.
func TestImportKcatFormatBroker(t *testing.T) {
	kcat := os.Getenv("TOPICSNAP_KCAT")
	if kcat == "" || os.Getenv("TOPICSNAP_TEST_BROKERS") == "" {
		t.Skip("needs kcat and the real broker: TOPICSNAP_KCAT, TOPICSNAP_TEST_BROKERS")
	}
	brokers := dumptest.Brokers(t)
	topic := fmt.Sprintf("ts-import-kcatf-%d", time.Now().UnixNano())
	createTopic(t, brokers, topic, 2, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for i := range 40 {
		r := &kgo.Record{Partition: int32(i % 2), Key: []byte(fmt.Sprintf("k %d", i)), Value: []byte(fmt.Sprintf("v%d | 3 |x\n0 9 %d", i, i))}
		switch i % 6 {
		case 1:
			r.Key = nil
		case 2:
			r.Value = nil
		case 3:
			r.Value, r.Key = []byte{}, []byte{}
		case 4:
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: nil}, {Key: "trace", Value: []byte{}}}
		}
		recs = append(recs, r)
	}
	if err := cl.ProduceSync(t.Context(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	tx, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.TransactionalID(topic+"-tx"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(t.Context(), &kgo.Record{Partition: 0, Value: []byte("aborted")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := tx.EndTransaction(t.Context(), kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	tx.Close()
	cl, _ = kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := cl.ProduceSync(t.Context(), &kgo.Record{Partition: 0, Key: []byte("last"), Value: []byte("after the abort")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	cl.Close()
	dumptest.WaitStable(t, brokers, topic)
	dumpDir := t.TempDir()
	dumpTopic(t, brokers, topic, dumpDir)

	for _, format := range []string{
		`%t %p %o %T %K %k %S %s %h\n`,
		`%p:%o:%R%s|%K:%k\n`,
		`%o %p %S %s %k\n`,
	} {
		t.Run(format, func(t *testing.T) {
			kf, err := segments.ParseKcatFormat(format)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(t.Context(), kcat, "-C", "-e", "-q", "-b", strings.Join(brokers, ","), "-t", topic, "-f", format).Output()
			if err != nil {
				t.Fatalf("kcat: %v", err)
			}
			file := filepath.Join(t.TempDir(), "kcat.txt")
			os.WriteFile(file, out, 0o644)
			dir := t.TempDir()
			var warns []string
			sum, err := segments.ImportKcat(t.Context(), segments.KcatOptions{Dir: dir, File: file, Format: format, Topic: topic, Warn: func(s string) { warns = append(warns, s) }})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(sum)
			if sum.Unmatched != 0 || len(warns) != 0 {
				t.Fatalf("%d lines did not match: %q", sum.Unmatched, warns)
			}
			has := func(tok string) bool { return strings.Contains(format, tok) }
			for p := range int32(2) {
				tp := catalog.TopicPartition{Topic: topic, Partition: p}
				_, drows := readRows(t, dumpDir, tp)
				km, krows := readRows(t, dir, tp)
				var want, got, gaps, lost []string
				for _, r := range drows {
					if r.Control || str(r.TxnState) == catalog.TxnAborted {
						gaps = append(gaps, strconv.FormatInt(r.Offset, 10))
						continue
					}
					key, value, headers, ts := r.Key, r.Value, r.Headers, r.Timestamp
					switch {
					case !has("%k"):
						key = nil
					case !has("%K") && len(key) == 0:
						key = nil // kcat prints null and empty alike
					}
					if !has("%h") {
						headers = nil
					}
					if !has("%T") {
						ts = -1
					}
					want = append(want, fmt.Sprintf("o%d ts%d key %s value %s headers %v", r.Offset, ts, bs(key), bs(value), headers))
				}
				for _, r := range krows {
					got = append(got, fmt.Sprintf("o%d ts%d key %s value %s headers %v", r.Offset, r.Timestamp, bs(r.Key), bs(r.Value), r.Headers))
				}
				for _, l := range km.Lost {
					for o := l.From; o <= l.To; o++ {
						lost = append(lost, strconv.FormatInt(o, 10))
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("partition %d: kcat -f import\n%s\ndump\n%s", p, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if p == 0 && (len(gaps) != 2 || !slices.Equal(lost, gaps)) {
					t.Fatalf("partition 0: not-in-file %v, want the aborted record and its marker %v", lost, gaps)
				}
				if s := km.Snapshots[0]; s.Imported != "kcat" || s.Note != kf.Lacks() {
					t.Errorf("snapshot %+v", s)
				}
			}
		})
	}
}
