package schemas

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/sr"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestAvroJSON encodes a value with hamba/avro, wraps it in the wire format
// with franz-go's serde, and checks the JSON text the resolver reads back,
// type by type.
func TestAvroJSON(t *testing.T) {
	ts := time.Date(2026, 3, 14, 9, 26, 53, 589123000, time.UTC)
	cases := []struct {
		name, schema string
		value        any
		want         string
	}{
		{"record of primitives", `{"type":"record","name":"R","fields":[{"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"}]}`,
			map[string]any{"b": true, "i": -3, "l": int64(1) << 40, "f": float32(1.5), "d": 2.25, "s": "tea \"cup\""},
			`{"b":true,"i":-3,"l":1099511627776,"f":1.5,"d":2.25,"s":"tea \"cup\""}`},
		{"nullable union, null", `{"type":"record","name":"R","fields":[{"name":"n","type":["null","string"]}]}`,
			map[string]any{"n": nil}, `{"n":null}`},
		{"nullable union, set", `{"type":"record","name":"R","fields":[{"name":"n","type":["null","long"]}]}`,
			map[string]any{"n": map[string]any{"long": int64(7)}}, `{"n":7}`},
		{"union of several types", `{"type":"record","name":"R","fields":[{"name":"u","type":["null","int","string"]}]}`,
			map[string]any{"u": map[string]any{"string": "x"}}, `{"u":{"string":"x"}}`},
		{"enum, array, map", `{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},{"name":"a","type":{"type":"array","items":"int"}},{"name":"m","type":{"type":"map","values":"string"}}]}`,
			map[string]any{"e": "B", "a": []any{1, 2}, "m": map[string]any{"a": "2"}}, `{"e":"B","a":[1,2],"m":{"a":"2"}}`},
		{"bytes and fixed as base64", `{"type":"record","name":"R","fields":[{"name":"b","type":"bytes"},{"name":"f","type":{"type":"fixed","name":"F","size":3}}]}`,
			map[string]any{"b": []byte{0, 1, 255}, "f": [3]byte{1, 2, 3}}, `{"b":"AAH/","f":"AQID"}`},
		{"decimal, exact", `{"type":"bytes","logicalType":"decimal","precision":12,"scale":3}`,
			big.NewRat(-1234567, 1000), `"-1234.567"`},
		{"timestamp-millis", `{"type":"long","logicalType":"timestamp-millis"}`, ts, `"2026-03-14T09:26:53.589Z"`},
		{"timestamp-micros", `{"type":"long","logicalType":"timestamp-micros"}`, ts, `"2026-03-14T09:26:53.589123Z"`},
		{"date", `{"type":"int","logicalType":"date"}`, time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC), `"2026-03-14"`},
		{"time-millis", `{"type":"int","logicalType":"time-millis"}`, 9*time.Hour + 26*time.Minute + 1500*time.Millisecond, `"09:26:01.500000"`},
		{"uuid", `{"type":"string","logicalType":"uuid"}`, "6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a", `"6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a"`},
		{"strings escaped as JSON", `"string"`, "a\"b\\c\n\x01é", `"a\"b\\c\n\u0001é"`},
		{"negative decimal below one", `{"type":"bytes","logicalType":"decimal","precision":4,"scale":3}`, big.NewRat(-5, 1000), `"-0.005"`},
		{"fixed decimal", `{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":8,"scale":2}`, big.NewRat(12345, 100), `"123.45"`},
		{"nested record", `{"type":"record","name":"R","fields":[{"name":"in","type":{"type":"record","name":"I","fields":[{"name":"x","type":"int"}]}}]}`,
			map[string]any{"in": map[string]any{"x": 1}}, `{"in":{"x":1}}`},
		{"recursive record", `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}`,
			map[string]any{"v": 1, "next": map[string]any{"L": map[string]any{"v": 2, "next": map[string]any{"L": map[string]any{"v": 3, "next": nil}}}}},
			`{"v":1,"next":{"v":2,"next":{"v":3,"next":null}}}`},
		{"duration, time-micros, local timestamp", `{"type":"record","name":"R","fields":[{"name":"d","type":{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}},{"name":"t","type":{"type":"long","logicalType":"time-micros"}},{"name":"l","type":{"type":"long","logicalType":"local-timestamp-millis"}}]}`,
			map[string]any{"d": avro.LogicalDuration{Months: 1, Days: 2, Milliseconds: 3}, "t": 9*time.Hour + 1500*time.Microsecond, "l": ts},
			`{"d":{"months":1,"days":2,"milliseconds":3},"t":"09:00:00.001500","l":"2026-03-14T09:26:53.589"}`},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := avro.Parse(c.schema)
			if err != nil {
				t.Fatal(err)
			}
			id := 100 + i
			var serde sr.Serde
			serde.Register(id, c.value, sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(s, v) }))
			wire, err := serde.Encode(c.value)
			if err != nil {
				t.Fatal(err)
			}
			r := resolverWith(t, &catalog.Schema{ID: id, Type: catalog.SchemaAvro, Schema: c.schema})
			out, gotID, ok, fail := r.Decode(context.Background(), wire, nil)
			if !ok || fail != nil || gotID != id {
				t.Fatalf("decode: ok %v, id %d, %v", ok, gotID, fail)
			}
			if string(out) != c.want {
				t.Fatalf("got %s, want %s", out, c.want)
			}
		})
	}
}

