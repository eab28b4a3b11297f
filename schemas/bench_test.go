package schemas

import (
	"context"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/catalog"
)

// BenchmarkDecodeAvro decodes the bench event (scripts/benchtools/produce
// --format avro) to JSON text.
func BenchmarkDecodeAvro(b *testing.B) {
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
	dir.WriteSchema(&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: schema})
	r, _ := NewResolver(Options{Folder: dir})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, fail := r.Decode(ctx, wire, nil); fail != nil {
			b.Fatal(fail)
		}
	}
}
