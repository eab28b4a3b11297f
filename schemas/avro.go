package schemas

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/jsonbound"
)

// avroDecoder reads Avro values of one writer schema. hamba/avro parses the
// schema; the decoder walks a plan compiled once from it and writes JSON
// straight away, with no value tree in between (a map per record costs
// more than the decoding). The plan holds what a walk of the schema itself
// would look up for every value: the kind of each node as a small integer
// instead of type switches and interface calls, each field's `"name":`
// already escaped, enum symbols already quoted. The binary encoding
// (zig-zag varints, lengths, blocks) is read by avroReader, straight from
// the payload in memory: hamba's Reader, built for streams, cost a fifth
// of the decode (a pooled reader per value, a buffer check per byte, a
// copy of every string before it was escaped).
type avroDecoder struct {
	schema avro.Schema
	root   *avroNode
	// plan is the top-level fields of a record schema and the typed
	// column each can go into (catalog.Typed); nil for other schemas.
	plan *catalog.FieldPlan
}

// avroState is one decode's reader. vf, when set, collects where each
// top-level field's JSON value starts and ends in the output, relative to
// base (the output's length when the value began), and the numbers and
// plain strings read for them (see catalog.ValueFields). num and plain are
// the last scalar read: a long's, an int's or a double's bits or a
// boolean, and whether the last string went out as it is.
type avroState struct {
	r     avroReader
	vf    *catalog.ValueFields
	base  int
	num   uint64
	numOK bool
	plain bool
	// empty is the text written so far for array items read from no
	// bytes (see maxEmptyText).
	empty int
}

// maxEmptyText bounds the text of array items whose type is encoded in no
// bytes (null, a fixed of size 0, a record of only such fields): a block's
// count alone says how many there are, so a few bytes of payload could
// otherwise ask for any number of them (a count of 2^62 never ends). No
// real value holds many: at 16 MiB, sixty 9-byte values made a dump take
// 16.7 s and 6.3 GB.
const maxEmptyText = 64 << 10

var errEmptyItems = fmt.Errorf("avro: array items encoded in no bytes make more than %d KiB of text", maxEmptyText>>10)

// maxDecodedText bounds one value's decoded text: the engine reads no
// value's fields past it (jsonbound.MaxBytes), and a byte of payload can
// stand for a whole schema's worth of text (a union branch's name, a
// record of fields encoded in no bytes), so without it a payload could ask
// for terabytes.
const maxDecodedText = jsonbound.MaxBytes

var errTooMuchText = fmt.Errorf("avro: the value's text is larger than %d MiB, the bound of one value", maxDecodedText>>20)

// avroReader reads the binary encoding of one payload. The first error
// stays (later reads return zeros) and ends the decode.
type avroReader struct {
	b   []byte
	i   int // the next byte
	err error
}

// errShort is a payload that ends inside a value.
var errShort = fmt.Errorf("avro: %w", io.ErrUnexpectedEOF)

func (r *avroReader) fail(op, msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("avro: %s: %s", op, msg)
	}
}

// long reads a zig-zag varint of at most 10 bytes, as hamba's ReadLong. A
// varint of one byte (most lengths, small numbers) is read inline.
func (r *avroReader) long() int64 {
	if r.i < len(r.b) && r.b[r.i] < 0x80 {
		v := uint64(r.b[r.i])
		r.i++
		return int64(v>>1) ^ -int64(v&1)
	}
	return r.longSlow()
}

func (r *avroReader) longSlow() int64 {
	var v uint64
	for n, s := 0, uint(0); n < 10; n, s = n+1, s+7 {
		if r.i >= len(r.b) {
			if r.err == nil {
				r.err = errShort
			}
			return 0
		}
		c := r.b[r.i]
		r.i++
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return int64(v>>1) ^ -int64(v&1)
		}
	}
	r.fail("ReadLong", "int overflow")
	return 0
}

