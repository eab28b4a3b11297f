package dump

import (
	"context"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/schemas"
)

// BenchmarkDumpTopic dumps an existing topic (TOPICSNAP_BENCH_TOPIC, e.g. one
// scripts/bench-avro.sh produced and BENCH_KEEP=1 kept) from the real broker
// (TOPICSNAP_TEST_BROKERS), decoding with TOPICSNAP_TEST_REGISTRY when set,
// into a new folder per iteration, under the soft memory limit topicsnap
// dump sets by default (768MiB for a dump that decodes, 448MiB for the
// others: cmd/topicsnap's dumpMemoryLimit). For profiles of where the dump's CPU and memory go:
//
//	TOPICSNAP_TEST_BROKERS=127.0.0.1:39192 TOPICSNAP_BENCH_TOPIC=benchavro_… \
//	TOPICSNAP_TEST_REGISTRY=http://127.0.0.1:38281/apis/ccompat/v7 \
//	go test ./dump -run '^$' -bench DumpTopic -benchtime 1x -cpuprofile cpu.out -memprofile mem.out
func BenchmarkDumpTopic(b *testing.B) {
	bs, topic := os.Getenv("TOPICSNAP_TEST_BROKERS"), os.Getenv("TOPICSNAP_BENCH_TOPIC")
	if bs == "" || topic == "" {
		b.Skip("needs a broker and a topic: TOPICSNAP_TEST_BROKERS, TOPICSNAP_BENCH_TOPIC")
	}
	var reg *schemas.Registry
	limit := int64(448 << 20)
	if u := os.Getenv("TOPICSNAP_TEST_REGISTRY"); u != "" {
		reg = &schemas.Registry{URLs: []string{u}}
		limit = 768 << 20
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	defer debug.SetGCPercent(debug.SetGCPercent(300))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var records int64
	for b.Loop() {
		s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: strings.Split(bs, ",")}, Dir: b.TempDir(), Topics: []string{topic}, Registry: reg})
		if err != nil {
			b.Fatal(err)
		}
		records += s.Records
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkDumpConsumerOffsets dumps the broker's __consumer_offsets
// (TOPICSNAP_TEST_BROKERS) into a new folder per iteration, then reads the
// stored records back and decodes each with consumeroffsets.Decode, as the
// log views do at query time. It reports records/s for the whole (dump,
// read back, decode) and decoded/s for the decoding alone:
//
//	TOPICSNAP_TEST_BROKERS=127.0.0.1:39092 go test ./dump -run '^$' -bench DumpConsumerOffsets -benchtime 5x
func BenchmarkDumpConsumerOffsets(b *testing.B) {
	bs := os.Getenv("TOPICSNAP_TEST_BROKERS")
	if bs == "" {
		b.Skip("needs a broker: TOPICSNAP_TEST_BROKERS")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(448 << 20))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var records, decoded int64
	var decoding time.Duration
	for b.Loop() {
		dir := b.TempDir()
		if _, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: strings.Split(bs, ",")}, Dir: dir, Topics: []string{offsetsTopic}}); err != nil {
			b.Fatal(err)
		}
		d, err := catalog.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		ms, err := d.Manifests(ctx, offsetsTopic)
		if err != nil {
			b.Fatal(err)
		}
		var rows []catalog.Row
		for _, m := range ms {
			for _, f := range m.Files {
				rs, err := catalog.ReadDataFile(d.FilePath(m.TP(), f.Name))
				if err != nil {
					b.Fatal(err)
				}
				rows = append(rows, rs...)
			}
		}
		start := time.Now()
		for _, r := range rows {
			if r.Control {
				continue
			}
			// An unknown type or version is kept as bytes by the views
			// (the error is in the record): only a panic would fail here.
			consumeroffsets.Decode(r.Key, r.Value)
			decoded++
		}
		decoding += time.Since(start)
		records += int64(len(rows))
	}
	if records == 0 {
		b.Fatal("the broker's __consumer_offsets holds no record: nothing was measured")
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(decoded)/decoding.Seconds(), "decoded/s")
	b.ReportMetric(float64(records)/float64(b.N), "records/op")
}
