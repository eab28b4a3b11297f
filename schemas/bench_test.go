package schemas

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/catalog"
)

// benchAvro is the bench event (scripts/benchtools/produce --format avro)
// in the wire format, and a resolver that knows its schema.
func benchAvro(b *testing.B) (*Resolver, []byte) {
	const schema = `{"type":"record","name":"BenchEvent","fields":[
  {"name":"event_id","type":"string"},{"name":"type","type":"string"},{"name":"user_id","type":"long"},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"amount","type":"double"},
  {"name":"country","type":"string"},{"name":"device","type":"string"},{"name":"url","type":"string"}]}`
	type ev struct {
		EventID string    `avro:"event_id"`
		Type    string    `avro:"type"`
		UserID  int64     `avro:"user_id"`
		TS      time.Time `avro:"ts"`
		Amount  float64   `avro:"amount"`
		Country string    `avro:"country"`
		Device  string    `avro:"device"`
		URL     string    `avro:"url"`
	}
	s := avro.MustParse(schema)
	var serde sr.Serde
	serde.Register(1, ev{}, sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(s, v) }))
	wire := serde.MustEncode(ev{"3f2a9c0d11e84b7a000000000004c4b3", "add_to_cart", 48213, time.Now(), 123.45, "DE", "mobile", "/products/31337?ref=c42"})
	dir, err := catalog.Create(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir.WriteSchema(b.Context(), &catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: schema})
	r, _ := NewResolver(b.Context(), Options{Folder: dir})
	return r, wire
}

// BenchmarkDecodeAvro decodes the bench event to JSON text, each value
// into a new buffer.
func BenchmarkDecodeAvro(b *testing.B) {
	r, wire := benchAvro(b)
	ctx := context.Background()
	b.ReportAllocs()
	// The process's CPU time a value, beside the wall time: on a shared
	// machine the wall time counts the waits for a core too.
	cpu0 := cpuTime()
	for b.Loop() {
		if _, _, _, fail := r.Decode(ctx, wire, nil); fail != nil {
			b.Fatal(fail)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkDecodeAvroArena decodes as the dump does: into one buffer per
// batch of 4,096 values, reused once the batch is written.
func BenchmarkDecodeAvroArena(b *testing.B) {
	r, wire := benchAvro(b)
	ctx := context.Background()
	b.ReportAllocs()
	var arena []byte
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		if n++; n%4096 == 0 {
			arena = arena[:0]
		}
		out, _, _, fail := r.Decode(ctx, wire, arena)
		if fail != nil {
			b.Fatal(fail)
		}
		arena = out
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