// int reads a zig-zag varint of at most 5 bytes, as hamba's ReadInt (the
// bits past 32 dropped).
func (r *avroReader) int() int32 {
	var v uint32
	for n, s := 0, uint(0); n < 5; n, s = n+1, s+7 {
		if r.i >= len(r.b) {
			if r.err == nil {
				r.err = errShort
			}
			return 0
		}
		c := r.b[r.i]
		r.i++
		v |= uint32(c&0x7f) << s
		if c < 0x80 {
			return int32(v>>1) ^ -int32(v&1)
		}
	}
	r.fail("ReadInt", "int overflow")
	return 0
}

// next takes the next n bytes (nil, with the error set, past the end).
func (r *avroReader) next(n int) []byte {
	if n > len(r.b)-r.i {
		if r.err == nil {
			r.err = errShort
		}
		r.i = len(r.b)
		return nil
	}
	b := r.b[r.i : r.i+n : r.i+n]
	r.i += n
	return b
}

func (r *avroReader) double() float64 {
	if b := r.next(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *avroReader) float() float32 {
	if b := r.next(4); b != nil {
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	}
	return 0
}

func (r *avroReader) boolean() bool {
	b := r.next(1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		r.fail("ReadBool", "invalid bool")
	}
	return b[0] == 1
}

// bytes reads a length, then that many bytes (the payload's own: not to
// be kept past the decode).
func (r *avroReader) bytes(op string) []byte {
	n := r.long()
	if r.err != nil {
		return nil
	}
	if n < 0 {
		r.fail(op, "invalid length")
		return nil
	}
	if n > int64(len(r.b)-r.i) {
		r.fail(op, "longer than the value")
		return nil
	}
	return r.next(int(n))
}

// blockHeader reads the count of an array or map block; a negative count
// is followed by the block's size in bytes, which is not needed.
func (r *avroReader) blockHeader() int64 {
	n := r.long()
	if n == math.MinInt64 {
		r.fail("ReadBlockHeader", "invalid block count")
		return 0
	}
	if n < 0 {
		r.long()
		return -n
	}
	return n
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
	opUUID // a string of logicalType uuid: typed UUID, so checked to be one
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
	prec     int         // decimals: the precision (digits) the view's DECIMAL holds
	name     string      // enum: its full name, for errors
}

type avroField struct {
	key  []byte
	node *avroNode
	// num: the field is a long, an int, a double or a boolean, or a union
	// of null and one of them, so the number read for it is its value;
	// str: it is a string, or a union of null and a string.
	num, str bool
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
	return &avroDecoder{schema: s, root: root, plan: fieldPlan(s)}, nil
}

// fieldPlan lists a record schema's top-level fields with the kind of
// typed column that holds each exactly as the JSON path reads it: VARCHAR
// (strings, enums, base64 bytes and fixed, wide decimals: JSON strings),
// BIGINT and INTEGER, DOUBLE and FLOAT, BOOLEAN, and a union of null and
// one of them. Anything else (records, lists, maps, timestamps, dates,
// decimals, uuids) is catalog.KindNone and stays in the JSON text only.
func fieldPlan(s avro.Schema) *catalog.FieldPlan {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	rs, ok := s.(*avro.RecordSchema)
	if !ok {
		return nil
	}
	p := &catalog.FieldPlan{}
	for _, f := range rs.Fields() {
		k := catalog.KindNone
		if s := scalarOf(f.Type()); s != nil {
			if t, err := avroType(s, 1, typeBudget()); err == nil {
				switch t.Kind {
				case "VARCHAR":
					k = catalog.KindString
				case "BIGINT", "INTEGER":
					k = catalog.KindInt
				case "DOUBLE", "FLOAT":
					k = catalog.KindFloat
				case "BOOLEAN":
					k = catalog.KindBool
				}
			}
		}
		p.Names = append(p.Names, f.Name())
		p.Kinds = append(p.Kinds, k)
	}
	return p
}

// scalarOf is s, or the type of a union of null and it, when that is not
// a record, an array, a map or a union (which no typed column holds); else
// nil. Only the top of a field's type is looked at: avroType would walk
// all of it, and a record that refers to itself twice (a tree) is a walk
// of 2^64 steps to its depth limit.
func scalarOf(s avro.Schema) avro.Schema {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if u, ok := s.(*avro.UnionSchema); ok && nullable(u) {
		for _, b := range u.Types() {
			if b.Type() != avro.Null {
				s = b
			}
		}
		if ref, ok := s.(*avro.RefSchema); ok {
			s = ref.Schema()
		}
	}
	switch s.(type) {
	case *avro.RecordSchema, *avro.ArraySchema, *avro.MapSchema, *avro.UnionSchema:
		return nil
	}
	return s
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
			af := avroField{key: key, node: fn}
			v := fn
			if v.op == opNullable { // two branches, one of them null
				v = v.branches[0]
				if v.op == opNull {
					v = fn.branches[1]
				}
			}
			switch v.op {
			case opLong, opInt, opDouble, opBoolean:
				af.num = true
			case opString:
				af.str = true
			}
			n.fields = append(n.fields, af)
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
				if err := checkDecimal(d); err != nil {
					return nil, err
				}
				n.op, n.scale, n.prec = opFixedDecimal, d.Scale(), d.Precision()
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
		if logical == avro.UUID {
			return &avroNode{op: opUUID}, nil
		}
		return &avroNode{op: opString}, nil
	case avro.Bytes:
		if d, ok := ls.(*avro.DecimalLogicalSchema); ok && logical == avro.Decimal {
			if err := checkDecimal(d); err != nil {
				return nil, err
			}
			return &avroNode{op: opBytesDecimal, scale: d.Scale(), prec: d.Precision()}, nil
		}
		return &avroNode{op: opBytes}, nil
	}
	return nil, fmt.Errorf("avro type %s is not supported", s.Type())
}

