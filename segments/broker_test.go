package segments_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/segments"
)

// The tests here read the segment files the real Kafka 4.4 broker of
// `make test` writes (TOPICSNAP_TEST_KAFKA_DATA_DIR, its log directory) while
// it runs: each test produces to topics of its own and reads only their
// partition folders.

func brokerEnv(t *testing.T) ([]string, string) {
	t.Helper()
	data := os.Getenv("TOPICSNAP_TEST_KAFKA_DATA_DIR")
	if os.Getenv("TOPICSNAP_TEST_BROKERS") == "" || data == "" {
		t.Skip("needs the real broker: TOPICSNAP_TEST_BROKERS and TOPICSNAP_TEST_KAFKA_DATA_DIR")
	}
	return dumptest.Brokers(t), data
}

var codecs = []struct {
	name  string
	codec kgo.CompressionCodec
}{
	{"none", kgo.NoCompression()}, {"gzip", kgo.GzipCompression()}, {"snappy", kgo.SnappyCompression()},
	{"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()},
}

// produceAll writes, to partition p of topic with codec p: plain records
// (null keys, null and empty values, headers with a null value and
// duplicates), a committed and an aborted transaction.
func produceAll(t *testing.T, brokers []string, topic string) {
	ctx := t.Context()
	for p, c := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ProducerBatchCompression(c.codec),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic))
		if err != nil {
			t.Fatal(err)
		}
		var recs []*kgo.Record
		for i := range 50 {
			r := &kgo.Record{Partition: int32(p), Key: []byte(fmt.Sprintf("k%d", i)), Value: bytes.Repeat([]byte(fmt.Sprintf("v%d-", i)), 20)}
			switch i % 5 {
			case 1:
				r.Key = nil
			case 2:
				r.Value = nil
			case 3:
				r.Value = []byte{}
			case 4:
				r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("1")}, {Key: "h", Value: nil}, {Key: "trace", Value: []byte{}}}
			}
			recs = append(recs, r)
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		cl.Close()
		for n, commit := range []bool{true, false, true} {
			tx, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ProducerBatchCompression(c.codec),
				kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.DefaultProduceTopic(topic),
				kgo.TransactionalID(fmt.Sprintf("%s-%d-%d", topic, p, n)))
			if err != nil {
				t.Fatal(err)
			}
			if err := tx.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			for i := range 7 {
				r := &kgo.Record{Partition: int32(p), Key: []byte(fmt.Sprintf("t%d-%d", n, i)), Value: []byte(fmt.Sprintf("txn %d record %d", n, i)),
					Headers: []kgo.RecordHeader{{Key: "txn", Value: []byte(strconv.Itoa(n))}}}
				if err := tx.ProduceSync(ctx, r).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
				t.Fatal(err)
			}
			tx.Close()
		}
	}
	dumptest.WaitStable(t, brokers, topic)
}

func createTopic(t *testing.T, brokers []string, topic string, parts int32, configs map[string]*string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(t.Context(), parts, 1, configs, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, _ := kgo.NewClient(kgo.SeedBrokers(brokers...))
		defer c.Close()
		kadm.NewClient(c).DeleteTopics(context.Background(), topic)
	})
}

