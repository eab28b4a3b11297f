package schemas

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
)

// avroDecoder reads Avro values of one writer schema. hamba/avro parses the
// schema and its Reader reads the binary encoding (zig-zag varints,
// lengths, blocks); the decoder walks a plan compiled once from the schema
// beside it and writes JSON straight away, with no value tree in between (a
// map per record costs more than the decoding). The plan holds what a walk
// of the schema itself would look up for every value: the kind of each node
// as a small integer instead of type switches and interface calls, each
// field's `"name":` already escaped, enum symbols already quoted.
type avroDecoder struct {
	schema avro.Schema
	root   *avroNode
	pool   sync.Pool // *avroState
}

// avroState is one decode's reader and scratch space for strings, reused.
type avroState struct {
	r       *avro.Reader
	scratch []byte
	size    int // the payload's length: no string is longer
}

// avroOp is what a plan node reads and how it writes it.
type avroOp uint8

const (
	opNull avroOp = iota
	opBoolean
	opInt
	opLong
	opFloat
	opDouble
	opString
	opBytes
	opDate
	opTimeMillis
	opTimeMicros
	opTimestampMillis
	opTimestampMicros
	opLocalTimestampMillis
	opLocalTimestampMicros
	opBytesDecimal
	opFixed
	opFixedDecimal
	opFixedDuration
	opEnum
	opRecord
	opArray
	opMap
	opNullable // a union of null and one type: that type, or null
	opUnion    // other unions: {"branch": value}
)

// avroNode is one schema node of the plan. Named types that refer to
// themselves (a recursive record) share their node, so the plan is a graph
// whose walk is bounded by maxDepth, as the schema's was.
type avroNode struct {
	op       avroOp
	fields   []avroField // record: each key is `"name":`, after the first `,"name":`
	elem     *avroNode   // array items, map values
	branches []*avroNode // unions, in the schema's order
	keys     [][]byte    // opUnion: `{"branch":` of each branch
	symbols  [][]byte    // enum: each symbol as a JSON string
	size     int         // fixed
	scale    int         // decimals
	name     string      // enum: its full name, for errors
}

type avroField struct {
	key  []byte
	node *avroNode
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
	root, err := compileAvro(s, map[avro.Schema]*avroNode{})
	if err != nil {
		return nil, err
	}
	return &avroDecoder{schema: s, root: root}, nil
}

// compileAvro makes the plan node of s; named holds the nodes of the
// records already met, by schema, so that a record refers to itself.
func compileAvro(s avro.Schema, named map[avro.Schema]*avroNode) (*avroNode, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if n, ok := named[s]; ok {
		return n, nil
	}
	switch s := s.(type) {
	case *avro.RecordSchema:
		n := &avroNode{op: opRecord}
		named[s] = n
		for i, f := range s.Fields() {
			var key []byte
			if i > 0 {
				key = append(key, ',')
			}
			key = appendString(key, f.Name())
			key = append(key, ':')
			fn, err := compileAvro(f.Type(), named)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, avroField{key: key, node: fn})
		}
		return n, nil
	case *avro.ArraySchema:
		elem, err := compileAvro(s.Items(), named)
		return &avroNode{op: opArray, elem: elem}, err
	case *avro.MapSchema:
		elem, err := compileAvro(s.Values(), named)
		return &avroNode{op: opMap, elem: elem}, err
	case *avro.UnionSchema:
		n := &avroNode{op: opUnion}
		if nullable(s) {
			n.op = opNullable
		}
		for _, t := range s.Types() {
			b, err := compileAvro(t, named)
			if err != nil {
				return nil, err
			}
			n.branches = append(n.branches, b)
			key := appendString([]byte{'{'}, branchName(t))
			n.keys = append(n.keys, append(key, ':'))
		}
		return n, nil
	case *avro.EnumSchema:
		n := &avroNode{op: opEnum, name: s.FullName()}
		for _, sym := range s.Symbols() {
			n.symbols = append(n.symbols, appendString(nil, sym))
		}
		return n, nil
	case *avro.FixedSchema:
		n := &avroNode{op: opFixed, size: s.Size()}
		if l := s.Logical(); l != nil {
			if d, ok := l.(*avro.DecimalLogicalSchema); ok {
				n.op, n.scale = opFixedDecimal, d.Scale()
			} else if l.Type() == avro.Duration && s.Size() == 12 {
				n.op = opFixedDuration
			}
		}
		return n, nil
	}
	var logical avro.LogicalType
	var ls avro.LogicalSchema
	if lts, ok := s.(avro.LogicalTypeSchema); ok && lts.Logical() != nil {
		ls = lts.Logical()
		logical = ls.Type()
	}
	switch s.Type() {
	case avro.Null:
		return &avroNode{op: opNull}, nil
	case avro.Boolean:
		return &avroNode{op: opBoolean}, nil
	case avro.Int:
		switch logical {
		case avro.Date:
			return &avroNode{op: opDate}, nil
		case avro.TimeMillis:
			return &avroNode{op: opTimeMillis}, nil
		}
		return &avroNode{op: opInt}, nil
	case avro.Long:
		switch logical {
		case avro.TimestampMillis:
			return &avroNode{op: opTimestampMillis}, nil
		case avro.TimestampMicros:
			return &avroNode{op: opTimestampMicros}, nil
		case avro.LocalTimestampMillis:
			return &avroNode{op: opLocalTimestampMillis}, nil
		case avro.LocalTimestampMicros:
			return &avroNode{op: opLocalTimestampMicros}, nil
		case avro.TimeMicros:
			return &avroNode{op: opTimeMicros}, nil
		}
		return &avroNode{op: opLong}, nil
	case avro.Float:
		return &avroNode{op: opFloat}, nil
	case avro.Double:
		return &avroNode{op: opDouble}, nil
	case avro.String:
		return &avroNode{op: opString}, nil
	case avro.Bytes:
		if d, ok := ls.(*avro.DecimalLogicalSchema); ok && logical == avro.Decimal {
			return &avroNode{op: opBytesDecimal, scale: d.Scale()}, nil
		}
		return &avroNode{op: opBytes}, nil
	}
	return nil, fmt.Errorf("avro type %s is not supported", s.Type())
}

