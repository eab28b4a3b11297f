package catalog

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
)

// Typed columns: a schema-encoded topic's top-level scalar fields, written
// at dump time beside the exact bytes and the decoded JSON text.
//
// A decoded value is stored as JSON text (value_decoded), which every query
// of a field used to parse: count(DISTINCT value.event_id) over an Avro
// topic cost about twice the same query on a plain Parquet column. So a
// file of decoded values also holds typed columns, one per top-level field
// of the writer schema whose SQL type is VARCHAR, BIGINT or INTEGER, DOUBLE
// or FLOAT, or BOOLEAN (a union of null and one of them too): the same
// value the JSON path gives, stored as Parquet reads it. The columns have
// fixed names, typed_s0..typed_s7 (text), typed_i0..typed_i3 (64-bit
// integers), typed_f0..typed_f3 (doubles), typed_b0..typed_b1 (booleans), so that
// the writer keeps parquet-go's direct path from a Go struct to the columns
// (a schema built at run time would cost a reflection per value); which
// field a column holds is the file's, said by its manifest entry
// (FileEntry.Typed). A field is given the next free column of its kind when
// the file first meets it; a field a file cannot hold (more fields of a
// kind than columns, a type that changed inside the file, a record, a
// timestamp) is listed as untyped, and a query reads it from the JSON text.
// A file of undecoded values (JSON topics) is written without these
// columns.

// Kind is the kind of typed column a field can go into.
type Kind uint8

// Kinds of typed column.
const (
	KindNone Kind = iota // not held by a typed column: read from the JSON text
	KindString
	KindInt
	KindFloat
	KindBool
)

// Typed columns of each kind a file has.
const (
	TypedStrings = 8
	TypedInts    = 4
	TypedFloats  = 4
	TypedBools   = 2
)

// FieldPlan is a record writer schema's top-level fields, in the schema's
// order, and the kind of typed column each can go into.
type FieldPlan struct {
	Names []string
	Kinds []Kind
}

// ValueFields says where a decoded value's top-level fields lie in its JSON
// text: field i of Plan is ValueDecoded[Spans[2i]:Spans[2i+1]]. Plan is nil
// for a value whose fields are not known (not decoded, Protobuf, JSON
// Schema, an Avro value that is not a record).
//
// A decoder that read a field's value as a number can say so, and spare
// the writer from parsing the text again: for field i < 64 whose bit is
// set in Direct, Nums[i] is the value the text spells, an int64's bits for
// KindInt, a float64's for KindFloat, 0 or 1 for KindBool. A bit set in
// Plain says field i's text is a JSON string with no escape in it, so the
// bytes between its quotes are the value (KindString). Where neither is
// set, the writer reads the text.
type ValueFields struct {
	Plan   *FieldPlan
	Spans  []int32
	Nums   []uint64
	Direct uint64
	Plain  uint64
}

// TypedColumns is what a file's manifest entry says of its typed columns.
type TypedColumns struct {
	// Columns maps a field name to the typed column that holds it for
	// every decoded value of the file that has the field.
	Columns map[string]string `json:"columns,omitempty"`
	// Untyped lists fields some decoded value of the file had that no
	// typed column holds for it: read them from the JSON text.
	Untyped []string `json:"untyped,omitempty"`
	// Opaque is set when some decoded value's fields are not known
	// (Protobuf, JSON Schema, an Avro value that is not a record): no
	// field of the file can be read from its typed columns.
	Opaque bool `json:"opaque,omitempty"`
}

// Typed is a row's typed columns. A nil S is NULL; a non-nil empty one is
// the empty string.
type Typed struct {
	S0 []byte   `parquet:"typed_s0,optional,string"`
	S1 []byte   `parquet:"typed_s1,optional,string"`
	S2 []byte   `parquet:"typed_s2,optional,string"`
	S3 []byte   `parquet:"typed_s3,optional,string"`
	S4 []byte   `parquet:"typed_s4,optional,string"`
	S5 []byte   `parquet:"typed_s5,optional,string"`
	S6 []byte   `parquet:"typed_s6,optional,string"`
	S7 []byte   `parquet:"typed_s7,optional,string"`
	I0 *int64   `parquet:"typed_i0,optional"`
	I1 *int64   `parquet:"typed_i1,optional"`
	I2 *int64   `parquet:"typed_i2,optional"`
	I3 *int64   `parquet:"typed_i3,optional"`
	F0 *float64 `parquet:"typed_f0,optional"`
	F1 *float64 `parquet:"typed_f1,optional"`
	F2 *float64 `parquet:"typed_f2,optional"`
	F3 *float64 `parquet:"typed_f3,optional"`
	B0 *bool    `parquet:"typed_b0,optional"`
	B1 *bool    `parquet:"typed_b1,optional"`
}

// TypedRow is a Row with its typed columns, as a file of decoded values
// stores it.
type TypedRow struct {
	Row
	Typed
}

