package schemas

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/hamba/avro/v2"
)

// avroDecoder reads Avro values of one writer schema.
type avroDecoder struct {
	schema avro.Schema
}

func newAvroDecoder(text string, refs []string) (*avroDecoder, error) {
	// Referenced schemas define named types the schema uses: parse them
	// first into the same cache.
	cache := &avro.SchemaCache{}
	for _, r := range refs {
		if _, err := avro.ParseWithCache(r, "", cache); err != nil {
			return nil, fmt.Errorf("parse referenced avro schema: %w", err)
		}
	}
	s, err := avro.ParseWithCache(text, "", cache)
	if err != nil {
		return nil, fmt.Errorf("parse avro schema: %w", err)
	}
	return &avroDecoder{schema: s}, nil
}

func (d *avroDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	r := avro.NewReader(nil, 0)
	r.Reset(payload)
	v := r.ReadNext(d.schema)
	if r.Error != nil {
		return nil, r.Error
	}
	return appendAvroJSON(buf, d.schema, v)
}

// appendAvroJSON writes v, read with schema s, as JSON: records and maps as
// objects, a union of null and one type as that type or null, other unions
// as {"branch": value} (Avro's JSON encoding), enums and uuids as strings,
// bytes and fixed as base64, decimals as exact decimal strings, timestamps
// as RFC 3339 text, dates as YYYY-MM-DD, times of day as HH:MM:SS.ffffff.
func appendAvroJSON(b []byte, s avro.Schema, v any) ([]byte, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if v == nil {
		return append(b, "null"...), nil
	}
	switch s := s.(type) {
	case *avro.RecordSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("record %s: got %T", s.FullName(), v)
		}
		b = append(b, '{')
		for i, f := range s.Fields() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.Name())
			b = append(b, ':')
			var err error
			if b, err = appendAvroJSON(b, f.Type(), m[f.Name()]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case *avro.ArraySchema:
		a, _ := v.([]any)
		b = append(b, '[')
		for i, e := range a {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendAvroJSON(b, s.Items(), e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case *avro.MapSchema:
		m, _ := v.(map[string]any)
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(m)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendAvroJSON(b, s.Values(), m[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case *avro.UnionSchema:
		m, ok := v.(map[string]any)
		if !ok || len(m) != 1 {
			return nil, fmt.Errorf("union: got %T", v)
		}
		for name, e := range m {
			branch := unionBranch(s, name)
			if branch == nil {
				return nil, fmt.Errorf("union: no branch %q", name)
			}
			if nullable(s) {
				return appendAvroJSON(b, branch, e)
			}
			b = append(b, '{')
			b = appendString(b, name)
			b = append(b, ':')
			b, err := appendAvroJSON(b, branch, e)
			if err != nil {
				return nil, err
			}
			return append(b, '}'), nil
		}
	}
	return appendAvroScalar(b, s, v)
}

func appendAvroScalar(b []byte, s avro.Schema, v any) ([]byte, error) {
	var logical avro.LogicalType
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		logical = ls.Logical().Type()
	}
	switch v := v.(type) {
	case bool:
		return strconv.AppendBool(b, v), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float32:
		return appendFloat(b, float64(v), 32), nil
	case float64:
		return appendFloat(b, v, 64), nil
	case string:
		return appendString(b, v), nil
	case []byte:
		return appendString(b, base64.StdEncoding.EncodeToString(v)), nil
	case *big.Rat:
		scale := 0
		if d, ok := s.(avro.LogicalTypeSchema).Logical().(*avro.DecimalLogicalSchema); ok {
			scale = d.Scale()
		}
		return appendString(b, v.FloatString(scale)), nil
	case time.Time:
		switch logical {
		case avro.Date:
			return appendString(b, v.UTC().Format(time.DateOnly)), nil
		case avro.LocalTimestampMillis, avro.LocalTimestampMicros:
			return appendString(b, v.UTC().Format("2006-01-02T15:04:05.999999")), nil
		}
		return appendString(b, v.UTC().Format(time.RFC3339Nano)), nil
	case time.Duration:
		// time-millis / time-micros: the time of day.
		us := v.Microseconds()
		return appendString(b, fmt.Sprintf("%02d:%02d:%02d.%06d", us/3600e6, us/60e6%60, us/1e6%60, us%1e6)), nil
	case avro.LogicalDuration:
		return fmt.Appendf(b, `{"months":%d,"days":%d,"milliseconds":%d}`, v.Months, v.Days, v.Milliseconds), nil
	}
	// fixed: hamba/avro reads it as a [size]byte.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		out := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(out), rv)
		return appendString(b, base64.StdEncoding.EncodeToString(out)), nil
	}
	return nil, fmt.Errorf("avro %s: unexpected %T", s.Type(), v)
}

// nullable reports whether u is null and one other type: read as that
// type, or null.
func nullable(u *avro.UnionSchema) bool {
	ts := u.Types()
	return len(ts) == 2 && (ts[0].Type() == avro.Null || ts[1].Type() == avro.Null)
}

// unionBranch finds the branch hamba/avro names name: a named type's full
// name, else the type and its logical type ("long.timestamp-millis").
func unionBranch(u *avro.UnionSchema, name string) avro.Schema {
	for _, t := range u.Types() {
		s := t
		if ref, ok := s.(*avro.RefSchema); ok {
			s = ref.Schema()
		}
		n := string(s.Type())
		if ns, ok := s.(avro.NamedSchema); ok {
			n = ns.FullName()
		} else if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
			n += "." + string(ls.Logical().Type())
		}
		if n == name {
			return t
		}
	}
	return nil
}

// appendFloat writes a JSON number; NaN and the infinities, which JSON has
// no number for, are written as strings.
func appendFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendString(b, strconv.FormatFloat(f, 'g', -1, bits))
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// appendString writes s as a JSON string.
func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
