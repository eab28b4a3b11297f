//go:build unix

package restore

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/kafkaconn"
)

// BenchmarkRestoreDir restores topic TOPICSNAP_BENCH_RESTORE_TOPIC of the
// folder TOPICSNAP_BENCH_RESTORE_DIR (for instance the snapshot
// scripts/bench-restore.sh dumps) into a new topic per iteration, on the
// broker TOPICSNAP_TEST_BROKERS: restore's own work in one process, for
// profiles of the benchmark's workload. Besides ns/op it reports the
// process's CPU (user+system, cpu-s/op, and system alone, sys-s/op) per
// restore; run with -benchmem for the bytes allocated.
//
//	go test ./restore -run '^$' -bench RestoreDir -benchtime 5x -benchmem -cpuprofile cpu.out
func BenchmarkRestoreDir(b *testing.B) {
	bs, dir, topic := os.Getenv("TOPICSNAP_TEST_BROKERS"), os.Getenv("TOPICSNAP_BENCH_RESTORE_DIR"), os.Getenv("TOPICSNAP_BENCH_RESTORE_TOPIC")
	if bs == "" || dir == "" || topic == "" {
		b.Skip("needs TOPICSNAP_TEST_BROKERS, TOPICSNAP_BENCH_RESTORE_DIR and TOPICSNAP_BENCH_RESTORE_TOPIC")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: strings.Split(bs, ",")}
	var n int64
	var ru0, ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for i := 0; b.Loop(); i++ {
		s, err := Run(ctx, Options{Conn: conn, Dir: dir, Topic: topic, ToTopic: fmt.Sprintf("%s-bench-%d-%d", topic, time.Now().UnixNano(), i)})
		if err != nil {
			b.Fatal(err)
		}
		n += s.Records
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(r syscall.Rusage) float64 { return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9 }
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric((cpu(ru1)-cpu(ru0))/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(ru1.Stime.Nano()-ru0.Stime.Nano())/1e9/float64(b.N), "sys-s/op")
}
