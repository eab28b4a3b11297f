package dump

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	_ "github.com/topicsnap/topicsnap/catalog/bucket" // s3:// for the kill tests on a bucket
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestHelperDumper is not a test: it is the dumper process that
// TestKillNineResumesExactly starts and kills.
func TestHelperDumper(t *testing.T) {
	if os.Getenv("TOPICSNAP_HELPER_DUMP") == "" {
		t.Skip("helper process for TestKillNineResumesExactly")
	}
	if d, err := time.ParseDuration(os.Getenv("TOPICSNAP_HELPER_RENAME_PAUSE")); err == nil {
		afterRename = func() { time.Sleep(d) }
	}
	if os.Getenv("TOPICSNAP_HELPER_SIGNAL_RENAME") != "" {
		// An aimed run: say "renamed" once a file has its final name and
		// wait there, so that the test's kill lands in that window for sure.
		afterRename = func() {
			fmt.Fprintln(os.Stdout, "renamed")
			time.Sleep(time.Minute)
		}
	}
	fileRows, _ := strconv.Atoi(os.Getenv("TOPICSNAP_HELPER_FILE_ROWS"))
	_, err := Run(context.Background(), Options{
		Progress: &readingSignal{},
		Conn:     kafkaconn.Conn{Brokers: strings.Split(os.Getenv("TOPICSNAP_HELPER_BROKERS"), ",")},
		Dir:      os.Getenv("TOPICSNAP_HELPER_DIR"), Topics: []string{os.Getenv("TOPICSNAP_HELPER_TOPIC")},
		S3:         catalog.S3Config{Endpoint: os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")},
		Partitions: os.Getenv("TOPICSNAP_HELPER_PARTITIONS"),
		FileRows:   max(fileRows, 97), // many small files: many commit points to be killed between
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}

// readingSignal tells the killing test, on stdout, when the helper starts
// reading: its kill instants are drawn from then on, not from the process
// start, whose cost (exec, connect, the cut, the locks) varies with the
// machine's load far more than the windows the kills aim at.
type readingSignal struct{ once sync.Once }

func (r *readingSignal) Start(catalog.TopicPartition, int64, int64) {
	r.once.Do(func() { fmt.Fprintln(os.Stdout, "reading") })
}
func (*readingSignal) Advance(catalog.TopicPartition, int64, int64) {}
func (*readingSignal) Done(catalog.TopicPartition)                  {}
func (*readingSignal) Waiting(string)                               {}
func (*readingSignal) Warn(string)                                  {}

func TestKillNineResumesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a dumper 20 times")
	}
	killNine(t, t.TempDir())
}

// TestKillNineResumesExactlyOnBucket is the kill test with --dir
// s3://bucket/prefix on the real S3 server make test starts: twenty kill
// -9s at random instants (mid-upload, between an upload and the
// conditional PUT of its manifest, holding the lock object), then a run
// to completion; every offset is stored exactly once, and what the kills
// left (unlisted objects, incomplete multipart uploads) is never read.
func TestKillNineResumesExactlyOnBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a dumper 20 times")
	}
	loc := testBucket(t)
	killNine(t, loc)
}

// testBucket returns a fresh s3:// prefix in the bucket of the real S3
// server make test starts (scripts/s3.sh), with its credentials in the
// environment the AWS SDK (and the helper processes) read. Without
// TOPICSNAP_TEST_S3_ENDPOINT the test skips.
func testBucket(t *testing.T) string {
	t.Helper()
	if os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT") == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	return fmt.Sprintf("s3://%s/%s-%d", os.Getenv("TOPICSNAP_TEST_S3_BUCKET"), strings.ToLower(t.Name()), time.Now().UnixNano())
}