var errTrailing = errors.New("bytes left over after the value")

func (d *avroDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	return d.decodeFields(payload, buf, nil)
}

// decodeFields is decode that also says, in vf, where each top-level
// field's JSON value lies in the value's text (vf.Spans, relative to the
// text's start) and the schema's field plan; vf.Plan is nil for a value
// that is not a record.
func (d *avroDecoder) decodeFields(payload []byte, buf []byte, vf *catalog.ValueFields) ([]byte, error) {
	// A fresh reader per value: nothing of a bad payload reaches the next.
	st := avroState{r: avroReader{b: payload}, base: len(buf)}
	if vf != nil {
		vf.Plan, vf.Spans, vf.Direct, vf.Plain = nil, vf.Spans[:0], 0, 0
		if d.plan != nil {
			st.vf = vf
		}
	}
	if buf == nil {
		buf = make([]byte, 0, 2*len(payload)+64) // JSON is about 1.5x Avro
	}
	var err error
	buf, err = st.appendAvro(buf, d.root, 0)
	if err == nil && st.r.err != nil {
		err = st.r.err
	}
	if err == nil && st.r.i < len(st.r.b) {
		// The schema read less than the payload holds: not this value's
		// writer schema, or a damaged payload. Its fields are not trusted.
		err = fmt.Errorf("%w: %d of %d bytes", errTrailing, len(st.r.b)-st.r.i, len(st.r.b))
	}
	if err != nil {
		if vf != nil {
			vf.Spans, vf.Direct, vf.Plain = vf.Spans[:0], 0, 0
		}
		return nil, err
	}
	if st.vf != nil {
		vf.Plan = d.plan
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
	r := &st.r
	if depth > maxDepth {
		return nil, errors.New("value nested deeper than 64")
	}
	if r.err != nil {
		return nil, r.err
	}
	var err error
	switch n.op {
	case opRecord:
		b = append(b, '{')
		vf := st.vf
		if depth != 0 {
			vf = nil
		} else if vf != nil {
			vf.Nums = slices.Grow(vf.Nums[:0], len(n.fields))[:len(n.fields)]
		}
		for i := range n.fields {
			f := &n.fields[i]
			b = append(b, f.key...)
			start := len(b)
			st.numOK, st.plain = false, false
			if b, err = st.appendAvro(b, f.node, depth+1); err != nil {
				return nil, err
			}
			if vf != nil {
				vf.Spans = append(vf.Spans, int32(start-st.base), int32(len(b)-st.base))
				if i < 64 {
					if f.num && st.numOK {
						vf.Nums[i] = st.num
						vf.Direct |= 1 << i
					} else if f.str && st.plain {
						vf.Plain |= 1 << i
					}
				}
			}
		}
		return append(b, '}'), nil
	case opString:
		return st.appendAvroString(b), nil
	case opUUID:
		raw := r.bytes("ReadString")
		if r.err != nil {
			return nil, r.err
		}
		if !isUUID(raw) {
			// The view types the field UUID: any other text read as NULL,
			// with no error.
			return nil, fmt.Errorf("avro: uuid %s is not a UUID (32 hex digits, 8-4-4-4-12)", shortQuote(raw))
		}
		b = append(b, '"')
		b = append(b, raw...)
		return append(b, '"'), nil
	case opLong:
		v := r.long()
		st.num, st.numOK = uint64(v), true
		return strconv.AppendInt(b, v, 10), nil
	case opInt:
		v := int64(r.int())
		st.num, st.numOK = uint64(v), true
		return strconv.AppendInt(b, v, 10), nil
	case opDouble:
		v := r.double()
		if v != v {
			v = math.NaN() // as the text "NaN" reads back
		}
		st.num, st.numOK = math.Float64bits(v), true
		return appendFloat(b, v, 64), nil
	case opFloat:
		return appendFloat(b, float64(r.float()), 32), nil
	case opBoolean:
		v := r.boolean()
		st.num, st.numOK = 0, true
		if v {
			st.num = 1
		}
		return strconv.AppendBool(b, v), nil
	case opNull:
		return append(b, "null"...), nil
	case opNullable, opUnion:
		i := r.long()
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
			l := r.blockHeader()
			if l <= 0 || r.err != nil {
				break
			}
			for ; l > 0; l-- {
				at, from := r.i, len(b)
				if c > 0 {
					b = append(b, ',')
				}
				c++
				if b, err = st.appendAvro(b, n.elem, depth+1); err != nil {
					return nil, err
				}
				if r.i == at {
					if st.empty += len(b) - from; st.empty > maxEmptyText {
						return nil, errEmptyItems
					}
				}
				if len(b)-st.base > maxDecodedText {
					return nil, errTooMuchText
				}
			}
		}
		return append(b, ']'), nil
	case opMap:
		b = append(b, '{')
		c := 0
		for {
			l := r.blockHeader()
			if l <= 0 || r.err != nil {
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
				if len(b)-st.base > maxDecodedText {
					return nil, errTooMuchText
				}
			}
		}
		return append(b, '}'), nil
	case opEnum:
		i := r.int()
		if i < 0 || int(i) >= len(n.symbols) {
			return nil, fmt.Errorf("enum %s: symbol %d of %d", n.name, i, len(n.symbols))
		}
		return append(b, n.symbols[i]...), nil
	case opFixed, opFixedDecimal, opFixedDuration:
		raw := r.next(n.size)
		if raw == nil {
			return nil, r.err
		}
		switch n.op {
		case opFixedDecimal:
			return appendDecimal(b, raw, n.scale, n.prec)
		case opFixedDuration:
			return fmt.Appendf(b, `{"months":%d,"days":%d,"milliseconds":%d}`,
				binary.LittleEndian.Uint32(raw[0:4]), binary.LittleEndian.Uint32(raw[4:8]), binary.LittleEndian.Uint32(raw[8:12])), nil
		}
		return appendBase64(b, raw), nil
	case opBytes:
		return appendBase64(b, r.bytes("ReadBytes")), nil
	case opBytesDecimal:
		raw := r.bytes("ReadBytes")
		if r.err != nil {
			return nil, r.err
		}
		return appendDecimal(b, raw, n.scale, n.prec)
	case opDate:
		v := r.int()
		if v < minDate || v > maxDate {
			return nil, fmt.Errorf("avro: date %d (days from 1970-01-01) is outside the range SQL's DATE holds (%d to %d: -5877641-06-25 to 5881580-07-10)", v, minDate, maxDate)
		}
		return appendQuoted(b, time.Unix(int64(v)*86400, 0).UTC(), time.DateOnly), nil
	case opTimeMillis:
		return appendTimeOfDay(b, int64(r.int())*1000, "time-millis")
	case opTimeMicros:
		return appendTimeOfDay(b, r.long(), "time-micros")
	case opTimestampMillis, opLocalTimestampMillis:
		v := r.long()
		if v < minTimestamp/1000 || v > maxTimestamp/1000 {
			return nil, timestampRange(n.op, v)
		}
		if n.op == opLocalTimestampMillis {
			return appendQuoted(b, time.UnixMilli(v).UTC(), "2006-01-02T15:04:05.999999"), nil
		}
		return appendTimestamp(b, time.UnixMilli(v).UTC()), nil
	case opTimestampMicros, opLocalTimestampMicros:
		v := r.long()
		if v < minTimestamp || v > maxTimestamp {
			return nil, timestampRange(n.op, v)
		}
		if n.op == opLocalTimestampMicros {
			return appendQuoted(b, time.UnixMicro(v).UTC(), "2006-01-02T15:04:05.999999"), nil
		}
		return appendTimestamp(b, time.UnixMicro(v).UTC()), nil
	}
	return nil, fmt.Errorf("avro plan op %d is not known", n.op)
}

