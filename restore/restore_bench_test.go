package restore

import (
	"context"
	"fmt"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkRestore restores a dumped topic of 200,000 JSON records of about
// 200 B (6 partitions) into a new topic per iteration, on the real broker
// (TOPICSNAP_TEST_BROKERS). For profiles of where restore's CPU goes:
//
//	go test ./dump -run '^$' -bench Restore -benchtime 3x -cpuprofile cpu.out
func BenchmarkRestore(b *testing.B) {
	bs := os.Getenv("TOPICSNAP_TEST_BROKERS")
	if bs == "" {
		b.Skip("needs a broker: TOPICSNAP_TEST_BROKERS")
	}
	brokers := strings.Split(bs, ",")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: brokers}
	src := fmt.Sprintf("bench-rsrc-%d", time.Now().UnixNano())
	if err := dump.CreateTopic(ctx, conn, src, 6, nil); err != nil {
		b.Fatal(err)
	}
	const n = 200_000
	recs := make([]dump.Record, n)
	pad := strings.Repeat("x", 120)
	for i := range recs {
		recs[i] = dump.Record{Topic: src, Partition: int32(i % 6), Key: []byte(fmt.Sprintf("user-%06d", i%5000)),
			Value: []byte(fmt.Sprintf(`{"event_id":"e%09d","n":%d,"pad":"%s"}`, i, i, pad))}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{src}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Run(ctx, Options{Conn: conn, Dir: dir, Topic: src, ToTopic: fmt.Sprintf("%s-to-%d", src, i)})
		if err != nil {
			b.Fatal(err)
		}
		var got int64
		for _, p := range s.Partitions {
			got += p.Records
		}
		if got != n {
			b.Fatalf("restored %d records, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
