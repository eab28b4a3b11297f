package catalog

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestHelperCompactor is not a test: it is the compact process that
// TestCompactKillNine starts and kills.
func TestHelperCompactor(t *testing.T) {
	dir := os.Getenv("TOPICSNAP_HELPER_COMPACT_DIR")
	if dir == "" {
		t.Skip("helper process for TestCompactKillNine")
	}
	pause, _ := time.ParseDuration(os.Getenv("TOPICSNAP_HELPER_COMPACT_PAUSE"))
	started := false
	compactPause = func(string) {
		if !started {
			started = true
			fmt.Fprintln(os.Stdout, "compacting")
		}
		time.Sleep(pause)
	}
	target, _ := strconv.ParseInt(os.Getenv("TOPICSNAP_HELPER_COMPACT_TARGET"), 10, 64)
	d, err := OpenAt(t.Context(), dir, S3Config{Endpoint: os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if _, err := d.Compact(t.Context(), CompactOptions{TargetBytes: target}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
}

// TestCompactKillNine kills compact (its own process) at ten random
// instants (while it copies rows, between a merged file's rename and the
// manifest that lists it, between that manifest and the removal of the old
// files), checks after each kill that the folder reads as before, row for
// row, then runs compact to the end: every offset is stored exactly once,
// every row is as it was, catalog verify says what it said before, and
// nothing unlisted is left.
func TestCompactKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a compact 10 times")
	}
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	compactKillNine(t, d, 3, 150, 20_000, 4*time.Millisecond, 600)
}

// TestCompactKillNineOnBucket is the kill test in a bucket (2 × 80 objects) (the real S3
// server make test starts): kills mid-upload of a merged object, between
// it and the conditional PUT of the manifest, between that and the
// deletes, holding the lock object.
func TestCompactKillNineOnBucket(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a compact 10 times")
	}
	loc, cfg := testBucket(t)
	d := mustCreateAt(t, loc, cfg)
	compactKillNine(t, d, 2, 80, 30_000, 20*time.Millisecond, 1500)
}

// compactKillNine writes files small files of each of parts partitions
// into d, then kills compacts of it (merged files of up to target bytes,
// pause between steps) ten times, kill instants drawn in 0..spread ms
// after the helper starts compacting; then runs it to the end.
func compactKillNine(t *testing.T, d *Dir, parts, files int, target int64, pause time.Duration, spread int) {
	var tps []TopicPartition
	for p := range parts {
		tp := TopicPartition{"kill", int32(p)}
		tps = append(tps, tp)
		writeSmallFiles(t, d, tp, files, 30, p == 1, p == 2)
	}
	before := map[TopicPartition][]parquet.Row{}
	filesBefore := 0
	for _, tp := range tps {
		m, err := d.ReadManifest(t.Context(), tp)
		if err != nil {
			t.Fatal(err)
		}
		before[tp] = rawRows(t, d, m)
		filesBefore += len(m.Files)
	}
	_, problemsBefore, err := d.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// same says the folder reads as before, row for row (every file a
	// manifest lists is there, whole).
	same := func(when string) int {
		n := 0
		for _, tp := range tps {
			m, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if got := rawRows(t, d, m); !reflect.DeepEqual(got, before[tp]) {
				t.Fatalf("%s: %s reads %d rows unlike the %d before", when, tp, len(got), len(before[tp]))
			}
			n += len(m.Files)
		}
		return n
	}
	tmp := t.TempDir()
	helper := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperCompactor$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TOPICSNAP_HELPER_COMPACT_DIR="+d.Path, "TOPICSNAP_HELPER_COMPACT_PAUSE="+pause.String(),
			fmt.Sprintf("TOPICSNAP_HELPER_COMPACT_TARGET=%d", target), "TMPDIR="+tmp)
		return cmd
	}
	rng := rand.New(rand.NewPCG(3, 4))
	kills := 0
	for kills < 10 {
		cmd := helper()
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		started := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if sc.Text() == "compacting" {
					started <- true
					break
				}
			}
			for sc.Scan() {
			}
			started <- false
		}()
		if <-started {
			time.Sleep(time.Duration(rng.IntN(spread)) * time.Millisecond)
		}
		err = cmd.Process.Signal(os.Kill)
		werr := cmd.Wait()
		if err != nil || werr == nil {
			// It had finished before its kill: the test would prove less
			// than it says.
			t.Fatalf("compact finished after %d kills of 10: give it more files or a narrower window", kills)
		}
		kills++
		n := same(fmt.Sprintf("after kill %d", kills))
		left := 0
		for _, tp := range tps {
			m, _ := d.ReadManifest(t.Context(), tp)
			u, _ := d.Unlisted(t.Context(), m)
			left += len(u)
		}
		t.Logf("kill %d: %d files listed, %d unlisted left by the kill", kills, n, left)
	}
	st, err := d.Compact(t.Context(), CompactOptions{TargetBytes: target})
	if err != nil {
		t.Fatal(err)
	}
	n := same("after the last run")
	t.Logf("last run: %+v; %d files before, %d after", st, filesBefore, n)
	if n >= filesBefore {
		t.Fatalf("%d files after compact, %d before", n, filesBefore)
	}
	for _, tp := range tps {
		m, _ := d.ReadManifest(t.Context(), tp)
		if u, err := d.Unlisted(t.Context(), m); err != nil || len(u) > 0 {
			t.Fatalf("%s: unlisted after the last run: %v %v", tp, u, err)
		}
		seen := map[int64]int{}
		for _, r := range rawRows(t, d, m) {
			seen[r[1].Int64()]++ // column 1: offset
		}
		for o, c := range seen {
			if c != 1 {
				t.Fatalf("%s: offset %d stored %d times", tp, o, c)
			}
		}
	}
	_, problems, err := d.Verify(t.Context())
	if err != nil || !reflect.DeepEqual(problems, problemsBefore) {
		t.Fatalf("verify after: %v %v (before: %v)", err, problems, problemsBefore)
	}
}