// The range of SQL's (DuckDB's) DATE and TIMESTAMP: days from 1970-01-01
// and microseconds from 1970-01-01T00:00:00Z (the bounds are infinity or
// past it). A date or timestamp outside it does not read as one: the
// engine read it as NULL with no error (timestamp-millis 2^63-1, a date of
// -2^31), so the value fails alone, kept as its bytes, and says why.
const (
	minDate      = -(1<<31 - 2)         // -5877641-06-25
	maxDate      = 1<<31 - 2            // 5881580-07-10
	minTimestamp = -9223372022400000000 // -290308-12-22T00:00:00Z
	maxTimestamp = math.MaxInt64 - 1    // 294247-01-10T04:00:54.775806Z
)

func timestampRange(op avroOp, v int64) error {
	name, unit := "timestamp-micros", "µs"
	switch op {
	case opTimestampMillis:
		name, unit = "timestamp-millis", "ms"
	case opLocalTimestampMillis:
		name, unit = "local-timestamp-millis", "ms"
	case opLocalTimestampMicros:
		name = "local-timestamp-micros"
	}
	return fmt.Errorf("avro: %s %d %s from 1970-01-01 is outside the range SQL's TIMESTAMP holds (-290308-12-22 to 294247-01-10)", name, v, unit)
}

