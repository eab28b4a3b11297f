package display

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Typed gives a value scanned from a column of DuckDB type dbType
// (sql.ColumnType.DatabaseTypeName) the value the column's type says, where
// duckdb-go lost it, at the top level and inside a LIST, an ARRAY, a
// STRUCT, a MAP's values or a UNION:
//
//   - a UUID (16 bytes from the driver) is a duckdb.UUID, shown as its text
//     (it was a BLOB: base64 in JSON, \xHH escapes as text);
//   - a TIME is its text, 12:00:00 (the driver gives a time on 0001-01-01);
//     a TIMETZ is its text with its offset, 12:00:00+01;
//   - a DATE is a Date, shown as 2026-12-07 (the driver gives a
//     time.Time at midnight UTC, which read as 2026-12-07 00:00:00Z);
//   - a DATE or TIMESTAMP of any precision that is infinity or -infinity
//     is that word (the driver gives the instant of its sentinel,
//     294247-01-10 04:00:54.775807 for 'infinity'::TIMESTAMP).
//
// Everything else is returned as it is.
func Typed(dbType string, v any) any {
	if v == nil {
		return nil
	}
	if !strings.ContainsAny(dbType, "([") {
		return scalar(dbType, v)
	}
	if !strings.Contains(dbType, "UUID") && !strings.Contains(dbType, "TIME") && !strings.Contains(dbType, "DATE") {
		return v // a topic's headers, STRUCT(key VARCHAR, key_raw BLOB, value BLOB)[], on every row
	}
	t := parsed(dbType)
	if t == nil {
		return v
	}
	return t.apply(v, 0)
}

// parsedTypes keeps the types parsed, so a nested column is parsed once
// and not on every row; at most maxParsedTypes of them.
var (
	parsedMu    sync.Mutex
	parsedTypes = map[string]*dbType{}
)

const maxParsedTypes = 1024

func parsed(s string) *dbType {
	parsedMu.Lock()
	t, ok := parsedTypes[s]
	parsedMu.Unlock()
	if ok {
		return t
	}
	t, good := parseType(s, 0)
	if !good {
		t = nil
	}
	parsedMu.Lock()
	if len(parsedTypes) < maxParsedTypes {
		parsedTypes[s] = t
	}
	parsedMu.Unlock()
	return t
}

// maxTypeDepth bounds the nesting of a type walked: deeper values are left
// as the driver gave them.
const maxTypeDepth = 64

// dbType is a DuckDB type name parsed: a base type, or a list of elem, or
// a struct/union of fields, or a map of key to elem.
type dbType struct {
	base   string
	list   bool
	mapOf  bool
	union  bool
	elem   *dbType
	names  []string
	fields []*dbType
}

func parseType(s string, depth int) (*dbType, bool) {
	s = strings.TrimSpace(s)
	if depth > maxTypeDepth || s == "" {
		return nil, false
	}
	if strings.HasSuffix(s, "]") {
		if i := openBracket(s); i > 0 {
			e, ok := parseType(s[:i], depth+1)
			return &dbType{list: true, elem: e}, ok
		}
		return nil, false
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return &dbType{base: s}, true
	}
	head, inner := strings.ToUpper(strings.TrimSpace(s[:open])), s[open+1:len(s)-1]
	switch head {
	case "MAP":
		parts := splitTop(inner)
		if len(parts) != 2 {
			return nil, false
		}
		e, ok := parseType(parts[1], depth+1)
		return &dbType{mapOf: true, elem: e}, ok
	case "STRUCT", "UNION":
		t := &dbType{union: head == "UNION"}
		for _, f := range splitTop(inner) {
			name, rest, ok := fieldName(strings.TrimSpace(f))
			if !ok {
				return nil, false
			}
			ft, ok := parseType(rest, depth+1)
			if !ok {
				return nil, false
			}
			t.names, t.fields = append(t.names, name), append(t.fields, ft)
		}
		return t, true
	}
	return &dbType{base: s}, true // DECIMAL(18,3), ENUM(...), VARCHAR(10)
}

