package schemas

import (
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestAvroTextAmplificationBounded: a few bytes of Avro payload can stand
// for any amount of text; each value's text is bounded, and a value past
// a bound fails alone, kept raw. Before, an array of 3,000,000 nulls (a
// 9-byte value) decoded to 15 MB of text (sixty such values registered on
// Apicurio: a dump of 16.7 s and 6.3 GB RSS), and an array of 200 items of
// a union whose branch has a 100,000-character name (201 bytes) to 20 MB.
func TestAvroTextAmplificationBounded(t *testing.T) {
	long := strings.Repeat("A", 100_000)
	r := resolverWith(t,
		&catalog.Schema{ID: 1, Type: catalog.SchemaAvro, Schema: `{"type":"array","items":"null"}`},
		&catalog.Schema{ID: 2, Type: catalog.SchemaAvro, Schema: `{"type":"array","items":[{"type":"record","name":"` + long + `","fields":[]},"null","long"]}`},
	)
	items := func(n int, item ...byte) []byte { // one block of n items, then the end
		var b []byte
		for u := uint64(n) << 1; ; u >>= 7 {
			if u < 0x80 {
				b = append(b, byte(u))
				break
			}
			b = append(b, byte(u)|0x80)
		}
		for range n {
			b = append(b, item...)
		}
		return append(b, 0)
	}
	cases := []struct {
		name    string
		value   []byte
		why     string // "" decodes
		textLen int
	}{
		{"10,000 nulls", append([]byte{0, 0, 0, 0, 1}, items(10_000)...), "", 5*10_000 + 1},
		{"3,000,000 nulls", append([]byte{0, 0, 0, 0, 1}, items(3_000_000)...), "array items encoded in no bytes make more than 64 KiB of text", 0},
		{"100 long branch names", append([]byte{0, 0, 0, 0, 2}, items(100, 0)...), "", 100*(len(long)+8) + 1},
		{"200 long branch names", append([]byte{0, 0, 0, 0, 2}, items(200, 0)...), "the value's text is larger than 16 MiB, the bound of one value", 0},
		{"200 longs", append([]byte{0, 0, 0, 0, 2}, items(200, 4, 2)...), "", 200*len(`{"long":1},`) + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, _, fail := r.Decode(t.Context(), c.value, nil)
			switch {
			case c.why == "" && fail != nil:
				t.Fatalf("failed: %s", fail.Reason)
			case c.why == "" && len(out) != c.textLen:
				t.Fatalf("%d bytes of text, want %d: %.100s", len(out), c.textLen, out)
			case c.why != "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
				t.Fatalf("%d bytes of text, %v; want %q", len(out), fail, c.why)
			}
		})
	}
}
