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
		FileRows: 97, // many small files: many commit points to be killed between
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
	// A last run to completion.
	cmd := start()
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(err.Error(), "already started") {
		t.Fatalf("final run: %v %s", err, out)
	}
	cmd.Wait()
	rows := readAllRows(t, dir, topic)
	got := 0
	for p := int32(0); p < 3; p++ {
		seen := map[int64]bool{}
		for _, r := range rows[p] {
			if seen[r.Offset] {
				t.Fatalf("partition %d offset %d stored twice", p, r.Offset)
			}
			seen[r.Offset] = true
		}
		want := total / 3
		for o := int64(0); o < int64(want); o++ {
			if !seen[o] {
				t.Fatalf("partition %d offset %d lost", p, o)
			}
		}
		got += len(rows[p])
	}
	if got != total {
		t.Fatalf("stored %d records, want %d", got, total)
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
	t.Logf("survived %d kill -9s; %d records, 0 lost, 0 duplicated", kills, got)
}
