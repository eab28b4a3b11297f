package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// spans says where each top-level field of a flat JSON object of scalars
// (as the tests write it: no nesting, no commas or colons inside strings)
// lies in it.
func spans(t *testing.T, text string) []int32 {
	t.Helper()
	var out []int32
	i := 1 // after {
	for i < len(text)-1 {
		colon := strings.IndexByte(text[i:], ':') + i
		end := strings.IndexByte(text[colon:], ',')
		if end < 0 {
			end = len(text) - 1
		} else {
			end += colon
		}
		out = append(out, int32(colon+1), int32(end))
		i = end + 1
	}
	return out
}

// TestTypedStateColumns: which column each field gets in a file, across
// values of several plans, and which fields end up untyped and why.
func TestTypedStateColumns(t *testing.T) {
	many := &FieldPlan{}
	var manyText []string
	for i := range TypedStrings + 2 {
		many.Names = append(many.Names, fmt.Sprintf("s%d", i))
		many.Kinds = append(many.Kinds, KindString)
		manyText = append(manyText, fmt.Sprintf(`"s%d":"v%d"`, i, i))
	}
	v1 := &FieldPlan{Names: []string{"id", "n", "x", "ok", "rec"}, Kinds: []Kind{KindString, KindInt, KindFloat, KindBool, KindNone}}
	v2 := &FieldPlan{Names: []string{"id", "n", "x"}, Kinds: []Kind{KindString, KindFloat, KindFloat}} // n changed type
	for _, c := range []struct {
		name        string
		values      []string
		plans       []*FieldPlan
		wantCols    map[string]string
		wantUntyped []string
		wantOpaque  bool
		check       func(t *testing.T, rows []TypedRow)
	}{
		{
			name:     "one plan",
			values:   []string{`{"id":"a\"b","n":-7,"x":"NaN","ok":false,"rec":null}`, `{"id":"","n":null,"x":-0.0,"ok":true,"rec":null}`},
			plans:    []*FieldPlan{v1, v1},
			wantCols: map[string]string{"id": "typed_s0", "n": "typed_i0", "x": "typed_f0", "ok": "typed_b0"},
			// rec is a record: never typed
			wantUntyped: []string{"rec"},
			check: func(t *testing.T, rows []TypedRow) {
				if string(rows[0].S0) != `a"b` || *rows[0].I0 != -7 || *rows[0].F0 == *rows[0].F0 || *rows[0].B0 {
					t.Errorf("row 0: %q %v %v %v", rows[0].S0, *rows[0].I0, *rows[0].F0, *rows[0].B0)
				}
				if rows[1].S0 == nil || len(rows[1].S0) != 0 || rows[1].I0 != nil || !*rows[1].B0 {
					t.Errorf("row 1: empty string must not be NULL, null int must be: %q %v", rows[1].S0, rows[1].I0)
				}
			},
		},
		{
			name:        "a type changed between versions",
			values:      []string{`{"id":"a","n":1,"x":1.5,"ok":true,"rec":null}`, `{"id":"b","n":2.5,"x":2}`, `{"id":"c","n":3,"x":3.5,"ok":null,"rec":null}`},
			plans:       []*FieldPlan{v1, v2, v1},
			wantCols:    map[string]string{"id": "typed_s0", "n": "typed_i0", "x": "typed_f0", "ok": "typed_b0"},
			wantUntyped: []string{"n", "rec"},
			check: func(t *testing.T, rows []TypedRow) {
				if string(rows[2].S0) != "c" || *rows[2].F0 != 3.5 {
					t.Errorf("row 2 after the plans' columns were recomputed: %q %v", rows[2].S0, rows[2].F0)
				}
			},
		},
		{
			name:        "more fields than columns",
			values:      []string{"{" + strings.Join(manyText, ",") + "}"},
			plans:       []*FieldPlan{many},
			wantUntyped: []string{fmt.Sprintf("s%d", TypedStrings), fmt.Sprintf("s%d", TypedStrings+1)},
		},
		{
			name:        "a value that does not parse as its kind",
			values:      []string{`{"id":"a","n":1e3,"x":1,"ok":1,"rec":null}`},
			plans:       []*FieldPlan{v1},
			wantCols:    map[string]string{"id": "typed_s0", "n": "typed_i0", "x": "typed_f0", "ok": "typed_b0"},
			wantUntyped: []string{"n", "ok", "rec"},
		},
		{
			name:       "a decoded value without a plan",
			values:     []string{`{"id":"a"}`},
			plans:      []*FieldPlan{nil},
			wantOpaque: true,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTypedState()
			rows := make([]Row, len(c.values))
			fields := make([]ValueFields, len(c.values))
			for i, v := range c.values {
				rows[i].ValueDecoded = []byte(v)
				fields[i].Plan = c.plans[i]
				if c.plans[i] != nil {
					fields[i].Spans = spans(t, v)
				}
			}
			built := slices.Clone(s.build(rows, fields))
			e := s.entry()
			if c.wantCols == nil && len(e.Columns) > 0 && c.name != "more fields than columns" {
				t.Errorf("columns %v, want none", e.Columns)
			}
			for f, col := range c.wantCols {
				if e.Columns[f] != col {
					t.Errorf("field %s in %q, want %q (all: %v)", f, e.Columns[f], col, e.Columns)
				}
			}
			if !slices.Equal(e.Untyped, c.wantUntyped) {
				t.Errorf("untyped %v, want %v", e.Untyped, c.wantUntyped)
			}
			if e.Opaque != c.wantOpaque {
				t.Errorf("opaque %v, want %v", e.Opaque, c.wantOpaque)
			}
			if c.check != nil {
				c.check(t, built)
			}
		})
	}
}
