package dump

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkDumpManySmallPartitions measures the dump's fixed cost per
// partition and per topic (issue 32): the same 60,000 records of ~200
// bytes dumped from one topic of 4 partitions (one-topic), and from 300
// topics of 4 partitions and 50 records each (many-topics, by
// --topic-regex), each into a new folder per iteration; and an incremental
// dump of N partitions (TOPICSNAP_BENCH_NOOP_PARTITIONS, default 12,000:
// N/4 topics of 4 partitions, one record each) into a folder that already
// holds them all, so that nothing is new (noop). Both report records/s (or
// s/op for noop), cpu-s/op (the process's CPU time: steadier than the
// wall time on a shared machine) and peak-rss-MiB, the process's peak resident set during
// the timed runs (VmHWM, reset first through /proc/self/clear_refs); with
// kfake that includes the in-process cluster's records, so it is an upper
// bound of the dump's own.
//
// It runs on an in-process kfake cluster, or on TOPICSNAP_BENCH_BROKERS
// (not TOPICSNAP_TEST_BROKERS: the test environment alone does not make
// the benchmarks use the shared broker), where it creates its topics under
// a unique prefix and deletes them at the end. scripts/bench-many.sh runs
// it, old and new code alternated:
//
//	go test ./dump -run '^$' -bench DumpManySmallPartitions -benchtime 3x
//	TOPICSNAP_BENCH_NOOP_PARTITIONS=12000 TOPICSNAP_BENCH_NOOP_CPUPROFILE=$PWD/noop.cpu go test ./dump -run '^$' -bench 'DumpManySmallPartitions/noop' -benchtime 1x
//
// TOPICSNAP_BENCH_NOOP_CPUPROFILE profiles the timed no-op runs alone (go
// test's -cpuprofile would include the set-up: producing and the first
// dump).
func BenchmarkDumpManySmallPartitions(b *testing.B) {
	const (
		partitions = 4
		total      = 60_000
		manyTopics = 300
	)
	noopParts := 12_000
	if s := os.Getenv("TOPICSNAP_BENCH_NOOP_PARTITIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < partitions {
			b.Fatalf("TOPICSNAP_BENCH_NOOP_PARTITIONS=%q: give a number of partitions, at least %d", s, partitions)
		}
		noopParts = n
	}
	// What topicsnap dump sets by default for a dump that does not decode.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(448 << 20))
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	brokers := benchBrokers(b)
	prefix := fmt.Sprintf("benchmany-%d-%d", os.Getpid(), time.Now().UnixNano()%1e6)
	// A real broker may not host a topic it just created yet: the client
	// waits for it rather than failing at once.
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(100_000), kgo.UnknownTopicRetries(-1))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var made []string
	defer func() {
		// The shared broker keeps nothing of the benchmark's.
		for i := 0; i < len(made); i += 500 {
			dctx, dcancel := context.WithTimeout(context.Background(), 2*time.Minute)
			if _, err := adm.DeleteTopics(dctx, made[i:min(i+500, len(made))]...); err != nil {
				b.Logf("delete the benchmark's topics: %v", err)
			}
			dcancel()
		}
	}()
	create := func(names []string, perPartition int) {
		b.Helper()
		for i := 0; i < len(names); i += 500 {
			chunk := names[i:min(i+500, len(names))]
			rs, err := adm.CreateTopics(ctx, partitions, 1, map[string]*string{"retention.ms": kadm.StringPtr("-1")}, chunk...)
			made = append(made, chunk...)
			if err == nil {
				err = rs.Error()
			}
			if err != nil {
				b.Fatalf("create %d topics: %v", len(chunk), err)
			}
		}
		waitLeaders(ctx, b, adm, names)
		value := bytes.Repeat([]byte("x"), 180)
		var recs []*kgo.Record
		flush := func() {
			if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				b.Fatalf("produce: %v", err)
			}
			recs = recs[:0]
		}
		for _, t := range names {
			for p := range int32(partitions) {
				for i := range perPartition {
					v := fmt.Appendf(nil, `{"id":%d,"pad":"%s"}`, i, value)
					recs = append(recs, &kgo.Record{Topic: t, Partition: p, Key: []byte(strconv.Itoa(i)), Value: v})
					if len(recs) == 50_000 {
						flush()
					}
				}
			}
		}
		flush()
	}
	names := func(kind string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s-%s-%05d", prefix, kind, i)
		}
		return out
	}
	one := names("one", 1)
	many := names("many", manyTopics)
	create(one, total/partitions)
	create(many, total/partitions/manyTopics)
	conn := kafkaconn.Conn{Brokers: brokers}
	dumpInto := func(b *testing.B, dir string, o Options) Summary {
		o.Conn, o.Dir = conn, dir
		s, err := Run(ctx, o)
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	rate := func(b *testing.B, o Options, want int64) {
		var records int64
		resetPeakRSS()
		cpu0 := cpuTime()
		for b.Loop() {
			s := dumpInto(b, b.TempDir(), o)
			if s.Records != want {
				b.Fatalf("dumped %d records, want %d", s.Records, want)
			}
			records += s.Records
		}
		b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(peakRSSMiB(), "peak-rss-MiB")
	}
	b.Run("one-topic", func(b *testing.B) {
		rate(b, Options{Topics: one}, total)
	})
	b.Run(fmt.Sprintf("many-topics=%d", manyTopics), func(b *testing.B) {
		rate(b, Options{TopicRegex: "^" + prefix + "-many-"}, total)
	})
	b.Run(fmt.Sprintf("noop=%d", noopParts), func(b *testing.B) {
		create(names("noop", noopParts/partitions), 1)
		o := Options{TopicRegex: "^" + prefix + "-noop-"}
		dir := b.TempDir()
		if s := dumpInto(b, dir, o); s.Records != int64(noopParts/partitions*partitions) {
			b.Fatalf("the first dump dumped %d records, want %d", s.Records, noopParts/partitions*partitions)
		}
		if f := os.Getenv("TOPICSNAP_BENCH_NOOP_CPUPROFILE"); f != "" {
			// The no-op runs alone, without the set-up's produce and first dump.
			stop := startCPUProfile(b, f)
			defer stop()
		}
		resetPeakRSS()
		cpu0 := cpuTime()
		for b.Loop() {
			if s := dumpInto(b, dir, o); s.Records != 0 {
				b.Fatalf("the incremental dump dumped %d records, want none", s.Records)
			}
		}
		b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(peakRSSMiB(), "peak-rss-MiB")
	})
}

