package schemas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestProtobufTextBounded: protojson writes every field of every message,
// so an empty element of a repeated message (two bytes of payload) is all
// its fields' names of text. Before, a 40 KB value of 20,000 empty
// elements of a message of 5,000 fields (registered on Apicurio) was
// decoded to 47 MB of text: a dump of 39.9 s and 4.2 GB RSS for one
// record, whose fields the engine then did not read (past 16 MiB). Now a
// value whose text would pass maxDecodedText fails alone, at once, before
// the text is made; a value within it decodes as before.
func TestProtobufTextBounded(t *testing.T) {
	var fields strings.Builder
	for i := range 500 {
		fmt.Fprintf(&fields, "  int32 field_%d = %d;\n", i, i+1)
	}
	r := resolverWith(t, &catalog.Schema{ID: 9, Type: catalog.SchemaProtobuf,
		Schema: "syntax = \"proto3\";\nmessage Outer { repeated Big items = 1; map<string, Big> byName = 2; }\nmessage Big {\n" + fields.String() + "}\n"})
	value := func(elems int, item []byte) []byte {
		return append([]byte{0, 0, 0, 0, 9, 0}, bytes.Repeat(item, elems)...)
	}
	entries := func(n int) []byte { // byName: {"0000": {}, "0001": {}, ...}
		v := []byte{0, 0, 0, 0, 9, 0}
		for i := range n {
			v = append(append(append(v, 0x12, 8, 0x0a, 4), fmt.Sprintf("%04d", i)...), 0x12, 0)
		}
		return v
	}
	cases := []struct {
		name  string
		value []byte
		fails bool
	}{
		{"100 empty elements", value(100, []byte{0x0a, 0}), false},
		{"5,000 empty elements", value(5_000, []byte{0x0a, 0}), true},
		{"100 map entries", entries(100), false},
		{"5,000 map entries", entries(5_000), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			out, _, _, fail := r.Decode(t.Context(), c.value, nil)
			took := time.Since(start)
			switch {
			case c.fails && (fail == nil || !strings.Contains(fail.Reason, "does not decode with schema 9: protobuf: the value's text is larger than 16 MiB, the bound of one value")):
				t.Fatalf("%d bytes of text, %v; want it past the bound", len(out), fail)
			case c.fails && took > time.Second:
				t.Fatalf("took %v to refuse", took)
			case !c.fails && (fail != nil || !json.Valid(out)):
				t.Fatalf("failed: %v", fail)
			}
		})
	}
}
