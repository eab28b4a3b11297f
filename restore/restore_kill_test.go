package restore

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestHelperRestorer is not a test: it is the restore process that
// TestRestoreKillNineExactlyOnce starts and kills.
func TestHelperRestorer(t *testing.T) {
	if os.Getenv("TOPICSNAP_HELPER_RESTORE") == "" {
		t.Skip("helper process for TestRestoreKillNineExactlyOnce")
	}
	txnRecords, _ := strconv.Atoi(os.Getenv("TOPICSNAP_HELPER_TXN_RECORDS"))
	_, err := Run(context.Background(), Options{
		Conn: kafkaconn.Conn{Brokers: strings.Split(os.Getenv("TOPICSNAP_HELPER_BROKERS"), ",")},
		Dir:  os.Getenv("TOPICSNAP_HELPER_DIR"), Topic: os.Getenv("TOPICSNAP_HELPER_TOPIC"),
		ToTopic: os.Getenv("TOPICSNAP_HELPER_TO_TOPIC"), TxnRecords: txnRecords,
		Progress: commitLines{},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}

// commitLines tells the killing test of every partition's committed
// transaction with a line on stdout.
type commitLines struct{}

func (commitLines) Start(catalog.TopicPartition, int64, int64)   {}
func (commitLines) Advance(catalog.TopicPartition, int64, int64) { fmt.Println("committed") }
func (commitLines) Done(catalog.TopicPartition)                  {}
func (commitLines) Waiting(string)                               {}
func (commitLines) Warn(string)                                  {}

// TestRestoreKillNineExactlyOnce kills a restore with SIGKILL at ten
// random instants, runs it once more to the end, dumps the target and
// finds every committed record of the snapshot there exactly once, in
// order, byte for byte. `make test` restores 100k records; `make faults`
// 500k (TOPICSNAP_TEST_RESTORE_KILL_RECORDS=500000).
func TestRestoreKillNineExactlyOnce(t *testing.T) {
	if testing.Short() || !dumptest.Real() {
		t.Skip("kills a restore ten times; needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	total := 100_000
	if n, err := strconv.Atoi(os.Getenv("TOPICSNAP_TEST_RESTORE_KILL_RECORDS")); err == nil && n > 0 {
		total = n
	}
	keep := "-1"
	topic := dumptest.NewTopic(t, brokers, 3, map[string]*string{"retention.ms": &keep})
	p := dumptest.Producer(t, brokers)
	for from := 0; from < total; from += 50_000 {
		var recs []*kgo.Record
		for i := from; i < min(total, from+50_000); i++ {
			r := &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)),
				Value: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 150))), Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i))}
			switch i % 1000 {
			case 0:
				r.Key = nil
			case 1:
				r.Value = []byte{}
			case 2:
				r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("a")}, {Key: "h", Value: nil}}
			}
			recs = append(recs, r)
		}
		dumptest.Produce(t, p, recs...)
		// A committed and an aborted transaction in every 50k.
		txnProduce(t, brokers, true, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("committed")}, &kgo.Record{Topic: topic, Partition: 2, Value: []byte("committed")})
		txnProduce(t, brokers, false, &kgo.Record{Topic: topic, Partition: 1, Value: []byte("aborted")})
	}
	dumptest.WaitStable(t, brokers, topic)
	dir := t.TempDir()
	// Files of total/300 rows: a transaction commits only once the files
	// it holds records of are read to their ends (restore's fileGate), so
	// small files keep the commit points many.
	dumpOnce(t, brokers, dir, topic, func(o *dump.Options) { o.FileRows = max(total/300, 100) })
	want := committedRecords(t, dir, topic)
	target := topic + "-restored"

	// Transactions of total/100 records: many commit points to be killed
	// between and in.
	start := func() (*exec.Cmd, *bufio.Scanner) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRestorer$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOPICSNAP_HELPER_RESTORE=1", "TOPICSNAP_HELPER_BROKERS="+strings.Join(brokers, ","),
			"TOPICSNAP_HELPER_DIR="+dir, "TOPICSNAP_HELPER_TOPIC="+topic, "TOPICSNAP_HELPER_TO_TOPIC="+target,
			fmt.Sprintf("TOPICSNAP_HELPER_TXN_RECORDS=%d", total/100))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, bufio.NewScanner(out)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kills := 0
	for i := 0; i < 10; i++ {
		cmd, lines := start()
		// After a random number of committed transactions (each line is
		// one partition's share of one; with transactions of total/100
		// records per producer, a run of the whole snapshot prints about
		// 170 lines: its 3 partitions are shared 2 and 1 between the two
		// producers, so ~67 transactions of 2 lines and ~33 of 1), then up
		// to 15 ms more (a transaction takes ~10 ms here): between a commit
		// and the next transaction, in one, or in its commit. Ten runs
		// killed after at most 8 lines each leave the last run work to do.
		for n := 1 + rng.IntN(8); n > 0 && lines.Scan(); n-- {
		}
		time.Sleep(time.Duration(rng.IntN(15_000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for lines.Scan() {
		}
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			kills++
		}
	}
	cmd, lines := start()
	for lines.Scan() {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("final run: %v", err)
	}
	out := dumpTarget(t, brokers, target)
	n := compareRestored(t, want, committedRecords(t, out, target))
	// What the kills left: records of transactions the next run's producer
	// fenced and the broker aborted.
	aborted := len(abortedRecords(t, out, target))
	if kills < 10 {
		t.Fatalf("only %d of 10 runs were killed mid-restore; the test proves little", kills)
	}
	if aborted == 0 && total >= 100_000 {
		t.Errorf("no kill left an open transaction behind; the test proves less than it says")
	}
	t.Logf("survived %d kill -9s; %d records restored exactly once (%d records of transactions the kills left open were aborted by the next run's fence)", kills, n, aborted)
}