// startCPUProfile writes a CPU profile of what runs until the returned stop
// into path.
func startCPUProfile(b *testing.B, path string) (stop func()) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			b.Error(err)
		}
	}
}

// waitLeaders waits until every partition of topics has a leader, as a
// real broker's metadata says once it hosts what it just created.
func waitLeaders(ctx context.Context, b *testing.B, adm *kadm.Client, topics []string) {
	b.Helper()
	for {
		md, err := adm.Metadata(ctx, topics...)
		ready := err == nil
		for _, t := range topics {
			td, ok := md.Topics[t]
			if !ok || td.Err != nil || len(td.Partitions) == 0 {
				ready = false
				break
			}
			for _, p := range td.Partitions {
				if p.Leader < 0 || p.Err != nil {
					ready = false
				}
			}
		}
		if ready {
			return
		}
		select {
		case <-ctx.Done():
			b.Fatalf("the topics created have no leaders yet: %v", ctx.Err())
		case <-time.After(200 * time.Millisecond): // polling the broker
		}
	}
}

// cpuTime is the CPU time (user and system) the process used so far: on a
// shared machine a steadier measure than the wall time. With kfake it
// includes the in-process cluster's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchBrokers is TOPICSNAP_BENCH_BROKERS, or an in-process kfake cluster.
func benchBrokers(b *testing.B) []string {
	if s := os.Getenv("TOPICSNAP_BENCH_BROKERS"); s != "" {
		return strings.Split(s, ",")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c.ListenAddrs()
}

// resetPeakRSS resets the process's VmHWM (Linux: clear_refs 5); where it
// cannot, peakRSSMiB is the peak since the process started.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMiB is the process's VmHWM in MiB, 0 where /proc does not say.
func peakRSSMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
