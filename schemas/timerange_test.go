package schemas

import (
	"math"
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestAvroTimesOutsideSQLRange: a date or timestamp outside the range of
// SQL's DATE and TIMESTAMP decoded to a text the engine read as NULL, with
// no error (timestamp-millis 2^63-1, a date of -2^31). Now the value fails
// alone and says why; the range's own ends still decode.
func TestAvroTimesOutsideSQLRange(t *testing.T) {
	long := func(v int64) []byte { w := avro.NewWriter(nil, 16); w.WriteLong(v); return w.Buffer() }
	const (
		date  = `{"type":"int","logicalType":"date"}`
		tsMs  = `{"type":"long","logicalType":"timestamp-millis"}`
		tsUs  = `{"type":"long","logicalType":"timestamp-micros"}`
		ltsMs = `{"type":"long","logicalType":"local-timestamp-millis"}`
		ltsUs = `{"type":"long","logicalType":"local-timestamp-micros"}`
	)
	cases := []struct {
		schema  string
		payload []byte
		want    string // the text, or "" for a failure
		why     string
	}{
		{date, long(math.MinInt32), "", "date -2147483648 (days from 1970-01-01) is outside the range SQL's DATE holds"},
		{date, long(math.MinInt32 + 1), "", "outside the range"},
		{date, long(math.MaxInt32), "", "outside the range"},
		{date, long(-(1<<31 - 2)), `"-5877641-06-25"`, ""},
		{date, long(1<<31 - 2), `"5881580-07-10"`, ""},
		{date, long(0), `"1970-01-01"`, ""},
		{tsMs, long(math.MaxInt64), "", "timestamp-millis 9223372036854775807 ms from 1970-01-01 is outside the range SQL's TIMESTAMP holds"},
		{tsMs, long(math.MinInt64), "", "outside the range"},
		{tsMs, long(9223372036854776), "", "outside the range"},
		{tsMs, long(9223372036854775), `"294247-01-10T04:00:54.775Z"`, ""},
		{tsMs, long(-9223372022400000), `"-290308-12-22T00:00:00Z"`, ""},
		{tsMs, long(-9223372022400001), "", "outside the range"},
		{tsUs, long(math.MaxInt64), "", "timestamp-micros 9223372036854775807 µs"},
		{tsUs, long(math.MaxInt64 - 1), `"294247-01-10T04:00:54.775806Z"`, ""},
		{tsUs, long(-9223372022400000000), `"-290308-12-22T00:00:00Z"`, ""},
		{tsUs, long(-9223372022400000001), "", "outside the range"},
		{ltsMs, long(math.MaxInt64), "", "local-timestamp-millis"},
		{ltsUs, long(math.MinInt64), "", "local-timestamp-micros"},
		{ltsUs, long(1700000000000000), `"2023-11-14T22:13:20"`, ""},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := writeFile(dir, "1.avsc", c.schema); err != nil {
			t.Fatal(err)
		}
		r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		var vf catalog.ValueFields
		out, _, _, fail := r.DecodeFields(t.Context(), wireOf(1, c.payload), nil, &vf)
		switch {
		case c.want != "" && (fail != nil || string(out) != c.want):
			t.Errorf("%s %x: got %s, %v; want %s", c.schema, c.payload, out, fail, c.want)
		case c.want == "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
			t.Errorf("%s %x: got %s, %v; want a failure saying %q", c.schema, c.payload, out, fail, c.why)
		}
	}
}