var errTrailing = errors.New("bytes left over after the value")

func (d *avroDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	st, _ := d.pool.Get().(*avroState)
	if st == nil {
		st = &avroState{r: avro.NewReader(nil, 0)}
	}
	defer d.pool.Put(st)
	st.r.Reset(payload)
	st.r.Error = nil // Reset keeps the last error: a bad payload must not fail the next ones
	st.size = len(payload)
	if buf == nil {
		buf = make([]byte, 0, 2*len(payload)+64) // JSON is about 1.5x Avro
	}
	var err error
	buf, err = st.appendAvro(buf, d.root, 0)
	if err == nil && st.r.Error != nil {
		err = st.r.Error
	}
	if err != nil {
		return nil, err
	}
	return buf, nil
}

const maxDepth = 64

// appendAvro reads one value of plan node n from r and writes it as JSON:
// records and maps as objects, a union of null and one type as that type or
// null, other unions as {"branch": value} (Avro's JSON encoding), enums and
// uuids as strings, bytes and fixed as base64, decimals as exact decimal
// strings, timestamps as RFC 3339 text, dates as YYYY-MM-DD, times of day as
// HH:MM:SS.ffffff.
func (st *avroState) appendAvro(b []byte, n *avroNode, depth int) ([]byte, error) {
	r := st.r
	if depth > maxDepth {
		return nil, errors.New("value nested deeper than 64")
	}
	if r.Error != nil {
		return nil, r.Error
	}
	var err error
	switch n.op {
	case opRecord:
		b = append(b, '{')
		for i := range n.fields {
			f := &n.fields[i]
			b = append(b, f.key...)
			if b, err = st.appendAvro(b, f.node, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case opString:
		return st.appendAvroString(b), nil
	case opLong:
		return strconv.AppendInt(b, r.ReadLong(), 10), nil
	case opInt:
		return strconv.AppendInt(b, int64(r.ReadInt()), 10), nil
	case opDouble:
		return appendFloat(b, r.ReadDouble(), 64), nil
	case opFloat:
		return appendFloat(b, float64(r.ReadFloat()), 32), nil
	case opBoolean:
		return strconv.AppendBool(b, r.ReadBool()), nil
	case opNull:
		return append(b, "null"...), nil
	case opNullable, opUnion:
		i := r.ReadLong()
		if i < 0 || i >= int64(len(n.branches)) {
			return nil, fmt.Errorf("union branch %d of %d", i, len(n.branches))
		}
		t := n.branches[i]
		if t.op == opNull {
			return append(b, "null"...), nil
		}
		if n.op == opNullable {
			return st.appendAvro(b, t, depth+1)
		}
		b = append(b, n.keys[i]...)
		if b, err = st.appendAvro(b, t, depth+1); err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	case opArray:
		b = append(b, '[')
		c := 0
		for {
			l, _ := r.ReadBlockHeader()
			if l <= 0 || r.Error != nil {
				break
			}
			for ; l > 0; l-- {
				if c > 0 {
					b = append(b, ',')
				}
				c++
				if b, err = st.appendAvro(b, n.elem, depth+1); err != nil {
					return nil, err
				}
			}
		}
		return append(b, ']'), nil
	case opMap:
		b = append(b, '{')
		c := 0
		for {
			l, _ := r.ReadBlockHeader()
			if l <= 0 || r.Error != nil {
				break
			}
			for ; l > 0; l-- {
				if c > 0 {
					b = append(b, ',')
				}
				c++
				b = st.appendAvroString(b)
				b = append(b, ':')
				if b, err = st.appendAvro(b, n.elem, depth+1); err != nil {
					return nil, err
				}
			}
		}
		return append(b, '}'), nil
	case opEnum:
		i := r.ReadInt()
		if i < 0 || int(i) >= len(n.symbols) {
			return nil, fmt.Errorf("enum %s: symbol %d of %d", n.name, i, len(n.symbols))
		}
		return append(b, n.symbols[i]...), nil
	case opFixed, opFixedDecimal, opFixedDuration:
		raw := make([]byte, n.size)
		r.Read(raw)
		switch n.op {
		case opFixedDecimal:
			return appendDecimal(b, raw, n.scale), nil
		case opFixedDuration:
			return fmt.Appendf(b, `{"months":%d,"days":%d,"milliseconds":%d}`,
				binary.LittleEndian.Uint32(raw[0:4]), binary.LittleEndian.Uint32(raw[4:8]), binary.LittleEndian.Uint32(raw[8:12])), nil
		}
		return appendBase64(b, raw), nil
	case opBytes:
		return appendBase64(b, r.ReadBytes()), nil
	case opBytesDecimal:
		return appendDecimal(b, r.ReadBytes(), n.scale), nil
	case opDate:
		return appendQuoted(b, time.Unix(int64(r.ReadInt())*86400, 0).UTC(), time.DateOnly), nil
	case opTimeMillis:
		return appendTimeOfDay(b, int64(r.ReadInt())*1000), nil
	case opTimeMicros:
		return appendTimeOfDay(b, r.ReadLong()), nil
	case opTimestampMillis:
		return appendTimestamp(b, time.UnixMilli(r.ReadLong()).UTC()), nil
	case opTimestampMicros:
		return appendTimestamp(b, time.UnixMicro(r.ReadLong()).UTC()), nil
	case opLocalTimestampMillis:
		return appendQuoted(b, time.UnixMilli(r.ReadLong()).UTC(), "2006-01-02T15:04:05.999999"), nil
	case opLocalTimestampMicros:
		return appendQuoted(b, time.UnixMicro(r.ReadLong()).UTC(), "2006-01-02T15:04:05.999999"), nil
	}
	return nil, fmt.Errorf("avro plan op %d is not known", n.op)
}

// appendAvroString reads an Avro string (a length, then its bytes) and
// writes it as a JSON string. The bytes are read straight into b, after
// the opening quote: a string with nothing to escape (most are) is copied
// once; one with something to escape (or not ASCII: its UTF-8 is checked)
// is copied to the scratch space and written again, escaped.
func (st *avroState) appendAvroString(b []byte) []byte {
	n := st.r.ReadLong()
	if n < 0 {
		st.r.ReportError("ReadString", "invalid string length")
		return b
	}
	if n > int64(st.size) {
		st.r.ReportError("ReadString", "string longer than the value")
		return b
	}
	start := len(b)
	b = append(b, '"')
	b = slices.Grow(b, int(n)+1)
	raw := b[start+1 : start+1+int(n)]
	st.r.Read(raw)
	if plainASCII(raw) {
		return append(b[:start+1+int(n)], '"')
	}
	st.scratch = append(st.scratch[:0], raw...)
	return appendStringBytes(b[:start], st.scratch)
}

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func plainASCII(s []byte) bool {
	for _, c := range s {
		if !jsonPlain[c] {
			return false
		}
	}
	return true
}

// appendTimestamp writes a UTC time as time.RFC3339Nano does, quoted
// ("2026-03-14T09:26:53.589Z": the fraction without its trailing zeros),
// digit by digit; a year outside 0-9999 goes through AppendFormat.
func appendTimestamp(b []byte, t time.Time) []byte {
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return appendQuoted(b, t, time.RFC3339Nano)
	}
	h, mi, s := t.Clock()
	b = append(b, '"',
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+int(mo)/10), byte('0'+int(mo)%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z', '"')
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