// resolverWith is a resolver over a folder that holds ss, and no registry.
func resolverWith(t *testing.T, ss ...*catalog.Schema) *Resolver {
	t.Helper()
	dir, err := catalog.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := dir.WriteSchema(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewResolver(t.Context(), Options{Folder: dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDecodeFailures: what the value_decode_error column says for each
// way a value can fail, and that a value outside the wire format is left
// alone.
func TestDecodeFailures(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `{"type":"recor`},
		&catalog.Schema{ID: 3, Type: catalog.SchemaJSON, Schema: `{}`},
		&catalog.Schema{ID: 4, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nmessage M { string s = 1; }\n"},
	)
	cases := []struct {
		name  string
		value []byte
		ok    bool
		why   string // substring of the reason; "" is decoded
	}{
		{"no magic byte", []byte(`{"a":1}`), false, ""},
		{"too short for a header", []byte{0, 0, 1}, false, ""},
		{"unknown id, no registry", []byte{0, 0, 0, 0, 9, 2, 'x'}, true, "schema 9 is not stored and no schema registry is configured"},
		{"payload shorter than its schema says", []byte{0, 0, 0, 0, 1, 20, 'x'}, true, "does not decode with schema 1"},
		{"schema that does not compile", []byte{0, 0, 0, 0, 2, 0}, true, "schema 2 does not compile"},
		{"json schema, not JSON", []byte{0, 0, 0, 0, 3, '{', 'x'}, true, "payload is not JSON"},
		{"json schema, JSON", []byte{0, 0, 0, 0, 3, '[', '1', ']'}, true, ""},
		{"protobuf, index out of the schema", []byte{0, 0, 0, 0, 4, 2, 6}, true, "message index [3] is not in the schema"},
		{"protobuf, first message", []byte{0, 0, 0, 0, 4, 0, 10, 1, 'z'}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, ok, fail := r.Decode(context.Background(), c.value, nil)
			if ok != c.ok {
				t.Fatalf("ok %v, want %v", ok, c.ok)
			}
			switch {
			case c.why == "" && fail != nil:
				t.Fatalf("failed: %v", fail)
			case c.why != "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
				t.Fatalf("reason %v, want %q", fail, c.why)
			case c.why == "" && ok && len(out) == 0:
				t.Fatalf("decoded to nothing")
			}
		})
	}
}

func TestSchemaDirNames(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"12.avsc": `"string"`, "7.proto": "syntax = \"proto3\";\nimport \"dep.proto\";\nmessage M { D d = 1; }\n", "dep.proto": "syntax = \"proto3\";\nmessage D { int32 n = 1; }\n"} {
		if err := writeFile(dir, name, text); err != nil {
			t.Fatal(err)
		}
	}
	sd, err := readSchemaDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, bare := sd.ids, sd.bare
	if got[12].Type != catalog.SchemaAvro || got[7].Type != catalog.SchemaProtobuf || got[7].Files["dep.proto"] == "" || len(bare) != 0 {
		t.Fatalf("read: %+v %+v", got, bare)
	}
	r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// M{d: D{n: 5}}: field 1, length 2, (field 1 varint 5).
	out, _, _, fail := r.Decode(context.Background(), []byte{0, 0, 0, 0, 7, 0, 10, 2, 8, 5}, nil)
	if fail != nil || string(out) != `{"d":{"n":5}}` {
		t.Fatalf("import from the folder: %s %v", out, fail)
	}
	// TOPIC.avsc: the schema of a topic of bare Avro values.
	if err := writeFile(dir, "orders.avsc", `"string"`); err != nil {
		t.Fatal(err)
	}
	if sd, err := readSchemaDir(dir); err != nil || sd.bare["orders"] == nil {
		t.Fatalf("a bare topic's schema: %v %v", sd, err)
	}
	if err := writeFile(dir, "orders.json", `{}`); err != nil {
		t.Fatal(err)
	}
	if _, err := readSchemaDir(dir); err == nil || !strings.Contains(err.Error(), "orders.json") {
		t.Fatalf("a JSON Schema file not named by an id: %v", err)
	}
}

// TestAppendTimestamp holds the digit-by-digit timestamp writer to
// time.RFC3339Nano on times across the years 0-9999 and past them, with
// and without fractions of a second.
func TestAppendTimestamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	times := []time.Time{time.Unix(0, 0), time.UnixMilli(-1), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 500, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < 20000; i++ {
		ms := rng.Int64N(400_000_000_000_000) - 200_000_000_000_000 // about ±6,000 years
		switch i % 3 {
		case 0:
			times = append(times, time.UnixMilli(ms))
		case 1:
			times = append(times, time.UnixMicro(ms*1000+rng.Int64N(1000)))
		default:
			times = append(times, time.UnixMilli(ms/1000*1000)) // whole seconds
		}
	}
	for _, tm := range times {
		tm = tm.UTC()
		want := `"` + tm.Format(time.RFC3339Nano) + `"`
		if got := string(appendTimestamp(nil, tm)); got != want {
			t.Fatalf("%v: got %s, want %s", tm, got, want)
		}
	}
}

// TestBadPayloadDoesNotPoisonTheNext: a payload that does not decode leaves
// an error in the pooled Avro reader; the next value decoded with the same
// schema (often on the same reader) must not inherit it. A dump once left
// every key after a bad one undecoded on one partition.
func TestBadPayloadDoesNotPoisonTheNext(t *testing.T) {
	r := resolverWith(t, &catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`})
	good := []byte{0, 0, 0, 0, 1, 2, 'x'}
	bad := []byte{0, 0, 0, 0, 1, 20, 'x'}
	for i := 0; i < 100; i++ {
		if _, _, _, fail := r.Decode(t.Context(), bad, nil); fail == nil {
			t.Fatal("a short payload decoded")
		}
		out, _, _, fail := r.Decode(t.Context(), good, nil)
		if fail != nil || string(out) != `{"s":"x"}` {
			t.Fatalf("after a bad payload, a good one: %s %v", out, fail)
		}
	}
}

// TestPlainASCII holds the word-at-a-time test to the byte table: every
// byte value at every place of strings of 1 to 17 bytes.
func TestPlainASCII(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				s := []byte(strings.Repeat("a", n))
				s[at] = byte(c)
				if got, want := plainASCII(s), jsonPlain[c]; got != want {
					t.Fatalf("%q: %v, want %v", s, got, want)
				}
			}
		}
	}
}

// TestTruncatedPayloads: a value cut short anywhere, or with a varint that
// does not end, fails to decode (and does not panic); whole, it decodes.
func TestTruncatedPayloads(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[{"name":"s","type":"string"},{"name":"l","type":"long"},{"name":"d","type":"double"},
  {"name":"b","type":"boolean"},{"name":"a","type":{"type":"array","items":"int"}},{"name":"f","type":{"type":"fixed","name":"F","size":3}},
  {"name":"m","type":{"type":"map","values":"bytes"}},{"name":"n","type":["null","float"]}]}`
	s := avro.MustParse(schema)
	v := map[string]any{"s": "tea", "l": int64(-1) << 50, "d": 2.5, "b": true, "a": []int{1, 300, -70000}, "f": [3]byte{1, 2, 3},
		"m": map[string]any{"k": []byte{9}}, "n": map[string]any{"float": float32(0.5)}}
	payload, err := avro.Marshal(s, v)
	if err != nil {
		t.Fatal(err)
	}
	r := resolverWith(t, &catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: schema})
	wire := append([]byte{0, 0, 0, 0, 1}, payload...)
	if out, _, _, fail := r.Decode(t.Context(), wire, nil); fail != nil ||
		string(out) != `{"s":"tea","l":-1125899906842624,"d":2.5,"b":true,"a":[1,300,-70000],"f":"AQID","m":{"k":"CQ=="},"n":0.5}` {
		t.Fatalf("whole: %s %v", out, fail)
	}
	for n := 5; n < len(wire); n++ {
		if out, _, _, fail := r.Decode(t.Context(), wire[:n], nil); fail == nil {
			t.Fatalf("cut to %d bytes of %d: decoded %s", n, len(wire), out)
		}
	}
	long := resolverWith(t, &catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `"long"`})
	for _, p := range [][]byte{bytes.Repeat([]byte{0xff}, 11), {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		out, _, _, fail := long.Decode(t.Context(), append([]byte{0, 0, 0, 0, 2}, p...), nil)
		if len(p) == 10 {
			if fail != nil || string(out) != "-9223372036854775808" {
				t.Fatalf("ten-byte varint: %s %v", out, fail)
			}
			continue
		}
		if fail == nil {
			t.Fatalf("varint % x: decoded %s", p, out)
		}
	}
}

// TestPayloadsTheSchemaDoesNotSpan: a payload with bytes after its value
// (not this value's writer schema, or damaged) and an array block count of
// -2^63 (whose count of items cannot be negated) do not decode; the value
// is kept as bytes and the failure says why.
func TestPayloadsTheSchemaDoesNotSpan(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"}},{"name":"x","type":"int"}]}`},
	)
	if out, _, _, fail := r.Decode(t.Context(), []byte{0, 0, 0, 0, 1, 0x06}, nil); fail != nil || string(out) != `{"x":3}` {
		t.Fatalf("whole: %s %v", out, fail)
	}
	out, _, _, fail := r.Decode(t.Context(), []byte{0, 0, 0, 0, 1, 0x06, 0x02, 0x04}, nil)
	if fail == nil || !strings.Contains(fail.Error(), "2 of 3 bytes") {
		t.Fatalf("trailing bytes: decoded %s (%v)", out, fail)
	}
	minCount := []byte{0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x06}
	if out, _, _, fail := r.Decode(t.Context(), minCount, nil); fail == nil {
		t.Fatalf("block count -2^63: decoded %s", out)
	}
	// A time of day is within a day: [0, 86,400,000) ms, [0, 86,400,000,000) µs.
	times := resolverWith(t,
		&catalog.Schema{ID: 3, Type: catalog.SchemaAvro, Schema: `{"type":"int","logicalType":"time-millis"}`},
		&catalog.Schema{ID: 4, Type: catalog.SchemaAvro, Schema: `{"type":"long","logicalType":"time-micros"}`},
	)
	zigzag := func(n int64) []byte { return binary.AppendUvarint(nil, uint64(n<<1^n>>63)) }
	for _, c := range []struct {
		id   byte
		n    int64
		want string // "" for no decode
	}{
		{3, 0, `"00:00:00.000000"`}, {3, 86_399_999, `"23:59:59.999000"`}, {3, -1, ""}, {3, 86_400_000, ""},
		{4, 0, `"00:00:00.000000"`}, {4, 86_399_999_999, `"23:59:59.999999"`}, {4, -1, ""}, {4, 86_400_000_000, ""}, {4, 1e15, ""},
	} {
		out, _, _, fail := times.Decode(t.Context(), append([]byte{0, 0, 0, 0, c.id}, zigzag(c.n)...), nil)
		if c.want == "" && fail == nil || c.want != "" && (fail != nil || string(out) != c.want) {
			t.Errorf("schema %d, %d: %s (%v), want %q", c.id, c.n, out, fail, c.want)
		}
	}
}

