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
