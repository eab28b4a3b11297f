package catalog

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/scripts/benchtools/benchevent"
)

// BenchmarkWriteRows writes 100,000 rows of the bench event into one
// committed file, as the dump does (batches of 4,096, a row group of 43k
// rows): as a JSON topic stores it (the JSON in value), and as an Avro
// topic does (~100 bytes of Avro in value, the decoded JSON beside it in
// value_decoded, a schema id), and as an Avro topic does now, with the
// typed columns (avro-typed: the decoded text, and its top-level fields in
// typed_s*, typed_i*, typed_f*). The differences are what storing the
// decoded text, then the typed columns, cost the dump, apart from decoding.
func BenchmarkWriteRows(b *testing.B) {
	const rows = 100_000
	// The events of scripts/benchtools/produce (random ids, types, users,
	// amounts: they compress as the bench topics' do), and each in Avro.
	type event struct {
		EventID string  `json:"event_id" avro:"event_id"`
		Type    string  `json:"type" avro:"type"`
		UserID  int64   `json:"user_id" avro:"user_id"`
		TS      string  `json:"ts" avro:"-"`
		TSMilli int64   `json:"-" avro:"ts"`
		Amount  float64 `json:"amount" avro:"amount"`
		Country string  `json:"country" avro:"country"`
		Device  string  `json:"device" avro:"device"`
		URL     string  `json:"url" avro:"url"`
	}
	schema := avro.MustParse(`{"type":"record","name":"BenchEvent","fields":[
  {"name":"event_id","type":"string"},{"name":"type","type":"string"},{"name":"user_id","type":"long"},
  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},{"name":"amount","type":"double"},
  {"name":"country","type":"string"},{"name":"device","type":"string"},{"name":"url","type":"string"}]}`)
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	jsons, avros, keys := make([][]byte, rows), make([][]byte, rows), make([][]byte, rows)
	for i := range rows {
		jsons[i], keys[i] = benchevent.Append(nil, rng, i, now.Add(time.Duration(i)*time.Millisecond))
		var e event
		if err := json.Unmarshal(jsons[i], &e); err != nil {
			b.Fatal(err)
		}
		e.TSMilli = now.Add(time.Duration(i) * time.Millisecond).UnixMilli()
		a, err := avro.Marshal(schema, e)
		if err != nil {
			b.Fatal(err)
		}
		avros[i] = append([]byte{0, 0, 0, 0, 1}, a...)
	}
	// Where each top-level field's value lies in the JSON text, as the
	// decoder says it (schemas.Resolver.DecodeFields), with the numbers it
	// read and its plain strings (ValueFields.Nums, Direct, Plain).
	plan := &FieldPlan{
		Names: []string{"event_id", "type", "user_id", "ts", "amount", "country", "device", "url"},
		Kinds: []Kind{KindString, KindString, KindInt, KindNone, KindFloat, KindString, KindString, KindString},
	}
	fields := make([]ValueFields, rows)
	for i := range rows {
		dec := json.NewDecoder(bytes.NewReader(jsons[i]))
		dec.Token()
		fields[i].Nums = make([]uint64, len(plan.Names))
		for dec.More() {
			dec.Token()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				b.Fatal(err)
			}
			end := int32(dec.InputOffset())
			j := len(fields[i].Spans) / 2
			fields[i].Spans = append(fields[i].Spans, end-int32(len(raw)), end)
			var n uint64
			switch plan.Kinds[j] {
			case KindString:
				if !bytes.Contains(raw, []byte{'\\'}) {
					fields[i].Plain |= 1 << j
				}
				continue
			case KindInt:
				v, err := strconv.ParseInt(string(raw), 10, 64)
				if err != nil {
					b.Fatal(err)
				}
				n = uint64(v)
			case KindFloat:
				v, err := strconv.ParseFloat(string(raw), 64)
				if err != nil {
					b.Fatal(err)
				}
				n = math.Float64bits(v)
			default:
				continue
			}
			fields[i].Nums[j] = n
			fields[i].Direct |= 1 << j
		}
		fields[i].Plan = plan
	}
	id := int32(1)
	for _, c := range []struct {
		name string
		row  func(i int) Row
	}{
		{"json", func(i int) Row {
			return Row{Offset: int64(i), Timestamp: int64(i), TimestampType: TimestampCreate, Key: keys[i], Value: jsons[i]}
		}},
		{"avro-decoded", func(i int) Row {
			return Row{Offset: int64(i), Timestamp: int64(i), TimestampType: TimestampCreate, Key: keys[i], Value: avros[i],
				SchemaID: &id, ValueDecoded: jsons[i]}
		}},
	} {
		for _, typed := range []bool{false, true} {
			if typed && c.name != "avro-decoded" {
				continue
			}
			name := c.name
			if typed {
				name = "avro-typed" // the same rows, with the typed columns
			}
			b.Run(name, func(b *testing.B) {
				all := make([]Row, rows)
				for i := range all {
					all[i] = c.row(i)
				}
				d, err := Create(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu0 := cpuTime()
				n := 0
				var size int64
				for b.Loop() {
					n++
					w, err := d.NewFileWriterRows(b.Context(), TopicPartition{"t", int32(n)}, "s1", 43*1024)
					if err != nil {
						b.Fatal(err)
					}
					for i := 0; i < rows; i += 4096 {
						j := min(i+4096, rows)
						if err := w.WriteTyped(all[i:j], fields[i:j], typed); err != nil {
							b.Fatal(err)
						}
					}
					fe, err := w.Commit(b.Context())
					if err != nil {
						b.Fatal(err)
					}
					size = fe.Bytes
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*rows), "cpu-ns/row")
				b.ReportMetric(float64(size)/rows, "file-B/row")
			})
		}
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
