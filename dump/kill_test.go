package dump

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestHelperDumper is not a test: it is the dumper process that
// TestKillNineResumesExactly starts and kills.
func TestHelperDumper(t *testing.T) {
	if os.Getenv("TOPICSNAP_HELPER_DUMP") == "" {
		t.Skip("helper process for TestKillNineResumesExactly")
	}
	_, err := Run(context.Background(), Options{
		Conn: Conn{Brokers: strings.Split(os.Getenv("TOPICSNAP_HELPER_BROKERS"), ",")},
		Dir:  os.Getenv("TOPICSNAP_HELPER_DIR"), Topics: []string{os.Getenv("TOPICSNAP_HELPER_TOPIC")},
		Partitions: os.Getenv("TOPICSNAP_HELPER_PARTITIONS"),
		FileRows:   97, // many small files: many commit points to be killed between
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}

func TestKillNineResumesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a dumper 20 times")
	}
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	const total = 150_000
	var recs []*kgo.Record
	for i := 0; i < total; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 150)))})
	}
	produce(t, p, recs...)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	// The topic keeps being written while the dumper is killed.
	stop := make(chan struct{})
	extra := make(chan int, 1)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				extra <- n
				return
			default:
			}
			var batch []*kgo.Record
			for i := 0; i < 300; i++ {
				batch = append(batch, &kgo.Record{Topic: topic, Partition: int32(i % 3), Value: []byte(fmt.Sprintf(`{"late":%d}`, n+i))})
			}
			if err := p.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
				t.Errorf("produce while dumping: %v", err)
			}
			n += len(batch)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDumper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOPICSNAP_HELPER_DUMP=1", "TOPICSNAP_HELPER_BROKERS="+strings.Join(brokers, ","),
			"TOPICSNAP_HELPER_DIR="+dir, "TOPICSNAP_HELPER_TOPIC="+topic)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	for i := 0; i < 20; i++ {
		cmd := start()
		time.Sleep(time.Duration(30+rng.IntN(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			kills++
		}
	}
	close(stop)
	written := total + <-extra
	// A last run to completion.
	cmd := start()
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(err.Error(), "already started") {
		t.Fatalf("final run: %v %s", err, out)
	}
	cmd.Wait()
	// Offset by offset: every one stored once, none lost, none recorded lost.
	got, lost := coverage(t, dir, topic)
	if got != int64(written) || lost != 0 {
		t.Fatalf("stored %d records (%d recorded lost), want %d", got, lost, written)
	}
	// No temp file survives a finished run, and the catalog verifies.
	d, _ := catalog.Open(dir)
	if _, probs, err := d.Verify(); err != nil || len(probs) > 0 {
		t.Fatalf("verify: %v %v", probs, err)
	}
	if kills < 15 {
		t.Fatalf("only %d of 20 runs were killed mid-dump; the test proves little", kills)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "topic="+topic, "partition=*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Fatalf("temp files left after a finished run: %v", leftovers)
	}
	t.Logf("survived %d kill -9s while %d records were written to the topic; %d records, 0 lost, 0 duplicated", kills, written-total, got)
}

// TestTwoDumpersOneFolder: two dumper processes on the same partitions, one
// refuses with a clear message; two on disjoint partitions both succeed
// into one folder.
func TestTwoDumpersOneFolder(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 4, nil)
	p := producer(t, brokers)
	var recs []*kgo.Record
	for i := 0; i < 40_000; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 4), Value: []byte(fmt.Sprint(i))})
	}
	produce(t, p, recs...)
	dir := t.TempDir()
	start := func(parts string) (*exec.Cmd, *strings.Builder) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDumper$", "-test.count=1")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Env = append(os.Environ(), "TOPICSNAP_HELPER_DUMP=1", "TOPICSNAP_HELPER_BROKERS="+strings.Join(brokers, ","),
			"TOPICSNAP_HELPER_DIR="+dir, "TOPICSNAP_HELPER_TOPIC="+topic, "TOPICSNAP_HELPER_PARTITIONS="+parts)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &out
	}
	// Same partitions: hold the lock of partition 0 here, as a running dumper would.
	d, _ := catalog.Create(dir)
	l, err := d.LockPartition(catalog.TopicPartition{Topic: topic, Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	c, out := start("0-1")
	if err := c.Wait(); err == nil || !strings.Contains(out.String(), "another topicsnap dump is writing") {
		t.Fatalf("a second dumper on a locked partition: %v %s", err, out)
	}
	l.Unlock()
	a, aout := start("0-1")
	b, bout := start("2-3")
	if err := a.Wait(); err != nil {
		t.Fatalf("dumper 0-1: %v %s", err, aout)
	}
	if err := b.Wait(); err != nil {
		t.Fatalf("dumper 2-3: %v %s", err, bout)
	}
	stored, lost := coverage(t, dir, topic)
	if stored != 40_000 || lost != 0 {
		t.Fatalf("two dumpers stored %d, lost %d", stored, lost)
	}
}