func (t *Typed) str(i int) *[]byte {
	switch i {
	case 0:
		return &t.S0
	case 1:
		return &t.S1
	case 2:
		return &t.S2
	case 3:
		return &t.S3
	case 4:
		return &t.S4
	case 5:
		return &t.S5
	case 6:
		return &t.S6
	case 7:
		return &t.S7
	}
	panic("catalog: typed column out of range")
}

func (t *Typed) int(i int) **int64 {
	switch i {
	case 0:
		return &t.I0
	case 1:
		return &t.I1
	case 2:
		return &t.I2
	case 3:
		return &t.I3
	}
	panic("catalog: typed column out of range")
}

func (t *Typed) float(i int) **float64 {
	switch i {
	case 0:
		return &t.F0
	case 1:
		return &t.F1
	case 2:
		return &t.F2
	case 3:
		return &t.F3
	}
	panic("catalog: typed column out of range")
}

func (t *Typed) bool(i int) **bool {
	switch i {
	case 0:
		return &t.B0
	case 1:
		return &t.B1
	}
	panic("catalog: typed column out of range")
}

// typedState is a file writer's typed columns: which field each holds, and
// the rows of the batch being written, with their values.
type typedState struct {
	cols    map[string]string // field -> column
	kinds   map[string]Kind   // field -> kind of its column
	next    [5]int            // next free column, by kind
	untyped map[string]bool
	opaque  bool
	// gen counts the fields made untyped; plans holds, by plan, the column
	// of each of its fields (-1: none), as computed when gen was its gen.
	gen   int
	plans map[*FieldPlan]planCols

	rows   []TypedRow
	ints   []int64
	floats []float64
	bools  []bool
}

type planCols struct {
	gen  int
	cols []int
}

func newTypedState() *typedState {
	return &typedState{cols: map[string]string{}, kinds: map[string]Kind{}, untyped: map[string]bool{},
		plans: map[*FieldPlan]planCols{}}
}

// setUntyped lists field as held by no typed column from now on.
func (s *typedState) setUntyped(field string) {
	if !s.untyped[field] {
		s.untyped[field] = true
		s.gen++
	}
}

// planColumns is column for each field of p, remembered for p until a
// field is made untyped.
func (s *typedState) planColumns(p *FieldPlan) []int {
	if pc, ok := s.plans[p]; ok && pc.gen == s.gen {
		return pc.cols
	}
	cols := make([]int, len(p.Names))
	for j, name := range p.Names {
		cols[j] = s.column(name, p.Kinds[j])
	}
	// A name met twice with two kinds is made untyped by its second
	// sight: its first sight's column must not stand.
	for j, name := range p.Names {
		if s.untyped[name] {
			cols[j] = -1
		}
	}
	s.plans[p] = planCols{gen: s.gen, cols: cols}
	return cols
}

func typedCap(k Kind) int {
	switch k {
	case KindString:
		return TypedStrings
	case KindInt:
		return TypedInts
	case KindFloat:
		return TypedFloats
	case KindBool:
		return TypedBools
	}
	return 0
}

func typedName(k Kind, i int) string {
	return "typed_" + string("?sifb"[k]) + strconv.Itoa(i)
}

// column returns the column index of field (of kind k) in this file,
// giving it the next free one on first sight; -1 when none can hold it.
func (s *typedState) column(field string, k Kind) int {
	if s.untyped[field] {
		return -1
	}
	if name, ok := s.cols[field]; ok {
		if s.kinds[field] != k {
			s.setUntyped(field) // its type changed inside the file
			return -1
		}
		n, _ := strconv.Atoi(name[len("typed_x"):])
		return n
	}
	if k == KindNone || s.next[k] >= typedCap(k) {
		s.setUntyped(field)
		return -1
	}
	n := s.next[k]
	s.next[k]++
	s.cols[field], s.kinds[field] = typedName(k, n), k
	return n
}

// build makes the batch's TypedRows: each row, and its typed columns read
// from its decoded text where fields says where they lie. fields is
// aligned with rows, or nil (no row decoded).
func (s *typedState) build(rows []Row, fields []ValueFields) []TypedRow {
	s.rows = slices.Grow(s.rows[:0], len(rows))[:len(rows)]
	s.ints, s.floats, s.bools = s.ints[:0], s.floats[:0], s.bools[:0]
	// Values are pointed to, so their slices must not move: room for the
	// most a batch can hold.
	s.ints = slices.Grow(s.ints, len(rows)*TypedInts)
	s.floats = slices.Grow(s.floats, len(rows)*TypedFloats)
	s.bools = slices.Grow(s.bools, len(rows)*TypedBools)
	for i := range rows {
		tr := &s.rows[i]
		tr.Row, tr.Typed = rows[i], Typed{}
		if rows[i].ValueDecoded == nil {
			continue
		}
		if i >= len(fields) || fields[i].Plan == nil {
			s.opaque = true
			continue
		}
		s.fill(&tr.Typed, rows[i].ValueDecoded, &fields[i])
	}
	return s.rows
}

