package schemas

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestDecimalBounds: an Avro decimal costs what its digits cost. Before, a
// schema's scale of 300,000 (registered on Apicurio) made each 2-byte value
// take a minute (two records: 118 s, 579 MB), a scale of 2,000,000,000
// never ended, and a value of 1 MiB of unscaled bytes took 1.15 s. Now a
// decimal past maxDecimalDigits does not compile (that id's values are
// kept, with the reason), a value past maxDecimalBytes fails alone, and
// the digits within the bounds are written as before.
func TestDecimalBounds(t *testing.T) {
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"bytes","logicalType":"decimal","precision":400000,"scale":300000}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `{"type":"bytes","logicalType":"decimal","precision":2000000000,"scale":2000000000}`},
		&catalog.Schema{ID: 3, Type: catalog.SchemaAvro, Schema: `{"type":"bytes","logicalType":"decimal","precision":1000,"scale":1000}`},
		&catalog.Schema{ID: 4, Type: catalog.SchemaAvro, Schema: `{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}`},
		&catalog.Schema{ID: 5, Type: catalog.SchemaAvro, Schema: `{"type":"fixed","name":"F","size":2,"logicalType":"decimal","precision":4,"scale":3}`},
	)
	long := func(n int) []byte { // an Avro long, zig-zag
		var b []byte
		u := uint64(n) << 1
		for u >= 0x80 {
			b = append(b, byte(u)|0x80)
			u >>= 7
		}
		return append(b, byte(u))
	}
	big := append(long(maxDecimalBytes+1), make([]byte, maxDecimalBytes+1)...)
	big[len(long(maxDecimalBytes+1))] = 1
	cases := []struct {
		name    string
		value   []byte
		want    string // decoded, or in the reason
		decodes bool
	}{
		{"scale 300,000", []byte{0, 0, 0, 0, 1, 2, 5}, "schema 1 does not compile: avro decimal of precision 400000 and scale 300000: more than 1000 digits", false},
		{"scale 2,000,000,000", []byte{0, 0, 0, 0, 2, 2, 5}, "schema 2 does not compile: avro decimal of precision 2000000000", false},
		{"scale 1,000", []byte{0, 0, 0, 0, 3, 2, 5}, `"0.` + strings.Repeat("0", 999) + `5"`, true},
		{"past maxDecimalBytes", append([]byte{0, 0, 0, 0, 4}, big...), "does not decode with schema 4: avro decimal of 417 bytes: more than 1000 digits", false},
		{"a negative one", []byte{0, 0, 0, 0, 4, 4, 0xfb, 0x2e}, `"-12.34"`, true},
		{"a small one", []byte{0, 0, 0, 0, 4, 2, 7}, `"0.07"`, true},
		{"fixed", []byte{0, 0, 0, 0, 5, 0, 42}, `"0.042"`, true},
		// Past the precision: DECIMAL(10,2) read it as NULL with no error
		// (12345678901 = 0x02 0xdf 0xdc 0x1c 0x35: 123456789.01); 10 digits
		// still decode, and a fixed of 4 digits past 9.999.
		{"11 digits of decimal(10,2)", []byte{0, 0, 0, 0, 4, 10, 0x02, 0xdf, 0xdc, 0x1c, 0x35}, "does not decode with schema 4: avro decimal of 11 digits is past its precision of 10 (decimal(10,2))", false},
		{"10 digits of decimal(10,2)", []byte{0, 0, 0, 0, 4, 10, 0x02, 0x54, 0x0b, 0xe3, 0xff}, `"99999999.99"`, true},
		{"-10 digits of decimal(10,2)", []byte{0, 0, 0, 0, 4, 10, 0xfd, 0xab, 0xf4, 0x1c, 0x01}, `"-99999999.99"`, true},
		{"fixed past 9.999", []byte{0, 0, 0, 0, 5, 0x27, 0x10}, "avro decimal of 5 digits is past its precision of 4", false},
		{"fixed at 9.999", []byte{0, 0, 0, 0, 5, 0x27, 0x0f}, `"9.999"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			type result struct {
				out  []byte
				fail *Failure
			}
			done := make(chan result, 1)
			go func() {
				out, _, _, fail := r.Decode(t.Context(), c.value, nil)
				done <- result{out, fail}
			}()
			var out []byte
			var fail *Failure
			select {
			case res := <-done:
				out, fail = res.out, res.fail
			case <-time.After(10 * time.Second):
				t.Fatal("not decoded after 10 s")
			}
			switch {
			case c.decodes && fail != nil:
				t.Fatalf("failed: %s", fail.Reason)
			case c.decodes && string(out) != c.want:
				t.Fatalf("decoded %.80s…, want %.80s…", out, c.want)
			case !c.decodes && (fail == nil || !strings.Contains(fail.Reason, c.want)):
				t.Fatalf("got %.100s %v, want %q", out, fail, c.want)
			}
		})
	}
}