// openAt opens a folder or a bucket prefix for the test's own reads.
func openAt(t *testing.T, dir string) (*catalog.Dir, error) {
	return catalog.OpenAt(t.Context(), dir, catalog.S3Config{Endpoint: os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT"), Log: func(s string) { t.Log(s) }})
}

// killNine kills a dumper into dir (a folder or s3://...) twenty times
// while the topic is written to, then runs it to completion, and checks
// every offset is stored exactly once.
func killNine(t *testing.T, dir string) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	p := producer(t, brokers)
	// make test dumps 150k records; make faults 2M
	// (TOPICSNAP_TEST_KILL_RECORDS=2000000).
	total := 150_000
	if n, err := strconv.Atoi(os.Getenv("TOPICSNAP_TEST_KILL_RECORDS")); err == nil && n > 0 {
		total = n
	}
	fileRows := max(97, total/1500)
	// A kill lands wait + up to spread ms after the helper says it is
	// reading (not after its start, whose cost varies with the load). A
	// dumper into a bucket commits slower (an upload and a conditional PUT
	// per file): it gets a longer window and fewer, larger files, so that
	// each run commits some.
	wait, spread := 0, 300+total/2000
	if catalog.IsURL(dir) {
		fileRows = max(97, total/300)
		wait, spread = 0, 700+total/2000
	}
	for from := 0; from < total; from += 100_000 {
		var recs []*kgo.Record
		for i := from; i < min(total, from+100_000); i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", 150)))})
		}
		produce(t, p, recs...)
	}
	tmp := t.TempDir() // the helpers' TMPDIR: where a bucket's files are written before their upload
	rng := rand.New(rand.NewPCG(1, 2))
	kills := 0
	var tempLeft, renamedUnlisted int // what the kills left behind for the next run
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
	helper := func(extraEnv ...string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDumper$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOPICSNAP_HELPER_DUMP=1", "TOPICSNAP_HELPER_BROKERS="+strings.Join(brokers, ","),
			"TOPICSNAP_HELPER_DIR="+dir, "TOPICSNAP_HELPER_TOPIC="+topic,
			fmt.Sprintf("TOPICSNAP_HELPER_FILE_ROWS=%d", fileRows), "TOPICSNAP_HELPER_RENAME_PAUSE=10ms", "TMPDIR="+tmp)
		cmd.Env = append(cmd.Env, extraEnv...)
		return cmd
	}
	// start runs a helper and returns once it printed the line want
	// ("reading" or, for an aimed run, "renamed"), or has ended, or
	// patience passed (an aimed run's first upload can take long on a
	// loaded machine, and a kill before it proves nothing).
	aimedMissed := 0
	start := func(want string, extraEnv ...string) *exec.Cmd {
		patience := 30 * time.Second
		if want == "renamed" {
			patience = 3 * time.Minute
		}
		cmd := helper(extraEnv...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		reading := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(out)
			signalled := false
			for sc.Scan() {
				if !signalled && sc.Text() == want {
					signalled = true
					close(reading)
				}
			}
			if !signalled {
				close(reading)
			}
		}()
		select {
		case <-reading:
		case <-time.After(patience):
			if want == "renamed" {
				aimedMissed++
			}
		}
		return cmd
	}
	// Twenty kills, in up to sixty runs: a run that finished before its
	// kill landed (the dumper caught up with the topic sooner than the
	// random instant) is not counted, and the instants after it are drawn
	// from a shorter window, so that a fast machine still kills mid-dump.
	runs := 0
	for attempt := 0; kills < 20 && attempt < 60; attempt++ {
		runs++
		var cmd *exec.Cmd
		aimed := attempt%7 == 3
		if aimed {
			// About one kill in seven is aimed at the window between a
			// file's rename (its upload) and its manifest's write, the
			// one a random instant hits least often.
			cmd = start("renamed", "TOPICSNAP_HELPER_SIGNAL_RENAME=1")
		} else {
			cmd = start("reading")
			time.Sleep(time.Duration(wait+rng.IntN(spread)) * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			kills++
			temps, unlisted := killedState(t, dir, tmp, topic)
			tempLeft += temps
			renamedUnlisted += unlisted
		} else if !aimed {
			spread = max(50, spread*2/3)
		}
	}
	close(stop)
	written := total + <-extra
	// A last run to completion.
	cmd := helper()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("final run: %v %s", err, out)
	}
	// Offset by offset: every one stored once, none lost, none recorded lost.
	local := dir
	if catalog.IsURL(dir) {
		// A bucket is read through a copy of what its manifests list.
		src, err := openAt(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		local = t.TempDir()
		dst, err := catalog.Create(local)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := catalog.Copy(t.Context(), src, dst); err != nil {
			t.Fatal(err)
		}
	}
	got, lost := coverage(t, local, topic)
	if got != int64(written) || lost != 0 {
		t.Fatalf("stored %d records (%d recorded lost), want %d", got, lost, written)
	}
	// No temp file survives a finished run, and the catalog verifies.
	d, err := openAt(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, probs, err := d.Verify(t.Context()); err != nil || len(probs) > 0 {
		t.Fatalf("verify: %v %v", probs, err)
	}
	if kills < 20 {
		t.Fatalf("only %d of 60 runs were killed mid-dump (20 wanted); the test proves little", kills)
	}
	ms, err := d.Manifests(t.Context(), topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		left, err := d.Unlisted(t.Context(), m)
		if err != nil || len(left) > 0 {
			t.Fatalf("left after a finished run in %s: %v %v", m.TP(), left, err)
		}
	}
	if renamedUnlisted < 3 {
		t.Errorf("%d kills left a renamed file its manifest did not list, want at least the 3 aimed ones (%d aimed runs said nothing in 3 minutes); the test proves less than it says", renamedUnlisted, aimedMissed)
	}
	t.Logf("survived %d kill -9s in %d runs (%d left temp files, %d left a renamed file its manifest did not list yet) while %d records were written to the topic; %d records, 0 lost, 0 duplicated",
		kills, runs, tempLeft, renamedUnlisted, written-total, got)
}

// killedState counts what a killed dumper left: temp files, and data files
// already renamed to their final name (uploaded, in a bucket) but not
// listed in their manifest, and incomplete multipart uploads.
func killedState(t *testing.T, dir, tmp, topic string) (temp, unlisted int) {
	t.Helper()
	d, err := openAt(t, dir)
	if err != nil {
		return 0, 0 // killed before the folder was made
	}
	if catalog.IsURL(dir) {
		temps, _ := filepath.Glob(filepath.Join(tmp, ".tmp-*"))
		ms, _ := d.Manifests(t.Context(), topic)
		for _, m := range ms {
			left, _ := d.Unlisted(t.Context(), m)
			unlisted += len(left)
		}
		for _, f := range temps {
			os.Remove(f) // what a kill leaves in local temp space, counted once
		}
		return len(temps), unlisted
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "topic="+topic, "partition=*"))
	listed := map[string]bool{}
	ms, _ := d.Manifests(t.Context(), topic)
	for _, m := range ms {
		for _, f := range m.Files {
			listed[d.FilePath(m.TP(), f.Name)] = true
		}
	}
	for _, p := range parts {
		tmps, _ := filepath.Glob(filepath.Join(p, ".tmp-*"))
		temp += len(tmps)
		files, _ := filepath.Glob(filepath.Join(p, "*.parquet"))
		for _, f := range files {
			if !listed[f] {
				unlisted++
			}
		}
	}
	return temp, unlisted
}