// isUUID reports whether s is a UUID as SQL's UUID reads it exactly: 32
// hex digits, bare or 8-4-4-4-12 with hyphens, that form in braces.
func isUUID(s []byte) bool {
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	hex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
	switch len(s) {
	case 32:
		for _, c := range s {
			if !hex(c) {
				return false
			}
		}
		return true
	case 36:
		for i, c := range s {
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if c != '-' {
					return false
				}
			} else if !hex(c) {
				return false
			}
		}
		return true
	}
	return false
}

// shortQuote is s quoted, cut to 40 bytes.
func shortQuote(s []byte) string {
	if len(s) > 40 {
		return strconv.Quote(string(s[:40])) + fmt.Sprintf(" (%d bytes)", len(s))
	}
	return strconv.Quote(string(s))
}

// appendAvroString reads an Avro string (a length, then its bytes) and
// writes it as a JSON string: copied as it is when it has nothing to
// escape (most strings), escaped otherwise (its UTF-8 checked).
func (st *avroState) appendAvroString(b []byte) []byte {
	raw := st.r.bytes("ReadString")
	if st.r.err != nil {
		return b
	}
	if plainASCII(raw) {
		st.plain = true
		b = append(b, '"')
		b = append(b, raw...)
		return append(b, '"')
	}
	if !utf8.Valid(raw) {
		// An Avro string is UTF-8 (the specification's "unicode character
		// sequence"): bytes that are not are no text. Replaced by U+FFFD,
		// they read as a string no one wrote, and two map keys could meet;
		// the value fails alone, kept as its bytes, as a Protobuf string
		// and a JSON Schema value do.
		st.r.fail("ReadString", fmt.Sprintf("string of %d bytes is not UTF-8 (at byte %d)", len(raw), invalidAt(raw)))
		return b
	}
	return appendStringBytes(b, raw)
}