func readRows(t *testing.T, dir string, tp catalog.TopicPartition) (*catalog.Manifest, []catalog.Row) {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for _, f := range m.Files {
		if err := catalog.ScanDataFile(t.Context(), d.FilePath(tp, f.Name), 1024, func(rs []catalog.Row) error {
			rows = append(rows, rs...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return m, rows
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func bs(b []byte) string {
	if b == nil {
		return "<null>"
	}
	return strconv.Quote(string(b))
}

// rowText is every column a dump and an import share, as text.
func rowText(r catalog.Row) string {
	var hs []string
	for _, h := range r.Headers {
		hs = append(hs, h.Key+"="+bs(h.Value))
	}
	return fmt.Sprintf("p%d o%d ts%d %s key %s value %s headers [%s] le%d pid%d pe%d txn %v ctl %v %s %s",
		r.Partition, r.Offset, r.Timestamp, r.TimestampType, bs(r.Key), bs(r.Value), strings.Join(hs, " "),
		r.LeaderEpoch, r.ProducerID, r.ProducerEpoch, r.Transactional, r.Control, str(r.ControlType), str(r.TxnState))
}

func dumpTopic(t *testing.T, brokers []string, topic, dir string) {
	t.Helper()
	if _, err := dump.Run(t.Context(), dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
}

// TestImportBrokerSegments: the broker's own segment files, every codec,
// committed and aborted transactions, headers and nulls, imported and
// compared record for record with a dump of the same topic from the
// running broker; then with Kafka's DumpLogSegments on the same files;
// then imported again (nothing changes).
func TestImportBrokerSegments(t *testing.T) {
	brokers, data := brokerEnv(t)
	topic := fmt.Sprintf("ts-import-%d", time.Now().UnixNano())
	createTopic(t, brokers, topic, int32(len(codecs)), nil)
	produceAll(t, brokers, topic)
	dumpDir, impDir := t.TempDir(), t.TempDir()
	dumpTopic(t, brokers, topic, dumpDir)
	var paths []string
	for p := range codecs {
		paths = append(paths, filepath.Join(data, fmt.Sprintf("%s-%d", topic, p)))
	}
	sum, err := segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: paths, Warn: func(s string) { t.Log("warning:", s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	rowsBy := map[string][]catalog.Row{}
	for p, c := range codecs {
		tp := catalog.TopicPartition{Topic: topic, Partition: int32(p)}
		dm, drows := readRows(t, dumpDir, tp)
		im, irows := readRows(t, impDir, tp)
		if len(drows) != 50+3*8 || len(irows) != len(drows) {
			t.Fatalf("%s: dump %d rows, import %d (want %d)", c.name, len(drows), len(irows), 50+3*8)
		}
		for i := range drows {
			if a, b := rowText(drows[i]), rowText(irows[i]); a != b {
				t.Fatalf("%s row %d:\ndump   %s\nimport %s", c.name, i, a, b)
			}
		}
		if im.NextOffset != dm.NextOffset || len(im.Lost) != 0 || im.Files[0].Source != filepath.Join(paths[p], "00000000000000000000.log") {
			t.Errorf("%s: import next %d (dump %d), lost %v, source %q", c.name, im.NextOffset, dm.NextOffset, im.Lost, im.Files[0].Source)
		}
		aborted := 0
		for _, r := range irows {
			if str(r.TxnState) == catalog.TxnAborted {
				aborted++
			}
		}
		if aborted != 8 {
			t.Errorf("%s: %d aborted rows (want 7 records and their marker)", c.name, aborted)
		}
		rowsBy[paths[p]] = irows
	}
	compareDumpLog(t, paths, rowsBy)
	// Again: nothing changes.
	before, _ := os.ReadFile(filepath.Join(impDir, catalog.RelPartitionDir(catalog.TopicPartition{Topic: topic, Partition: 0}), "manifest.json"))
	sum, err = segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(impDir, catalog.RelPartitionDir(catalog.TopicPartition{Topic: topic, Partition: 0}), "manifest.json"))
	if sum.Records != 0 || sum.Partitions != 0 || !bytes.Equal(before, after) {
		t.Fatalf("second import: %v", sum)
	}

	t.Run("kcat", func(t *testing.T) { kcatCompare(t, brokers, topic, dumpDir) })
}

var (
	dumpLogRecord = regexp.MustCompile(`^\| offset: (\d+) (CreateTime|LogAppendTime): (-?\d+) keySize: (-?\d+) valueSize: (-?\d+) sequence: -?\d+ headerKeys: \[([^\]]*)\](?: endTxnMarker: (\w+))?(?: coordinatorEpoch: \d+)?(?: key: (.*?))?(?: payload: (.*))?$`)
	dumpLogBatch  = regexp.MustCompile(`^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) .*producerId: (-?\d+) producerEpoch: (-?\d+) partitionLeaderEpoch: (-?\d+) isTransactional: (\w+) isControl: (\w+).* compresscodec: (\w+) crc: \d+ isvalid: (\w+)`)
)

// compareDumpLog runs Kafka's DumpLogSegments (kafka-dump-log.sh
// --print-data-log --deep-iteration) once on the segment files of the
// folders (partition p's codec is codecs[p]) and checks every record it
// prints against the import's row.
func compareDumpLog(t *testing.T, folders []string, rowsBy map[string][]catalog.Row) {
	script := os.Getenv("TOPICSNAP_TEST_KAFKA_SCRIPT")
	if script == "" {
		t.Fatal("TOPICSNAP_TEST_KAFKA_SCRIPT is not set: DumpLogSegments runs from the broker's classpath")
	}
	var logs []string
	for _, f := range folders {
		l, _ := filepath.Glob(filepath.Join(f, "*.log"))
		logs = append(logs, l...)
	}
	args := []string{"run", "org.apache.kafka.tools.DumpLogSegments", "--print-data-log", "--deep-iteration", "--files", strings.Join(logs, ",")}
	out, err := exec.CommandContext(t.Context(), script, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("DumpLogSegments: %v\n%s", err, out)
	}
	codecOf := map[string]string{}
	for p, f := range folders {
		codecOf[f] = codecs[p].name // DumpLogSegments names them as we do
	}
	var (
		batch    []string
		folder   string
		byOffset map[int64]catalog.Row
	)
	printed := map[string]int{}
	withCodec := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "Dumping "); ok {
			folder = filepath.Dir(f)
			byOffset = map[int64]catalog.Row{}
			for _, r := range rowsBy[folder] {
				byOffset[r.Offset] = r
			}
			continue
		}
		if m := dumpLogBatch.FindStringSubmatch(line); m != nil {
			batch = m
			if m[10] != "true" {
				t.Errorf("%s: DumpLogSegments says a batch is not valid: %s", folder, line)
			}
			switch want := codecOf[folder]; m[9] {
			case want:
				withCodec[folder]++
			case "none": // kgo leaves a batch uncompressed when that is smaller; markers never are
			default:
				t.Errorf("%s: a batch compressed with %s, want %s", folder, m[9], want)
			}
			continue
		}
		m := dumpLogRecord.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		printed[folder]++
		off, _ := strconv.ParseInt(m[1], 10, 64)
		r, ok := byOffset[off]
		if !ok {
			t.Fatalf("%s: DumpLogSegments prints offset %d, the import has no row there", folder, off)
		}
		ts, _ := strconv.ParseInt(m[3], 10, 64)
		pid, _ := strconv.ParseInt(batch[4], 10, 64)
		le, _ := strconv.ParseInt(batch[6], 10, 64)
		var keys []string
		for _, h := range r.Headers {
			keys = append(keys, h.Key)
		}
		keySize, valueSize := int64(len(r.Key)), int64(len(r.Value))
		if r.Key == nil {
			keySize = -1
		}
		if r.Value == nil {
			valueSize = -1
		}
		ctl := ""
		if r.ControlType != nil {
			ctl = strings.ToUpper(*r.ControlType) // DumpLogSegments: ABORT, COMMIT
		}
		got := fmt.Sprintf("ts %d keySize %d valueSize %d headers %s pid %d le %d txn %v ctl %v %s",
			r.Timestamp, keySize, valueSize, strings.Join(keys, ","), r.ProducerID, r.LeaderEpoch, r.Transactional, r.Control, ctl)
		want := fmt.Sprintf("ts %d keySize %s valueSize %s headers %s pid %d le %d txn %s ctl %s %s",
			ts, m[4], m[5], m[6], pid, le, batch[7], batch[8], m[7])
		if got != want {
			t.Fatalf("%s offset %d:\nimport          %s\nDumpLogSegments %s\n%s", folder, off, got, want, line)
		}
		if !r.Control && r.Key != nil && m[8] != string(r.Key) {
			t.Fatalf("%s offset %d: key %q, DumpLogSegments %q", folder, off, r.Key, m[8])
		}
		if !r.Control && r.Value != nil && m[9] != string(r.Value) {
			t.Fatalf("%s offset %d: value %q, DumpLogSegments %q", folder, off, r.Value, m[9])
		}
	}
	for _, f := range folders {
		if printed[f] != len(rowsBy[f]) || withCodec[f] == 0 {
			t.Fatalf("%s: DumpLogSegments printed %d records (the import has %d rows), %d batches with the codec\n%s", f, printed[f], len(rowsBy[f]), withCodec[f], out)
		}
	}
}

// kcatCompare reads the topic with the real kcat (-C -J, read_committed
// as librdkafka's default), imports the file and checks it against the
// dump: the committed data records equal, and every offset it passes over
// (markers, aborted records) a lost range not-in-file.
func kcatCompare(t *testing.T, brokers []string, topic, dumpDir string) {
	kcat := os.Getenv("TOPICSNAP_KCAT")
	if kcat == "" {
		t.Skip("needs kcat: TOPICSNAP_KCAT")
	}
	out, err := exec.CommandContext(t.Context(), kcat, "-C", "-J", "-e", "-q", "-b", strings.Join(brokers, ","), "-t", topic).Output()
	if err != nil {
		t.Fatalf("kcat: %v", err)
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	os.WriteFile(file, out, 0o644)
	kDir := t.TempDir()
	sum, err := segments.ImportKcat(t.Context(), segments.KcatOptions{Dir: kDir, File: file, Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	for p := range codecs {
		tp := catalog.TopicPartition{Topic: topic, Partition: int32(p)}
		_, drows := readRows(t, dumpDir, tp)
		km, krows := readRows(t, kDir, tp)
		var want, gaps []string
		for _, r := range drows {
			if r.Control || str(r.TxnState) == catalog.TxnAborted {
				gaps = append(gaps, strconv.FormatInt(r.Offset, 10))
				continue
			}
			want = append(want, fmt.Sprintf("o%d ts%d key %s value %s headers %v", r.Offset, r.Timestamp, bs(r.Key), bs(r.Value), r.Headers))
		}
		var got, lost []string
		for _, r := range krows {
			got = append(got, fmt.Sprintf("o%d ts%d key %s value %s headers %v", r.Offset, r.Timestamp, bs(r.Key), bs(r.Value), r.Headers))
		}
		for _, l := range km.Lost {
			if l.Kind != catalog.LostNotInFile {
				t.Errorf("lost range of kind %s", l.Kind)
			}
			for o := l.From; o <= l.To; o++ {
				lost = append(lost, strconv.FormatInt(o, 10))
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("partition %d: kcat import\n%s\ndump\n%s", p, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// Markers past kcat's last record (the last transaction's, and any
		// the broker wrote after it, as timing has it) are no lost range:
		// a kcat file says nothing past its last line.
		last := int64(-1)
		for _, r := range krows {
			last = max(last, r.Offset)
		}
		var wantLost []string
		for _, g := range gaps {
			if o, _ := strconv.ParseInt(g, 10, 64); o < last {
				wantLost = append(wantLost, g)
			}
		}
		if len(wantLost) == len(gaps) {
			t.Fatalf("partition %d: no marker past kcat's last record %d (markers and aborted records %v)", p, last, gaps)
		}
		if !slices.Equal(lost, wantLost) {
			t.Fatalf("partition %d: not-in-file %v, want the markers and aborted records before kcat's last record %v", p, lost, wantLost)
		}
		if s := km.Snapshots[0]; s.Imported != "kcat" || !strings.Contains(s.Note, "no transaction markers") {
			t.Errorf("snapshot %+v", s)
		}
	}
}
