package schemas

import (
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestJSONSchemaPayloadsTheEngineRefuses: a JSON Schema payload is kept as
// decoded text only when the query engine reads it as the JSON it is.
// Before, a payload with bytes that are not UTF-8 was decoded, and its data
// file could not be read at all ("Invalid string encoding found in Parquet
// file": sql and check exit 9 for the whole partition); one with an
// unpaired surrogate escape ("\ud800") was decoded, and read as a NULL
// value with no value_error. Each now fails that value with its reason.
func TestJSONSchemaPayloadsTheEngineRefuses(t *testing.T) {
	r := resolverWith(t, &catalog.Schema{ID: 3, Type: catalog.SchemaJSON, Schema: `{"type":"object"}`})
	cases := []struct {
		name    string
		payload string
		err     error // nil: decoded as it is
	}{
		{"plain", `{"s":"ok"}`, nil},
		{"not UTF-8 in a string", "{\"s\":\"bad\xff\xfe\"}", errNotUTF8},
		{"not UTF-8 outside a string", "{\"s\":1}\xc3", errNotUTF8},
		{"truncated UTF-8", "{\"s\":\"\xe2\x82\"}", errNotUTF8},
		{"lone high surrogate", `{"s":"a\ud800b"}`, errLoneSurrogate},
		{"lone high surrogate at the end", `{"s":"\ud800"}`, errLoneSurrogate},
		{"lone low surrogate", `{"s":"\udc00"}`, errLoneSurrogate},
		{"high then not low", `{"s":"\ud800\u0041"}`, errLoneSurrogate},
		{"high then high", `{"s":"\ud800\ud800"}`, errLoneSurrogate},
		{"lone surrogate in a key", `{"\udfff":1}`, errLoneSurrogate},
		{"a pair", `{"s":"\ud83d\ude00"}`, nil},
		{"a pair in capitals", `{"s":"\uD83D\uDE00 \u00e9"}`, nil},
		{"an escaped backslash before u", `{"s":"\\ud800"}`, nil},
		{"NUL escape", `{"s":"\u0000"}`, nil},
		{"UTF-8 text", `{"s":"Zoë €"}`, nil},
		{"not JSON", `{"s":`, errNotJSON},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			value := append(wire(3)[:5:5], c.payload...)
			out, _, ok, fail := r.Decode(t.Context(), value, nil)
			if !ok {
				t.Fatal("not taken as the wire format")
			}
			if c.err == nil {
				if fail != nil {
					t.Fatalf("failed: %s", fail.Reason)
				}
				if string(out) != c.payload {
					t.Fatalf("decoded %q, want the payload", out)
				}
				return
			}
			if fail == nil {
				t.Fatalf("decoded %q, want a failure", out)
			}
			if !errors.Is(fail, c.err) || !strings.Contains(fail.Reason, "does not decode with schema 3: "+c.err.Error()) {
				t.Fatalf("reason %q (%v), want %q", fail.Reason, fail.Err, c.err)
			}
		})
	}
}
