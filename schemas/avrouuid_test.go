package schemas

import (
	"strings"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestAvroUUIDIsOne: a string of logicalType uuid is typed UUID in the
// view, where a text that is not one read as NULL with no error ("not-a-uuid"
// decoded to "not-a-uuid", the field NULL, value_error NULL). Now such a
// value fails alone, with the reason; the forms SQL's UUID reads decode.
func TestAvroUUIDIsOne(t *testing.T) {
	str := func(s string) []byte { w := avro.NewWriter(nil, 16); w.WriteString(s); return w.Buffer() }
	dir := t.TempDir()
	if err := writeFile(dir, "1.avsc", `{"type":"string","logicalType":"uuid"}`); err != nil {
		t.Fatal(err)
	}
	r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, why string }{
		{"6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a", ""},
		{"6F1C2B9E-4D3A-4C8E-9A5B-2F1E0D9C8B7A", ""},
		{"6f1c2b9e4d3a4c8e9a5b2f1e0d9c8b7a", ""},
		{"{6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a}", ""},
		{"not-a-uuid", `uuid "not-a-uuid" is not a UUID`},
		{"", `uuid "" is not a UUID`},
		{"6f1c2b9e4-d3a-4c8e-9a5b-2f1e0d9c8b7a", "is not a UUID"},
		{"6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7g", "is not a UUID"},
		{"6f1c2b9e-4d3a-4c8e-9a5b-2f1e0d9c8b7a ", "is not a UUID"},
		{strings.Repeat("x", 100), `(100 bytes) is not a UUID`},
	} {
		var vf catalog.ValueFields
		out, _, _, fail := r.DecodeFields(t.Context(), wireOf(1, str(c.in)), nil, &vf)
		switch {
		case c.why == "" && (fail != nil || string(out) != `"`+c.in+`"`):
			t.Errorf("%q: got %s, %v", c.in, out, fail)
		case c.why != "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
			t.Errorf("%q: got %s, %v; want a failure saying %q", c.in, out, fail, c.why)
		}
	}
}
