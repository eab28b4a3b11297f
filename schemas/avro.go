package schemas

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
)

// avroDecoder reads Avro values of one writer schema. hamba/avro's Reader
// reads the binary encoding (zig-zag varints, lengths, blocks); the
// decoder walks the schema beside it and writes JSON straight away, with no
// value tree in between (a map per record costs more than the decoding).
type avroDecoder struct {
	schema avro.Schema
	pool   sync.Pool // *avroState
}

// avroState is one decode's reader and scratch space for strings, reused.
type avroState struct {
	r       *avro.Reader
	scratch []byte
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

var errTrailing = errors.New("bytes left over after the value")

func (d *avroDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	st, _ := d.pool.Get().(*avroState)
	if st == nil {
		st = &avroState{r: avro.NewReader(nil, 0)}
	}
	defer d.pool.Put(st)
	st.r.Reset(payload)
	if buf == nil {
		buf = make([]byte, 0, 2*len(payload)+64) // JSON is about 1.5x Avro
	}
	var err error
	buf, err = st.appendAvro(buf, d.schema, 0)
	if err == nil && st.r.Error != nil {
		err = st.r.Error
	}
	if err != nil {
		return nil, err
	}
	return buf, nil
}

const maxDepth = 64

// appendAvro reads one value of schema s from r and writes it as JSON:
// records and maps as objects, a union of null and one type as that type or
// null, other unions as {"branch": value} (Avro's JSON encoding), enums and
// uuids as strings, bytes and fixed as base64, decimals as exact decimal
// strings, timestamps as RFC 3339 text, dates as YYYY-MM-DD, times of day as
// HH:MM:SS.ffffff.
func (st *avroState) appendAvro(b []byte, s avro.Schema, depth int) ([]byte, error) {
	r := st.r
	if depth > maxDepth {
		return nil, errors.New("value nested deeper than 64")
	}
	if r.Error != nil {
		return nil, r.Error
	}
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	var err error
	switch s := s.(type) {
	case *avro.RecordSchema:
		b = append(b, '{')
		for i, f := range s.Fields() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.Name())
			b = append(b, ':')
			if b, err = st.appendAvro(b, f.Type(), depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case *avro.ArraySchema:
		b = append(b, '[')
		n := 0
		for {
			l, _ := r.ReadBlockHeader()
			if l <= 0 || r.Error != nil {
				break
			}
			for ; l > 0; l-- {
				if n > 0 {
					b = append(b, ',')
				}
				n++
				if b, err = st.appendAvro(b, s.Items(), depth+1); err != nil {
					return nil, err
				}
			}
		}
		return append(b, ']'), nil
	case *avro.MapSchema:
		b = append(b, '{')
		n := 0
		for {
			l, _ := r.ReadBlockHeader()
			if l <= 0 || r.Error != nil {
				break
			}
			for ; l > 0; l-- {
				if n > 0 {
					b = append(b, ',')
				}
				n++
				b = st.appendAvroString(b)
				b = append(b, ':')
				if b, err = st.appendAvro(b, s.Values(), depth+1); err != nil {
					return nil, err
				}
			}
		}
		return append(b, '}'), nil
	case *avro.UnionSchema:
		types := s.Types()
		i := r.ReadLong()
		if i < 0 || i >= int64(len(types)) {
			return nil, fmt.Errorf("union branch %d of %d", i, len(types))
		}
		t := types[i]
		if t.Type() == avro.Null {
			return append(b, "null"...), nil
		}
		if nullable(s) {
			return st.appendAvro(b, t, depth+1)
		}
		b = append(b, '{')
		b = appendString(b, branchName(t))
		b = append(b, ':')
		if b, err = st.appendAvro(b, t, depth+1); err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case *avro.EnumSchema:
		i := r.ReadInt()
		syms := s.Symbols()
		if i < 0 || int(i) >= len(syms) {
			return nil, fmt.Errorf("enum %s: symbol %d of %d", s.FullName(), i, len(syms))
		}
		return appendString(b, syms[i]), nil
	case *avro.FixedSchema:
		raw := make([]byte, s.Size())
		r.Read(raw)
		if l := s.Logical(); l != nil {
			switch l := l.(type) {
			case *avro.DecimalLogicalSchema:
				return appendDecimal(b, raw, l.Scale()), nil
			}
			if l.Type() == avro.Duration && len(raw) == 12 {
				return fmt.Appendf(b, `{"months":%d,"days":%d,"milliseconds":%d}`,
					binary.LittleEndian.Uint32(raw[0:4]), binary.LittleEndian.Uint32(raw[4:8]), binary.LittleEndian.Uint32(raw[8:12])), nil
			}
		}
		return appendBase64(b, raw), nil
	}
	var logical avro.LogicalType
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		logical = ls.Logical().Type()
	}
	switch s.Type() {
	case avro.Null:
		return append(b, "null"...), nil
	case avro.Boolean:
		return strconv.AppendBool(b, r.ReadBool()), nil
	case avro.Int:
		v := r.ReadInt()
		switch logical {
		case avro.Date:
			return appendQuoted(b, time.Unix(int64(v)*86400, 0).UTC(), time.DateOnly), nil
		case avro.TimeMillis:
			return appendTimeOfDay(b, int64(v)*1000), nil
		}
		return strconv.AppendInt(b, int64(v), 10), nil
	case avro.Long:
		v := r.ReadLong()
		switch logical {
		case avro.TimestampMillis:
			return appendQuoted(b, time.UnixMilli(v).UTC(), time.RFC3339Nano), nil
		case avro.TimestampMicros:
			return appendQuoted(b, time.UnixMicro(v).UTC(), time.RFC3339Nano), nil
		case avro.LocalTimestampMillis:
			return appendQuoted(b, time.UnixMilli(v).UTC(), "2006-01-02T15:04:05.999999"), nil
		case avro.LocalTimestampMicros:
			return appendQuoted(b, time.UnixMicro(v).UTC(), "2006-01-02T15:04:05.999999"), nil
		case avro.TimeMicros:
			return appendTimeOfDay(b, v), nil
		}
		return strconv.AppendInt(b, v, 10), nil
	case avro.Float:
		return appendFloat(b, float64(r.ReadFloat()), 32), nil
	case avro.Double:
		return appendFloat(b, r.ReadDouble(), 64), nil
	case avro.String:
		return st.appendAvroString(b), nil
	case avro.Bytes:
		raw := r.ReadBytes()
		if logical == avro.Decimal {
			return appendDecimal(b, raw, s.(avro.LogicalTypeSchema).Logical().(*avro.DecimalLogicalSchema).Scale()), nil
		}
		return appendBase64(b, raw), nil
	}
	return nil, fmt.Errorf("avro type %s is not supported", s.Type())
}