// openBracket finds the '[' that opens s's trailing [] or [N].
func openBracket(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ']':
			depth++
		case '[':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits s at the commas outside parentheses, brackets and
// double quotes.
func splitTop(s string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// fieldName reads a struct field's name, "quoted" ("" for a quote) or
// bare, and returns the type after it.
func fieldName(f string) (string, string, bool) {
	if !strings.HasPrefix(f, `"`) {
		name, rest, ok := strings.Cut(f, " ")
		return name, rest, ok
	}
	var b strings.Builder
	for i := 1; i < len(f); i++ {
		if f[i] != '"' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String(), f[i+1:], true
	}
	return "", "", false
}

func (t *dbType) apply(v any, depth int) any {
	if v == nil || t == nil || depth > maxTypeDepth {
		return v
	}
	switch {
	case t.list:
		x, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = t.elem.apply(e, depth+1)
		}
		return out
	case t.mapOf:
		x, ok := v.(duckdb.OrderedMap)
		if !ok {
			return v
		}
		var out duckdb.OrderedMap
		vals := x.Values()
		for i, k := range x.Keys() {
			if i < len(vals) {
				out.Set(k, t.elem.apply(vals[i], depth+1))
			}
		}
		return out
	case t.union:
		x, ok := v.(duckdb.Union)
		if !ok {
			return v
		}
		for i, n := range t.names {
			if n == x.Tag {
				x.Value = t.fields[i].apply(x.Value, depth+1)
			}
		}
		return x
	case t.fields != nil:
		x, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		for i, n := range t.names {
			if e, ok := x[n]; ok {
				out[n] = t.fields[i].apply(e, depth+1)
			}
		}
		return out
	}
	return scalar(t.base, v)
}

// scalar is Typed for a type that holds no other.
func scalar(dbType string, v any) any {
	switch b := v.(type) {
	case []byte:
		if dbType == "UUID" && len(b) == len(duckdb.UUID{}) {
			var u duckdb.UUID
			copy(u[:], b)
			return u
		}
	case time.Time:
		switch dbType {
		case "TIME":
			return b.Format("15:04:05.999999")
		case "TIMETZ", "TIME WITH TIME ZONE":
			return b.Format("15:04:05.999999") + offset(b)
		case "DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
			if w, ok := infinity(b); ok {
				return w
			}
			if dbType == "DATE" {
				return Date(b)
			}
		}
	}
	return v
}

// offset writes a time's zone offset as DuckDB does: +01, -03:30.
func offset(t time.Time) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := fmt.Sprintf("%s%02d", sign, off/3600)
	if m, sec := off%3600/60, off%60; m != 0 || sec != 0 {
		s += fmt.Sprintf(":%02d", m)
		if sec != 0 {
			s += fmt.Sprintf(":%02d", sec)
		}
	}
	return s
}

// infinities are the instants duckdb-go gives for DuckDB's infinity and
// -infinity: the largest and smallest value of each precision's count.
var infinities = func() map[time.Time]string {
	m := map[time.Time]string{}
	add := func(pos, neg time.Time) {
		m[pos.UTC()] = "infinity"
		m[neg.UTC()] = "-infinity"
	}
	add(time.UnixMicro(math.MaxInt64), time.UnixMicro(-math.MaxInt64))
	add(time.UnixMilli(math.MaxInt64), time.UnixMilli(-math.MaxInt64))
	add(time.Unix(0, math.MaxInt64), time.Unix(0, -math.MaxInt64))
	add(time.Unix(math.MaxInt64, 0), time.Unix(-math.MaxInt64, 0))
	epoch := time.Unix(0, 0).UTC()
	add(epoch.AddDate(0, 0, math.MaxInt32), epoch.AddDate(0, 0, -math.MaxInt32))
	return m
}()

func infinity(t time.Time) (string, bool) {
	w, ok := infinities[t.UTC()]
	return w, ok
}

// Date is a DATE value: a day, with no time of day. Its text and its JSON
// are 2026-12-07, as DuckDB writes it.
type Date time.Time

// Time is the day's midnight UTC, as the driver gave it (a chart's axis).
func (d Date) Time() time.Time { return time.Time(d) }

func (d Date) String() string { return time.Time(d).UTC().Format(time.DateOnly) }

// MarshalText makes a Date its text in JSON and wherever text is asked.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// AsTime is v as a time when it is one: a time.Time, or a Date's midnight.
func AsTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case Date:
		return x.Time(), true
	}
	return time.Time{}, false
}
