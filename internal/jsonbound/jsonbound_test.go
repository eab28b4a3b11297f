package jsonbound

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	obj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	arr := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	members := func(n int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"":0`)
		}
		b.WriteByte('}')
		return b.String()
	}
	for _, c := range []struct {
		name, v string
		over    string // "" within bounds, else a word of the reason
	}{
		{"ordinary", `{"event_id":"e1","n":[1,2,{"x":null}]}`, ""},
		{"object at the bound", obj(MaxDepth), ""},
		{"object past the bound", obj(MaxDepth + 1), "deeper"},
		{"array at the bound", arr(MaxDepth), ""},
		{"array past the bound", arr(MaxDepth + 1), "deeper"},
		{"deep 100000", arr(100_000), "deeper"},
		{"brackets inside a string", `{"a":"` + strings.Repeat("[{", 10_000) + `"}`, ""},
		{"escaped quote keeps the string open", `{"a":"\"` + strings.Repeat("[", 1000) + `"}`, ""},
		{"colons inside strings", `{"a":"` + strings.Repeat(":", 20_000) + `"}`, ""},
		{"members at the bound", members(MaxMembers), ""},
		{"members past the bound", members(MaxMembers + 1), "members"},
		{"too large", `"` + strings.Repeat("x", MaxBytes) + `"`, "larger"},
		{"not JSON", `}}}]]]{{`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Check([]byte(c.v))
			if (got == "") != (c.over == "") || !strings.Contains(got, c.over) {
				t.Fatalf("Check = %q; want %q", got, c.over)
			}
			if got != "" && len(c.v) < MinBytesPastBound {
				t.Fatalf("a value of %d bytes passed a bound, under MinBytesPastBound %d", len(c.v), MinBytesPastBound)
			}
		})
	}
}

// FuzzCheck holds MinBytesPastBound: nothing shorter passes a bound.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,3]}`))
	f.Add([]byte(strings.Repeat("[", 300)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r := Check(b); r != "" && len(b) < MinBytesPastBound && len(b) <= MaxBytes {
			// Openers alone (invalid JSON) may pass MaxDepth below the
			// minimum for valid JSON; they are never valid, so the
			// parser refuses them anyway. Only valid JSON must hold it.
			if validJSON(b) {
				t.Fatalf("%d bytes of valid JSON passed a bound: %s", len(b), r)
			}
		}
	})
}

func validJSON(b []byte) bool { return json.Valid(b) }