// TestDecodeFieldsNumbers: the numbers and plain strings the decoder hands
// the typed columns (catalog.ValueFields Nums, Direct, Plain) are what its
// own JSON text spells, field by field, for awkward values; and they are
// given for every field that can have them, so that the writer's fast path
// is the one taken (a float, a union of several types, a record never).
func TestDecodeFieldsNumbers(t *testing.T) {
	const schema = `{"type":"record","name":"R","fields":[
		{"name":"l","type":"long"},{"name":"i","type":["null","int"]},{"name":"d","type":"double"},
		{"name":"f","type":"float"},{"name":"b","type":["boolean","null"]},{"name":"s","type":"string"},
		{"name":"ns","type":["null","string"]},{"name":"u","type":["int","long"]},
		{"name":"r","type":{"type":"record","name":"In","fields":[{"name":"x","type":"long"}]}}]}`
	s := avro.MustParse(schema)
	r := resolverWith(t, &catalog.Schema{ID: 7, Type: catalog.SchemaAvro, Schema: schema})
	doubles := []float64{0, math.Copysign(0, -1), 0.1, 1e300, -5e-324, math.NaN(), math.Inf(1), math.Inf(-1)}
	longs := []int64{0, -1, math.MaxInt64, math.MinInt64, 63, 64, -64, -65}
	strs := []string{"", "plain", "q\"uote", "back\\slash", "é", "\x00", "tab\t"}
	var serde sr.Serde
	serde.Register(7, map[string]any{}, sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(s, v) }))
	var vf catalog.ValueFields
	for n := range 40 {
		var i, b, ns any
		if n%3 != 0 {
			i = map[string]any{"int": int32(longs[n%len(longs)])}
			b = map[string]any{"boolean": n%2 == 0}
			ns = map[string]any{"string": strs[n%len(strs)]}
		}
		v := map[string]any{"l": longs[n%len(longs)], "i": i, "d": doubles[n%len(doubles)], "f": float32(doubles[n%len(doubles)]),
			"b": b, "s": strs[n%len(strs)], "ns": ns, "u": map[string]any{"long": longs[n%len(longs)]}, "r": map[string]any{"x": int64(n)}}
		wire, err := serde.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		out, _, ok, fail := r.DecodeFields(context.Background(), wire, nil, &vf)
		if !ok || fail != nil || vf.Plan == nil || len(vf.Spans) != 2*len(vf.Plan.Names) {
			t.Fatalf("value %d: ok %v, %v, plan %v, spans %v", n, ok, fail, vf.Plan, vf.Spans)
		}
		for j, name := range vf.Plan.Names {
			text := string(out[vf.Spans[2*j]:vf.Spans[2*j+1]])
			direct, plain := vf.Direct&(1<<j) != 0, vf.Plain&(1<<j) != 0
			// Which fields must take the fast path: a non-null long, int,
			// double or boolean; a plain string.
			wantDirect := text != "null" && (name == "l" || name == "i" || name == "d" || name == "b")
			wantPlain := text != "null" && (name == "s" || name == "ns") && plainASCII([]byte(strings.Trim(text, `"`)))
			if direct != wantDirect || plain != wantPlain {
				t.Fatalf("value %d field %s (%s): direct %v plain %v, want %v %v", n, name, text, direct, plain, wantDirect, wantPlain)
			}
			switch {
			case direct && vf.Plan.Kinds[j] == catalog.KindInt:
				if got := strconv.FormatInt(int64(vf.Nums[j]), 10); got != text {
					t.Fatalf("value %d field %s: number %s, text %s", n, name, got, text)
				}
			case direct && vf.Plan.Kinds[j] == catalog.KindFloat:
				got := math.Float64frombits(vf.Nums[j])
				want, err := strconv.ParseFloat(strings.Trim(text, `"`), 64)
				if err != nil || math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("value %d field %s: number %v (%x), text %s (%x, %v)", n, name, got, math.Float64bits(got), text, math.Float64bits(want), err)
				}
			case direct && vf.Plan.Kinds[j] == catalog.KindBool:
				if got := strconv.FormatBool(vf.Nums[j] != 0); got != text {
					t.Fatalf("value %d field %s: %s, text %s", n, name, got, text)
				}
			case direct:
				t.Fatalf("value %d field %s: a number for kind %v", n, name, vf.Plan.Kinds[j])
			}
		}
	}
}