// invalidAt is the offset of s's first byte that is not part of valid UTF-8.
func invalidAt(s []byte) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(s)
}

// jsonPlain marks the bytes a JSON string holds as they are: printable
// ASCII but the quote and the backslash.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainASCII reports whether s is written in a JSON string as it is. It
// looks at 8 bytes at a time: a byte of 0x80 or more, below 0x20, a quote
// or a backslash (each test of the word is exact as a whole).
func plainASCII(s []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		q, bs := w^(ones*'"'), w^(ones*'\\')
		if (w|((w-ones*0x20)&^w)|((q-ones)&^q)|((bs-ones)&^bs))&highs != 0 {
			return false
		}
		s = s[8:]
	}
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
// A time of day is within a day (Avro: [0, 86,400,000) milliseconds):
// another value is no time (it printed "00:00:00.-01000" for -1 ms), and
// the value does not decode.
func appendTimeOfDay(b []byte, us int64, logical string) ([]byte, error) {
	if us < 0 || us >= 86_400_000_000 {
		return nil, fmt.Errorf("%s %d µs is not a time of day (0 to 24 hours)", logical, us)
	}
	return fmt.Appendf(b, `"%02d:%02d:%02d.%06d"`, us/3600e6, us/60e6%60, us/1e6%60, us%1e6), nil
}

func appendBase64(b []byte, raw []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, raw)
	return append(b, '"')
}

// maxDecimalDigits bounds a decimal's precision (and so its scale) and
// maxDecimalBytes its unscaled bytes (enough for that many digits): a
// schema's scale of 300,000 made each 2-byte value cost a minute (the
// zeros before the digits, prepended one at a time), 2,000,000,000 never
// ended; the digits of a 1 MiB value took 1.15 s. DuckDB's DECIMAL holds
// 38 digits; past them a decimal is its exact text.
const (
	maxDecimalDigits = 1000
	maxDecimalBytes  = 416 // 2^(8*416-1) > 10^1000
)

// checkDecimal refuses a decimal whose precision is past maxDecimalDigits.
func checkDecimal(d *avro.DecimalLogicalSchema) error {
	if d.Precision() > maxDecimalDigits || d.Scale() > maxDecimalDigits {
		return fmt.Errorf("avro decimal of precision %d and scale %d: more than %d digits, the bound topicsnap writes", d.Precision(), d.Scale(), maxDecimalDigits)
	}
	return nil
}

// appendDecimal writes a decimal's two's-complement unscaled bytes with its
// scale as an exact decimal string ("-1234.567").
func appendDecimal(b []byte, raw []byte, scale, prec int) ([]byte, error) {
	if len(raw) > maxDecimalBytes {
		return nil, fmt.Errorf("avro decimal of %d bytes: more than %d digits, the bound topicsnap writes", len(raw), maxDecimalDigits)
	}
	n := new(big.Int).SetBytes(raw)
	if len(raw) > 0 && raw[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(raw))*8))
	}
	digits := n.Abs(n).String()
	if prec <= 38 && len(digits) > prec && digits != "0" {
		// The view types it DECIMAL(prec,scale), which holds prec digits:
		// a value of more read as NULL, with no error (Avro does not bound
		// a decimal's bytes by its precision; hamba writes any).
		return nil, fmt.Errorf("avro decimal of %d digits is past its precision of %d (decimal(%d,%d))", len(digits), prec, prec, scale)
	}
	b = append(b, '"')
	if len(raw) > 0 && raw[0]&0x80 != 0 && digits != "0" {
		b = append(b, '-')
	}
	if scale <= 0 {
		b = append(b, digits...)
		return append(b, '"'), nil
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale+1-len(digits)) + digits
	}
	b = append(b, digits[:len(digits)-scale]...)
	b = append(b, '.')
	b = append(b, digits[len(digits)-scale:]...)
	return append(b, '"'), nil
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
	if f == 0 && math.Signbit(f) {
		// "-0" reads back as the integer 0: keep the sign.
		return append(b, "-0.0"...)
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
