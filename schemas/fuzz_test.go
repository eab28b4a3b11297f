package schemas

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// FuzzSchemaText: any schema text, of any type, a registry or a folder
// could hand over, with any payload: the resolver compiles it or fails
// that id with a Failure whose cause is typed ErrBadSchema, and never
// panics or recurses without bound.
func FuzzSchemaText(f *testing.F) {
	for _, s := range []struct {
		typ     uint8
		text    string
		payload []byte
	}{
		{0, `"string"`, []byte{2, 'x'}},
		{0, `{"type":"record","name":"R","fields":[{"name":"a","type":["null","long"]},{"name":"m","type":{"type":"map","values":"string"}}]}`, []byte{2, 4, 2, 2, 'k', 2, 'v', 0}},
		{0, `{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`, []byte{2, 2, 0}},
		{0, deepAvro(40), []byte{0}},
		{0, `{"type":"enum","name":"E","symbols":["A","B"]}`, []byte{2}},
		{1, "syntax = \"proto3\";\nmessage M { string s = 1; repeated M m = 2; }\n", []byte{0, 10, 1, 'z'}},
		{1, "syntax = \"proto2\";\nmessage M { optional group G = 1 { optional int32 x = 2; } }\n", []byte{0}},
		{2, `{"type":"object"}`, []byte(`{"a":1}`)},
	} {
		f.Add(s.typ, s.text, s.payload)
	}
	types := []string{catalog.SchemaAvro, catalog.SchemaProtobuf, catalog.SchemaJSON}
	f.Fuzz(func(t *testing.T, typ uint8, text string, payload []byte) {
		// As a --schema file would give it: no folder, nothing written.
		r, err := NewResolver(t.Context(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r.local = map[int]*catalog.Schema{1: {ID: 1, Type: types[int(typ)%len(types)], Schema: text}}
		value := append([]byte{0, 0, 0, 0, 1}, payload...)
		out, _, ok, fail := r.Decode(context.Background(), value, nil)
		switch {
		case !ok:
			t.Fatal("a wire-format value taken for none")
		case fail != nil && strings.Contains(fail.Reason, "does not compile") && !errors.Is(fail, ErrBadSchema):
			t.Fatalf("a schema that does not compile, untyped: %v", fail.Err)
		case fail != nil && len(fail.Reason) > 2*maxReasonBytes:
			t.Fatalf("a reason of %d bytes", len(fail.Reason))
		case fail == nil && out == nil:
			t.Fatal("decoded to nothing")
		}
	})
}
