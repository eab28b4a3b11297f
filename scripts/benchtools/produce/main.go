// Command produce fills a Kafka topic with synthetic JSON events for the
// topicsnap benchmarks (scripts/bench-dump.sh). It is a bench tool, not part
// of the product.
//
//	go run ./scripts/benchtools/produce --brokers 127.0.0.1:39192 --topic bench \
//	    --create --partitions 6 -n 5000000
//
// Each event is a JSON object of about 194 bytes (204 with the key) with a
// unique "event_id"; the key is "user-NNNNN" (the default key-hash
// partitioner spreads them over the partitions). Timestamps are the time of
// production. With --format avro --registry URL the same events are written
// as Avro in the Confluent wire format (schema benchAvroSchema, registered
// under TOPIC-value, encoded through franz-go's sr.Serde), about 130 bytes.
// The output is one line:
// records=N bytes=B (key+value) seconds=S rate=R/s.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/restore"
	"github.com/topicsnap/topicsnap/scripts/benchtools/benchevent"
)

func main() {
	brokers := flag.String("brokers", "127.0.0.1:39192", "bootstrap brokers")
	topic := flag.String("topic", "bench", "topic")
	n := flag.Int("n", 5_000_000, "records to produce")
	create := flag.Bool("create", false, "create the topic first (fails if it exists with other settings; ok if it exists)")
	partitions := flag.Int("partitions", 6, "partitions when creating")
	compression := flag.String("compression", "lz4", "batch compression: none, lz4, snappy, zstd, gzip")
	seed := flag.Uint64("seed", 1, "random seed for the payloads")
	format := flag.String("format", "json", "json, or avro (needs --registry)")
	registry := flag.String("registry", "", "Schema Registry URL, for --format avro")
	flag.Parse()
	var encode func(json []byte) []byte
	switch *format {
	case "json":
	case "avro":
		encode = avroEncoder(*registry, *topic)
	default:
		fatalf("unknown --format %q", *format)
	}

	codec, err := restore.CompressionCodec(*compression)
	if err != nil {
		fatalf("%v", err)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(*brokers),
		kgo.ClientID("topicsnap-bench-produce"),
		kgo.DefaultProduceTopic(*topic),
		kgo.ProducerBatchCompression(codec),
		kgo.ProducerBatchMaxBytes(1<<20),
		kgo.ProducerLinger(5*time.Millisecond),
		kgo.MaxBufferedRecords(1<<18),
	)
	if err != nil {
		fatalf("client: %v", err)
	}
	defer cl.Close()
	ctx := context.Background()

	if *create {
		adm := kadm.NewClient(cl)
		retention := "-1"
		r, err := adm.CreateTopic(ctx, int32(*partitions), 1, map[string]*string{"retention.ms": &retention}, *topic)
		if err == nil {
			err = r.Err
		}
		if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
			fatalf("create topic %s: %v", *topic, err)
		}
		// Wait until every partition has a leader.
		deadline := time.Now().Add(30 * time.Second)
		for {
			md, err := adm.Metadata(ctx, *topic)
			if err == nil {
				if td, ok := md.Topics[*topic]; ok && td.Err == nil && len(td.Partitions) == *partitions {
					ready := true
					for _, p := range td.Partitions {
						ready = ready && p.Leader >= 0 && p.Err == nil
					}
					if ready {
						break
					}
				}
			}
			if time.Now().After(deadline) {
				fatalf("topic %s has no leaders after 30s (%v)", *topic, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	var failed atomic.Int64
	var firstErr atomic.Value
	var bytes int64
	start := time.Now()
	done := make(chan struct{})
	var acked atomic.Int64
	total := int64(*n)
	if total == 0 {
		close(done)
	}
	cb := func(_ *kgo.Record, err error) {
		if err != nil {
			if failed.Add(1) == 1 {
				firstErr.Store(err)
			}
		}
		if acked.Add(1) == total {
			close(done)
		}
	}
	buf := make([]byte, 0, 256)
	for i := 0; i < *n; i++ {
		now := time.Now()
		var key []byte
		buf, key = benchevent.Append(buf[:0], rng, i, now)
		value := append([]byte(nil), buf...)
		if encode != nil {
			value = encode(buf)
		}
		bytes += int64(len(key) + len(value))
		cl.Produce(ctx, &kgo.Record{Key: key, Value: value, Timestamp: now}, cb)
	}
	if err := cl.Flush(ctx); err != nil {
		fatalf("flush: %v", err)
	}
	<-done
	secs := time.Since(start).Seconds()
	if f := failed.Load(); f > 0 {
		fatalf("%d of %d records failed, first: %v", f, *n, firstErr.Load())
	}
	fmt.Printf("records=%d bytes=%d seconds=%.3f rate=%.0f/s\n", *n, bytes, secs, float64(*n)/secs)
}

// benchAvroSchema is the bench event as Avro.
const benchAvroSchema = `{"type":"record","name":"BenchEvent","namespace":"topicsnap.bench","fields":[
  {"name":"event_id","type":"string"},{"name":"type","type":"string"},{"name":"user_id","type":"long"},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"amount","type":"double"},
  {"name":"country","type":"string"},{"name":"device","type":"string"},{"name":"url","type":"string"}]}`

type benchEvent struct {
	EventID string    `json:"event_id" avro:"event_id"`
	Type    string    `json:"type" avro:"type"`
	UserID  int64     `json:"user_id" avro:"user_id"`
	TS      time.Time `json:"ts" avro:"ts"`
	Amount  float64   `json:"amount" avro:"amount"`
	Country string    `json:"country" avro:"country"`
	Device  string    `json:"device" avro:"device"`
	URL     string    `json:"url" avro:"url"`
}

// avroEncoder registers the schema and returns what turns one JSON event
// into the same event in Avro, in the wire format.
func avroEncoder(url, topic string) func([]byte) []byte {
	if url == "" {
		fatalf("--format avro needs --registry URL")
	}
	cl, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		fatalf("registry client: %v", err)
	}
	ss, err := cl.CreateSchema(context.Background(), topic+"-value", sr.Schema{Schema: benchAvroSchema, Type: sr.TypeAvro})
	if err != nil {
		fatalf("register the schema: %v", err)
	}
	schema := avro.MustParse(benchAvroSchema)
	var serde sr.Serde
	serde.Register(ss.ID, benchEvent{}, sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(schema, v) }))
	return func(j []byte) []byte {
		var e benchEvent
		if err := json.Unmarshal(j, &e); err != nil {
			fatalf("read event: %v", err)
		}
		b, err := serde.Encode(e)
		if err != nil {
			fatalf("encode: %v", err)
		}
		return b
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "produce: "+format+"\n", args...)
	os.Exit(1)
}
