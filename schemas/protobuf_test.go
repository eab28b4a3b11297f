package schemas

import (
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestProtobufMessageIndexFailures: a Protobuf value whose message index
// is not one fails with a reason that says so. Before, a count past 64
// said "read message index: registration is missing for encode/decode"
// (sr's error for an unregistered schema), and a payload that ended inside
// the index "read message index: EOF".
func TestProtobufMessageIndexFailures(t *testing.T) {
	r := resolverWith(t, &catalog.Schema{ID: 4, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\nmessage M { string s = 1; message N { int64 n = 1; } }\n"})
	cases := []struct {
		name  string
		index []byte // after the header, before the message
		msg   []byte
		why   string // "" decodes
	}{
		{"the shortcut for [0]", []byte{0}, []byte{10, 1, 'z'}, ""},
		{"[0] spelled out", []byte{2, 0}, []byte{10, 1, 'z'}, ""},
		{"[0, 0]: a nested message", []byte{4, 0, 0}, []byte{8, 7}, ""},
		{"a count of a billion", []byte{0x80, 0xa8, 0xd6, 0xb9, 0x07}, make([]byte, 10), "message index of 1000000000 messages: not a message index (0 to 64 nested messages): is the value Protobuf?"},
		{"a count of 65", []byte{0x82, 0x01}, nil, "message index of 65 messages"},
		{"a negative count", []byte{1}, []byte{10, 1, 'z'}, "message index of -1 messages"},
		{"nothing after the header", nil, nil, "the payload ends inside its message index"},
		{"a count, then nothing", []byte{4, 0}, nil, "the payload ends inside its message index"},
		{"a varint that never ends", []byte{2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, nil, "the message index holds a varint past 64 bits"},
		{"a negative index", []byte{2, 1}, []byte{10, 1, 'z'}, "message index -1 is not in the schema"},
		{"an index past the messages", []byte{2, 4}, []byte{10, 1, 'z'}, "message index [2] is not in the schema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			value := append(append(wire(4)[:5:5], c.index...), c.msg...)
			out, _, ok, fail := r.Decode(t.Context(), value, nil)
			if !ok {
				t.Fatal("not taken as the wire format")
			}
			switch {
			case c.why == "" && fail != nil:
				t.Fatalf("failed: %s", fail.Reason)
			case c.why == "" && len(out) == 0:
				t.Fatal("decoded to nothing")
			case c.why != "" && fail == nil:
				t.Fatalf("decoded %s, want %q", out, c.why)
			case c.why != "" && !strings.Contains(fail.Reason, "does not decode with schema 4: "+c.why):
				t.Fatalf("reason %q, want %q", fail.Reason, c.why)
			}
		})
	}
}

// TestProtobufUnknownFields: a field the schema does not name (field 99 =
// 42) was left out of the decoded value with no word, the value read as if
// it were absent. Now the value fails alone, naming where and which.
func TestProtobufUnknownFields(t *testing.T) {
	r := resolverWith(t, &catalog.Schema{ID: 5, Type: catalog.SchemaProtobuf, Schema: "syntax = \"proto3\";\npackage p;\nmessage M { string s = 1; N n = 2; repeated N l = 3; map<string, N> m = 4; }\nmessage N { int64 k = 1; }\n"})
	f99 := []byte{0x98, 0x06, 42} // field 99, varint 42
	cases := []struct {
		name string
		msg  []byte
		want string // the text, or "" for a failure
		why  string
	}{
		{"known fields only", []byte{10, 1, 'z'}, `{"s":"z", "n":null, "l":[], "m":{}}`, ""},
		{"field 99 = 42", append([]byte{10, 1, 'z'}, f99...), "", "p.M holds fields its schema does not name (numbers 99; 3 bytes)"},
		{"in a nested message", append([]byte{0x12, 3}, f99...), "", "p.M.n holds fields its schema does not name (numbers 99"},
		{"in a list's element", append([]byte{0x1a, 0}, append([]byte{0x1a, 3}, f99...)...), "", "p.M.l[1] holds fields"},
		{"in a map's value", append([]byte{0x22, 8, 10, 1, 'a', 0x12, 3}, f99...), "", `p.M.m["a"] holds fields`},
		{"two fields", append(append([]byte{10, 1, 'z', 0xa0, 0x06, 1}, f99...), 0x98, 0x06, 1), "", "numbers 100, 99; 9 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			value := append(wire(5)[:5:5], 0)
			value = append(value, c.msg...)
			out, _, ok, fail := r.Decode(t.Context(), value, nil)
			switch {
			case !ok:
				t.Fatal("not taken as the wire format")
			case c.want != "" && (fail != nil || strings.ReplaceAll(string(out), " ", "") != strings.ReplaceAll(c.want, " ", "")):
				t.Fatalf("got %s, %v; want %s", out, fail, c.want)
			case c.want == "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
				t.Fatalf("got %s, %v; want a failure saying %q", out, fail, c.why)
			}
		})
	}
}