// appendAvroString reads an Avro string (a length, then its bytes) into the
// scratch space and writes it as a JSON string, allocating nothing.
func (st *avroState) appendAvroString(b []byte) []byte {
	n := st.r.ReadLong()
	if n < 0 {
		st.r.ReportError("ReadString", "invalid string length")
		return b
	}
	if n > 1<<30 {
		st.r.ReportError("ReadString", "string longer than 1 GiB")
		return b
	}
	if cap(st.scratch) < int(n) {
		st.scratch = make([]byte, n)
	}
	raw := st.scratch[:n]
	st.r.Read(raw)
	return appendStringBytes(b, raw)
}

func appendQuoted(b []byte, t time.Time, layout string) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, layout)
	return append(b, '"')
}

// appendTimeOfDay writes microseconds since midnight as "HH:MM:SS.ffffff".
func appendTimeOfDay(b []byte, us int64) []byte {
	return fmt.Appendf(b, `"%02d:%02d:%02d.%06d"`, us/3600e6, us/60e6%60, us/1e6%60, us%1e6)
}

func appendBase64(b []byte, raw []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, raw)
	return append(b, '"')
}

// appendDecimal writes a decimal's two's-complement unscaled bytes with its
// scale as an exact decimal string ("-1234.567").
func appendDecimal(b []byte, raw []byte, scale int) []byte {
	n := new(big.Int).SetBytes(raw)
	if len(raw) > 0 && raw[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(raw))*8))
	}
	digits := n.Abs(n).String()
	b = append(b, '"')
	if len(raw) > 0 && raw[0]&0x80 != 0 && digits != "0" {
		b = append(b, '-')
	}
	if scale <= 0 {
		b = append(b, digits...)
		return append(b, '"')
	}
	for len(digits) <= scale {
		digits = "0" + digits
	}
	b = append(b, digits[:len(digits)-scale]...)
	b = append(b, '.')
	b = append(b, digits[len(digits)-scale:]...)
	return append(b, '"')
}

// nullable reports whether u is null and one other type: read as that
// type, or null.
func nullable(u *avro.UnionSchema) bool {
	ts := u.Types()
	return len(ts) == 2 && (ts[0].Type() == avro.Null || ts[1].Type() == avro.Null)
}

// appendFloat writes a JSON number; NaN and the infinities, which JSON has
// no number for, are written as strings.
func appendFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return appendString(b, strconv.FormatFloat(f, 'g', -1, bits))
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD (as encoding/json).
func appendString(b []byte, s string) []byte { return appendText(b, s) }

func appendStringBytes(b []byte, s []byte) []byte { return appendText(b, s) }

func appendText[T string | []byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune([]byte(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
