package display

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/internal/units"
)

// TimeLayout is how a time is written as text: UTC, to the microsecond
// (DuckDB's precision), trailing zeros of the fraction trimmed, so a Kafka
// timestamp (milliseconds) shows its milliseconds and no more. It is
// internal/units' (which the cgo-free packages use).
const TimeLayout = units.TimeLayout

// Null is how the text formats write NULL: a null key and an empty key
// differ.
const Null = "NULL"

// Text writes a value as the text formats (a table, the line format, a
// notebook, the SQL page) show it. See the package doc for the rules.
func Text(v any) string { return text(v, Null) }

// Field writes a value for a CSV field: as Text, but NULL is the empty
// field and a string is written as it is (CSV quotes what it must; a
// machine reads it, not a terminal).
func Field(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return text(v, "")
}

func text(v any, null string) string {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return String(x)
	case []byte:
		return Blob(x)
	case time.Time:
		return Time(x)
	case Date:
		return x.String()
	case float64:
		return Float(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return fmt.Sprint(x)
	case *big.Int:
		return x.String()
	case duckdb.Decimal:
		return x.String()
	case duckdb.Interval:
		return Interval(x)
	case duckdb.UUID:
		return x.String()
	case duckdb.Union:
		return text(x.Value, null)
	case json.Number:
		return x.String()
	}
	b, err := marshal(encodable(v, true))
	if err != nil {
		return String(fmt.Sprint(v))
	}
	return string(b)
}

// Time writes a time in UTC, trailing zeros of the fraction trimmed:
// units.Time, and the nanoseconds of a TIMESTAMP_NS where it has them
// (units' layout stops at the microsecond, which dropped them).
func Time(t time.Time) string {
	if t.Nanosecond()%1000 != 0 {
		return t.UTC().Format(timeLayoutNS)
	}
	return units.Time(t)
}

const timeLayoutNS = "2006-01-02 15:04:05.999999999Z07:00"

// Float writes the shortest text that reads back to the same float.
func Float(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Interval writes a DuckDB interval as DuckDB does: "1 year 2 months 3
// days 04:05:06.5", "-01:30:00", a zero interval "00:00:00". (Go's
// time.Duration, used before, overflowed past 292 years of microseconds:
// INTERVAL '3000000 hours' read -2124095h34m33.709551616s.)
func Interval(x duckdb.Interval) string {
	var parts []string
	unit := func(n int64, name string) {
		if n == 0 {
			return
		}
		if n != 1 && n != -1 {
			name += "s"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, name))
	}
	unit(int64(x.Months)/12, "year")
	unit(int64(x.Months)%12, "month")
	unit(int64(x.Days), "day")
	if x.Micros != 0 || len(parts) == 0 {
		sign, us := "", uint64(x.Micros)
		if x.Micros < 0 {
			sign, us = "-", uint64(-(x.Micros+1))+1
		}
		const hour = 3600 * 1000000
		t := fmt.Sprintf("%s%02d:%02d:%02d", sign, us/hour, us%hour/60000000, us%60000000/1000000)
		if frac := us % 1000000; frac != 0 {
			t += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// Blob writes bytes as text with \xHH escapes, like the DuckDB CLI: every
// byte outside printable ASCII, and the backslash, is escaped.
func Blob(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7f && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02X", c)
		}
	}
	return sb.String()
}

// String writes a string so a terminal or a page shows it and acts on
// none of it: control characters and bytes that are not UTF-8 become
// \xHH (\n, \t and \r as those); the rest is the string's own.
func String(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, "\\x%02X", s[i])
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, "\\x%02X", r)
		case r >= 0x80 && r < 0xa0: // C1: 0x9b is a terminal's CSI
			fmt.Fprintf(&sb, "\\u%04X", r)
		default:
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	return sb.String()
}

// JSON returns what encoding/json writes faithfully for a DuckDB value:
// BLOBs as base64, numbers as numbers (huge ones and decimals exact),
// times as RFC 3339, NaN and infinities as strings, maps with their keys
// in order.
func JSON(v any) any { return encodable(v, false) }

// Object is a JSON object that keeps its keys in the order given.
type Object struct {
	Keys []string
	Vals []any
}

// MarshalJSON writes the object's keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.Vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

func marshal(v any) ([]byte, error) { return json.Marshal(v) }

// encodable is JSON; with text, BLOBs inside a nested value (a header's
// value) are their text when they are UTF-8, and \xHH escapes (Blob)
// otherwise: what the text formats show.
func encodable(v any, text bool) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		if text {
			if utf8.Valid(x) {
				return string(x)
			}
			return Blob(x)
		}
		return base64.StdEncoding.EncodeToString(x)
	case time.Time:
		if text {
			return Time(x)
		}
		return x.UTC().Format(time.RFC3339Nano)
	case Date:
		return x.String()
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return json.Number(x.String())
	case duckdb.Decimal:
		return json.Number(x.String())
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case float32:
		return encodable(float64(x), text)
	case duckdb.Interval:
		if text {
			return Interval(x)
		}
		return fmt.Sprintf("%d months %d days %d us", x.Months, x.Days, x.Micros)
	case duckdb.UUID:
		return x.String()
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		o := Object{Keys: keys, Vals: make([]any, len(keys))}
		for i, k := range keys {
			o.Vals[i] = encodable(x[k], text)
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encodable(e, text)
		}
		return out
	case duckdb.Union:
		return encodable(x.Value, text)
	case duckdb.OrderedMap:
		keys, vals := x.Keys(), x.Values()
		o := Object{Keys: make([]string, len(keys)), Vals: make([]any, len(keys))}
		for i, k := range keys {
			if s, ok := k.(string); ok {
				o.Keys[i] = s
			} else {
				o.Keys[i] = Text(k)
			}
			if i < len(vals) {
				o.Vals[i] = encodable(vals[i], text)
			}
		}
		return o
	case duckdb.Map:
		out := map[string]any{}
		for k, e := range x {
			out[fmt.Sprint(k)] = encodable(e, text)
		}
		return out
	}
	return v
}