// TestTwoDumpersOneFolder: two dumper processes on the same partitions, one
// refuses with a clear message; two on disjoint partitions both succeed
// into one folder.
func TestTwoDumpersOneFolder(t *testing.T) { twoDumpers(t, t.TempDir()) }

// TestTwoDumpersOneBucket: the same on s3://bucket/prefix, as dumpers on
// different hosts would share one prefix: the lock object refuses a
// second dumper of a partition whose holder is alive; dumpers of disjoint
// --partitions both commit into the prefix.
func TestTwoDumpersOneBucket(t *testing.T) { twoDumpers(t, testBucket(t)) }

func twoDumpers(t *testing.T, dir string) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 4, nil)
	p := producer(t, brokers)
	var recs []*kgo.Record
	for i := 0; i < 40_000; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 4), Value: []byte(fmt.Sprint(i))})
	}
	produce(t, p, recs...)
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
	d, err := catalog.CreateAt(t.Context(), dir, catalog.S3Config{Endpoint: os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")})
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.LockPartition(t.Context(), catalog.TopicPartition{Topic: topic, Partition: 0})
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
	local := dir
	if catalog.IsURL(dir) {
		local = t.TempDir()
		dst, err := catalog.Create(local)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := catalog.Copy(t.Context(), d, dst); err != nil {
			t.Fatal(err)
		}
	}
	stored, lost := coverage(t, local, topic)
	if stored != 40_000 || lost != 0 {
		t.Fatalf("two dumpers stored %d, lost %d", stored, lost)
	}
}