func (s *typedState) fill(t *Typed, text []byte, vf *ValueFields) {
	p := vf.Plan
	if len(vf.Spans) != 2*len(p.Names) {
		s.opaque = true
		return
	}
	cols := s.planColumns(p)
	for j, col := range cols {
		if col < 0 {
			continue
		}
		a, b := vf.Spans[2*j], vf.Spans[2*j+1]
		if a < 0 || b > int32(len(text)) || a >= b {
			s.setUntyped(p.Names[j])
			continue
		}
		v := text[a:b:b]
		if string(v) == "null" {
			continue
		}
		if j < 64 && j < len(vf.Nums) && vf.Direct&(1<<j) != 0 && s.setNum(t, p.Kinds[j], col, vf.Nums[j]) {
			continue
		}
		if j < 64 && vf.Plain&(1<<j) != 0 && p.Kinds[j] == KindString && len(v) >= 2 {
			*t.str(col) = v[1 : len(v)-1]
			continue
		}
		if !s.set(t, p.Kinds[j], col, v) {
			s.setUntyped(p.Names[j])
		}
	}
}

// set stores the JSON value v in typed column col of kind k, as the JSON
// path would read it: a string unescaped, a number parsed, NaN and the
// infinities (JSON strings) as floats.
func (s *typedState) set(t *Typed, k Kind, col int, v []byte) bool {
	switch k {
	case KindString:
		if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return false
		}
		inner := v[1 : len(v)-1]
		if !slices.Contains(inner, '\\') {
			*t.str(col) = inner
			return true
		}
		var u string
		if json.Unmarshal(v, &u) != nil {
			return false
		}
		*t.str(col) = []byte(u)
	case KindInt:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return false
		}
		s.ints = append(s.ints, n)
		*t.int(col) = &s.ints[len(s.ints)-1]
	case KindFloat:
		if v[0] == '"' {
			v = v[1 : len(v)-1]
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return false
		}
		s.floats = append(s.floats, f)
		*t.float(col) = &s.floats[len(s.floats)-1]
	case KindBool:
		switch string(v) {
		case "true":
			s.bools = append(s.bools, true)
		case "false":
			s.bools = append(s.bools, false)
		default:
			return false
		}
		*t.bool(col) = &s.bools[len(s.bools)-1]
	default:
		return false
	}
	return true
}

// setNum stores a number the decoder read (see ValueFields.Nums) in typed
// column col of kind k; false for a kind that has no number.
func (s *typedState) setNum(t *Typed, k Kind, col int, n uint64) bool {
	switch k {
	case KindInt:
		s.ints = append(s.ints, int64(n))
		*t.int(col) = &s.ints[len(s.ints)-1]
	case KindFloat:
		s.floats = append(s.floats, math.Float64frombits(n))
		*t.float(col) = &s.floats[len(s.floats)-1]
	case KindBool:
		s.bools = append(s.bools, n != 0)
		*t.bool(col) = &s.bools[len(s.bools)-1]
	default:
		return false
	}
	return true
}

// entry is the file's TypedColumns for its manifest entry.
func (s *typedState) entry() *TypedColumns {
	tc := &TypedColumns{Opaque: s.opaque}
	if len(s.cols) > 0 {
		tc.Columns = maps.Clone(s.cols)
	}
	for f := range s.untyped {
		tc.Untyped = append(tc.Untyped, f)
	}
	slices.Sort(tc.Untyped)
	return tc
}

// TypedColumnOf says which typed column holds field in every file of
// entries that holds a decoded value, and its kind: ok only when one
// column does for all of them (a file none of whose values has the field
// must not use that column for another). files with no decoded value are
// skipped; a file written before typed columns existed, or one whose
// values' fields are not known, makes it not ok.
func TypedColumnOf(entries []FileEntry, field string) (column string, kind Kind, ok bool) {
	var absent []*TypedColumns
	for i := range entries {
		f := &entries[i]
		if f.Decoded == 0 {
			continue
		}
		tc := f.Typed
		if tc == nil || tc.Opaque || slices.Contains(tc.Untyped, field) {
			return "", KindNone, false
		}
		c, has := tc.Columns[field]
		switch {
		case !has:
			absent = append(absent, tc)
		case column == "":
			column = c
		case column != c:
			return "", KindNone, false
		}
	}
	if column == "" {
		return "", KindNone, false
	}
	for _, tc := range absent {
		for _, c := range tc.Columns {
			if c == column {
				return "", KindNone, false
			}
		}
	}
	switch column[len("typed_")] {
	case 's':
		kind = KindString
	case 'i':
		kind = KindInt
	case 'f':
		kind = KindFloat
	case 'b':
		kind = KindBool
	default:
		return "", KindNone, false
	}
	return column, kind, true
}
