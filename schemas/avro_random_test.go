package schemas

// A seeded, deterministic differential test of the Avro decoder: random
// writer schemas (records nested a few deep, top-level records of up to 80
// fields, odd but legal names, namespaces, named types used again by name,
// recursive records, unions of every shape, logical types), random values
// with awkward edges, encoded with hamba/avro and decoded by the resolver;
// the JSON text is held to hamba's own reading of the same bytes turned
// into the conventions TestAvroJSON documents, and the field spans, numbers
// and plain-string bits to the text. Garbage (truncated, mutated and random
// payloads) must fail or decode to valid JSON, never panic or hang; where
// a mutated or random payload decodes, it must decode as hamba reads it.
//
// The only thing that varies from run to run is the order hamba writes a
// map's entries in (Go's map order): the checks of valid values are
// indifferent to it, but the bytes a mutation hits can differ. Set
// AVRO_RANDOM_SEED to run other seeds.
//
// Left out of the comparison, as no convention is written down for it: the
// typed-column kind of a duration (fieldPlan says VARCHAR, the text is an
// object). hamba is not asked to read garbage that holds a varint of the
// least int64 anywhere (as an array's block count it faults hamba v2.31.0),
// nor garbage whose text has a map with a key twice (hamba's keeps one).

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"

	"github.com/topicsnap/topicsnap/catalog"
)

// ---- the schema model ----

type rsKind uint8

const (
	rsNull rsKind = iota
	rsBoolean
	rsInt
	rsLong
	rsFloat
	rsDouble
	rsString
	rsBytes
	rsEnum
	rsFixed
	rsRecord
	rsArray
	rsMap
	rsUnion
	rsRef
)

var rsPrimitive = [...]string{"null", "boolean", "int", "long", "float", "double", "string", "bytes"}

// rs is one node of a generated schema.
type rs struct {
	kind      rsKind
	logical   string // uuid, date, time-millis, ..., decimal, duration
	precision int
	scale     int
	objForm   bool // a primitive written as {"type": ...}

	def    string // named types: the "name" written
	nsAttr string // named types: the "namespace" written, "" for none
	full   string // named types: the full name

	fields   []rsField
	symbols  []string
	size     int
	elem     *rs   // array items, map values
	branches []*rs // union
	target   *rs   // rsRef: the named type
	refText  string
	// recursive: a reference to a record still being defined (always where
	// a value can end: array items, map values, a union with null).
	recursive bool
	// height is the decoder depth a value reaches below this node on paths
	// that do not go through a recursive reference.
	height int
}

type rsField struct {
	name string
	typ  *rs
}

func (n *rs) resolved() *rs {
	if n.kind == rsRef {
		return n.target
	}
	return n
}

// nullableOf is the non-null branch of a union of null and one type.
func (n *rs) nullableOf() (*rs, bool) {
	n = n.resolved()
	if n.kind != rsUnion || len(n.branches) != 2 {
		return nil, false
	}
	switch {
	case n.branches[0].kind == rsNull:
		return n.branches[1].resolved(), true
	case n.branches[1].kind == rsNull:
		return n.branches[0].resolved(), true
	}
	return nil, false
}

// branchKey is the name of a union branch in the JSON text and in hamba's
// generic values: a named type's full name, else the type, with ".logical".
func (n *rs) branchKey() string {
	n = n.resolved()
	switch n.kind {
	case rsEnum, rsFixed, rsRecord:
		return n.full
	case rsArray:
		return "array"
	case rsMap:
		return "map"
	}
	k := rsPrimitive[n.kind]
	if n.logical != "" {
		k += "." + n.logical
	}
	return k
}

// unionCategory: two branches of one union may not share it.
func (n *rs) unionCategory() string {
	n = n.resolved()
	switch n.kind {
	case rsEnum, rsFixed, rsRecord:
		return "named:" + n.full
	case rsArray:
		return "array"
	case rsMap:
		return "map"
	}
	return rsPrimitive[n.kind]
}

func namespaceOf(full string) string {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i]
	}
	return ""
}

func (n *rs) json(b *strings.Builder) {
	q := func(s string) { b.WriteString(strconv.Quote(s)) } // names are ASCII
	switch n.kind {
	case rsRef:
		q(n.refText)
	case rsNull, rsBoolean, rsInt, rsLong, rsFloat, rsDouble, rsString, rsBytes:
		if !n.objForm && n.logical == "" {
			q(rsPrimitive[n.kind])
			return
		}
		b.WriteString(`{"type":`)
		q(rsPrimitive[n.kind])
		if n.logical != "" {
			b.WriteString(`,"logicalType":`)
			q(n.logical)
		}
		if n.logical == "decimal" {
			fmt.Fprintf(b, `,"precision":%d,"scale":%d`, n.precision, n.scale)
		}
		b.WriteByte('}')
	case rsEnum, rsFixed, rsRecord:
		b.WriteString(`{"type":`)
		q(map[rsKind]string{rsEnum: "enum", rsFixed: "fixed", rsRecord: "record"}[n.kind])
		b.WriteString(`,"name":`)
		q(n.def)
		if n.nsAttr != "" {
			b.WriteString(`,"namespace":`)
			q(n.nsAttr)
		}
		switch n.kind {
		case rsEnum:
			b.WriteString(`,"symbols":[`)
			for i, s := range n.symbols {
				if i > 0 {
					b.WriteByte(',')
				}
				q(s)
			}
			b.WriteByte(']')
		case rsFixed:
			fmt.Fprintf(b, `,"size":%d`, n.size)
			if n.logical != "" {
				b.WriteString(`,"logicalType":`)
				q(n.logical)
			}
			if n.logical == "decimal" {
				fmt.Fprintf(b, `,"precision":%d,"scale":%d`, n.precision, n.scale)
			}
		case rsRecord:
			b.WriteString(`,"fields":[`)
			for i, f := range n.fields {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(`{"name":`)
				q(f.name)
				b.WriteString(`,"type":`)
				f.typ.json(b)
				b.WriteByte('}')
			}
			b.WriteByte(']')
		}
		b.WriteByte('}')
	case rsArray:
		b.WriteString(`{"type":"array","items":`)
		n.elem.json(b)
		b.WriteByte('}')
	case rsMap:
		b.WriteString(`{"type":"map","values":`)
		n.elem.json(b)
		b.WriteByte('}')
	case rsUnion:
		b.WriteByte('[')
		for i, br := range n.branches {
			if i > 0 {
				b.WriteByte(',')
			}
			br.json(b)
		}
		b.WriteByte(']')
	}
}

func (n *rs) text() string {
	var b strings.Builder
	n.json(&b)
	return b.String()
}

// ---- the schema generator ----

const (
	genMaxNodes   = 220 // nodes per schema, past which only scalars are made
	genMaxRecords = 4   // records nested in records
	genMaxDepth   = 18  // decoder depth past which only scalars are made
	genRefDepth   = 24  // a reference's depth plus its type's height, at most
	valCutDepth   = 24  // decoder depth past which values end where they can
)

type schemaGen struct {
	rng   *rand.Rand
	named []*rs        // named types defined so far, in the text's order
	open  map[*rs]bool // records being defined
	nodes int
	seq   int
}

func newSchemaGen(rng *rand.Rand) *schemaGen {
	return &schemaGen{rng: rng, open: map[*rs]bool{}}
}

const (
	identStart = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
	identChars = identStart + "0123456789"
)

// ident is a legal Avro name: [A-Za-z_][A-Za-z0-9_]*, often odd.
func (g *schemaGen) ident() string {
	r := g.rng
	word := func(n int) string {
		b := []byte{identStart[r.IntN(len(identStart))]}
		for range n {
			b = append(b, identChars[r.IntN(len(identChars))])
		}
		return string(b)
	}
	switch r.IntN(12) {
	case 0:
		return strings.Repeat("_", 1+r.IntN(3)) + word(r.IntN(4))
	case 1:
		return word(60 + r.IntN(200)) // long
	case 2:
		return []string{"type", "null", "record", "int", "string", "name", "namespace", "fields", "items",
			"values", "symbols", "default", "doc", "order", "aliases", "logicalType", "_", "__", "A", "z9"}[r.IntN(20)]
	case 3:
		return "A_" + strconv.Itoa(r.IntN(100000)) + "_"
	}
	return word(r.IntN(9))
}

// typeName is an ident unique among the schema's type names (which a
// keyword such as a primitive's name may not be).
func (g *schemaGen) typeName() string {
	g.seq++
	base := g.ident()
	if len(base) > 80 {
		base = base[:80]
	}
	if c := base[0]; c >= '0' && c <= '9' {
		base = "_" + base
	}
	return "T" + base + "_" + strconv.Itoa(g.seq)
}

func (g *schemaGen) space() string {
	n := 1 + g.rng.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		s := g.ident()
		if len(s) > 30 {
			s = s[:30]
		}
		parts[i] = "n" + s // never a keyword
	}
	return strings.Join(parts, ".")
}

// name gives a named type its name in scope ns: the scope's namespace, a
// namespace of its own, or a dotted full name.
func (g *schemaGen) name(n *rs, ns string) {
	base := g.typeName()
	switch g.rng.IntN(4) {
	case 0:
		sp := g.space()
		n.def, n.nsAttr, n.full = base, sp, sp+"."+base
	case 1:
		sp := g.space()
		n.def, n.full = sp+"."+base, sp+"."+base
	default:
		n.def, n.full = base, base
		if ns != "" {
			n.full = ns + "." + base
		}
	}
	g.named = append(g.named, n)
}

type choice struct {
	what   string
	weight int
	scalar bool
}

var choices = []choice{
	{"null", 1, true}, {"boolean", 4, true}, {"int", 5, true}, {"long", 5, true}, {"float", 3, true},
	{"double", 4, true}, {"string", 7, true}, {"bytes", 3, true}, {"uuid", 1, true}, {"date", 1, true},
	{"time-millis", 1, true}, {"time-micros", 1, true}, {"timestamp-millis", 2, true},
	{"timestamp-micros", 1, true}, {"local-timestamp-millis", 1, true}, {"local-timestamp-micros", 1, true},
	{"decimal-bytes", 2, true}, {"enum", 3, true}, {"fixed", 2, true}, {"decimal-fixed", 2, true},
	{"duration", 1, true}, {"ref", 4, true},
	{"record", 3, false}, {"array", 3, false}, {"map", 3, false}, {"union", 7, false},
}

// category of a choice, for a union's branches (ref and the named kinds
// are checked by name).
var choiceCategory = map[string]string{
	"null": "null", "boolean": "boolean", "int": "int", "date": "int", "time-millis": "int",
	"long": "long", "time-micros": "long", "timestamp-millis": "long", "timestamp-micros": "long",
	"local-timestamp-millis": "long", "local-timestamp-micros": "long", "float": "float", "double": "double",
	"string": "string", "uuid": "string", "bytes": "bytes", "decimal-bytes": "bytes", "array": "array", "map": "map",
}

// maxFixedPrecision is the most decimal digits a two's-complement number
// of size bytes holds: the largest p with 10^p <= 2^(8 size - 1).
func maxFixedPrecision(size int) int {
	lim := new(big.Int).Lsh(big.NewInt(1), uint(8*size-1))
	p, ten := 0, big.NewInt(1)
	for {
		ten.Mul(ten, big.NewInt(10))
		if ten.Cmp(lim) > 0 {
			return p
		}
		p++
	}
}

// typ makes a type at decoder depth d, inside recs records, in namespace
// ns. guarded: a recursive reference may stand here. avoid, for a union's
// branch: the categories taken (and no null, no union).
func (g *schemaGen) typ(d, recs int, ns string, guarded bool, avoid map[string]bool) *rs {
	g.nodes++
	r := g.rng
	onlyScalars := g.nodes > genMaxNodes || d > genMaxDepth
	total := 0
	for _, c := range choices {
		if c.scalar || !onlyScalars {
			total += c.weight
		}
	}
	for {
		x := r.IntN(total)
		var c choice
		for _, c = range choices {
			if !c.scalar && onlyScalars {
				continue
			}
			if x < c.weight {
				break
			}
			x -= c.weight
		}
		if avoid != nil && (c.what == "null" || c.what == "union" || avoid[choiceCategory[c.what]]) {
			continue
		}
		if c.what == "record" && recs >= genMaxRecords {
			continue
		}
		if n := g.make(c.what, d, recs, ns, guarded, avoid); n != nil {
			return n
		}
	}
}

func (g *schemaGen) make(what string, d, recs int, ns string, guarded bool, avoid map[string]bool) *rs {
	r := g.rng
	prim := func(k rsKind, logical string) *rs {
		return &rs{kind: k, logical: logical, objForm: r.IntN(4) == 0}
	}
	switch what {
	case "null":
		return prim(rsNull, "")
	case "boolean":
		return prim(rsBoolean, "")
	case "int":
		return prim(rsInt, "")
	case "long":
		return prim(rsLong, "")
	case "float":
		return prim(rsFloat, "")
	case "double":
		return prim(rsDouble, "")
	case "string":
		return prim(rsString, "")
	case "bytes":
		return prim(rsBytes, "")
	case "uuid":
		return prim(rsString, "uuid")
	case "date", "time-millis":
		return prim(rsInt, what)
	case "time-micros", "timestamp-millis", "timestamp-micros", "local-timestamp-millis", "local-timestamp-micros":
		return prim(rsLong, what)
	case "decimal-bytes":
		n := prim(rsBytes, "decimal")
		n.precision = 1 + r.IntN(60)
		if r.IntN(3) == 0 {
			n.precision = 1 + r.IntN(12)
		}
		n.scale = r.IntN(n.precision + 1)
		return n
	case "enum":
		n := &rs{kind: rsEnum}
		g.name(n, ns)
		count := 1 + r.IntN(6)
		if r.IntN(8) == 0 {
			count = 60 + r.IntN(40)
		}
		seen := map[string]bool{}
		for len(n.symbols) < count {
			s := g.ident()
			if !seen[s] {
				seen[s] = true
				n.symbols = append(n.symbols, s)
			}
		}
		return n
	case "fixed", "decimal-fixed", "duration":
		n := &rs{kind: rsFixed}
		switch what {
		case "fixed":
			n.size = r.IntN(21)
			if r.IntN(10) == 0 {
				n.size = 100 + r.IntN(50)
			}
		case "decimal-fixed":
			n.size = 1 + r.IntN(20)
			n.logical = "decimal"
			n.precision = 1 + r.IntN(maxFixedPrecision(n.size))
			n.scale = r.IntN(n.precision + 1)
		case "duration":
			n.size, n.logical = 12, "duration"
		}
		g.name(n, ns)
		return n
	case "ref":
		var targets []*rs
		for _, t := range g.named {
			switch {
			case g.open[t] && !guarded:
			case !g.open[t] && d+t.height > genRefDepth:
			case avoid != nil && avoid[t.unionCategory()]:
			case ns != "" && namespaceOf(t.full) == "": // a null-namespace name cannot be written from a namespace
			default:
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			return nil
		}
		t := targets[r.IntN(len(targets))]
		n := &rs{kind: rsRef, target: t, refText: t.full, recursive: g.open[t]}
		if namespaceOf(t.full) == ns && r.IntN(2) == 0 {
			n.refText = t.full[strings.LastIndexByte(t.full, '.')+1:]
		}
		if !n.recursive {
			n.height = t.height
		}
		return n
	case "record":
		nf := r.IntN(7)
		if r.IntN(5) == 0 {
			nf = 0
		}
		return g.record(d, recs, ns, nf)
	case "array", "map":
		n := &rs{kind: rsArray}
		if what == "map" {
			n.kind = rsMap
		}
		n.elem = g.typ(d+1, recs, ns, true, nil)
		n.height = 1 + n.elem.height
		return n
	case "union":
		return g.union(d, recs, ns)
	}
	panic("unknown choice " + what)
}

func (g *schemaGen) record(d, recs int, ns string, nFields int) *rs {
	n := &rs{kind: rsRecord}
	g.name(n, ns)
	g.open[n] = true
	inner := namespaceOf(n.full)
	seen := map[string]bool{}
	for len(n.fields) < nFields {
		name := g.ident()
		if seen[name] {
			continue
		}
		seen[name] = true
		ft := g.typ(d+1, recs+1, inner, false, nil)
		n.fields = append(n.fields, rsField{name, ft})
		n.height = max(n.height, 1+ft.height)
	}
	delete(g.open, n)
	return n
}

func (g *schemaGen) union(d, recs int, ns string) *rs {
	r := g.rng
	n := &rs{kind: rsUnion}
	nonNull, nullAt := 1, -1
	switch x := r.IntN(20); {
	case x < 9: // ["null", T] or [T, "null"]
		nullAt = r.IntN(2)
	case x < 15: // several types, null anywhere among them
		nonNull, nullAt = 2+r.IntN(3), r.IntN(5)
	case x < 17: // several types, no null
		nonNull = 2 + r.IntN(3)
	case x < 19: // [T]
	default: // ["null"]
		nonNull, nullAt = 0, 0
	}
	avoid := map[string]bool{}
	for range nonNull {
		b := g.typ(d+1, recs, ns, nullAt >= 0, avoid)
		avoid[b.unionCategory()] = true
		n.branches = append(n.branches, b)
		n.height = max(n.height, 1+b.height)
	}
	if nullAt >= 0 {
		at := min(nullAt, len(n.branches))
		n.branches = append(n.branches[:at], append([]*rs{{kind: rsNull, objForm: r.IntN(6) == 0}}, n.branches[at:]...)...)
	}
	return n
}

// topSchema is a record most of the time, of 0 to 80 fields (past 64,
// beyond the bitmasks), else any type.
func (g *schemaGen) topSchema() *rs {
	r := g.rng
	if r.IntN(100) >= 85 {
		return g.typ(0, 0, "", false, nil)
	}
	var nf int
	switch x := r.IntN(20); {
	case x < 2:
		nf = r.IntN(3)
	case x < 10:
		nf = 3 + r.IntN(13)
	case x < 15:
		nf = 16 + r.IntN(48)
	default:
		nf = 64 + r.IntN(17)
	}
	return g.record(0, 0, "", nf)
}

// ---- values ----

type valGen struct {
	rng  *rand.Rand
	left int // nodes to make before values end where they can
}

var stringPieces = []string{`"`, `\`, "\x00", "\x01", "\x1f", "\x7f", "\n", "\r", "\t", "\b", "\f", "é", "日本",
	"😀", "\u2028", "\u2029", "\ufffd", "<>&", "/", "'", `\u0041`}

// notUTF8Pieces are bytes that are not UTF-8: a value holding one fails
// (it was read with U+FFFD in their place). Rare, so that most values
// still decode and are compared.
var notUTF8Pieces = []string{"\xff", "\xc3", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80", "\xe2\x82", "\x80"}

const plainChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~"

func (v *valGen) str() string {
	r := v.rng
	plain := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = plainChars[r.IntN(len(plainChars))]
		}
		return string(b)
	}
	switch r.IntN(10) {
	case 0:
		return ""
	case 1, 2, 3:
		return plain(1 + r.IntN(24))
	case 4:
		return plain(100 + r.IntN(200))
	}
	var b strings.Builder
	for range 1 + r.IntN(5) {
		b.WriteString(plain(r.IntN(10)))
		if r.IntN(1000) == 0 {
			b.WriteString(notUTF8Pieces[r.IntN(len(notUTF8Pieces))])
		} else {
			b.WriteString(stringPieces[r.IntN(len(stringPieces))])
		}
	}
	b.WriteString(plain(r.IntN(4)))
	return b.String()
}

func (v *valGen) int32() int32 {
	r := v.rng
	if r.IntN(3) == 0 {
		return []int32{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, math.MaxInt32, math.MinInt32, math.MaxInt32 - 1}[r.IntN(13)]
	}
	return int32(r.Uint32()) >> r.IntN(32)
}

func (v *valGen) int64() int64 {
	r := v.rng
	if r.IntN(3) == 0 {
		return []int64{0, 1, -1, 63, -64, 64, -65, math.MaxInt32, math.MinInt32, 1 << 53, -(1 << 53) - 1,
			math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}[r.IntN(15)]
	}
	return int64(r.Uint64()) >> r.IntN(64)
}

func (v *valGen) float64() float64 {
	r := v.rng
	switch r.IntN(4) {
	case 0:
		return []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0.1, 1e21, 1e20, 1e-7, 1e-6, 123456789.125,
			2.2250738585072014e-308, 9007199254740993, -1.5, math.Float64frombits(0x7ff0000000000001),
			math.Float64frombits(0xfff8000000000123)}[r.IntN(20)]
	case 1:
		return math.Float64frombits(r.Uint64()) // NaNs with payloads among them
	case 2:
		return float64(r.Int64N(2000000) - 1000000)
	}
	return (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(40)-20))
}

func (v *valGen) float32() float32 {
	r := v.rng
	switch r.IntN(4) {
	case 0:
		return []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)),
			math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-40, 0.1, 16777216, 16777217, 3.4e38,
			1e21, 1e-7, math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00123)}[r.IntN(17)]
	case 1:
		return math.Float32frombits(r.Uint32())
	case 2:
		return float32(r.IntN(200000) - 100000)
	}
	return float32((r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(20)-10)))
}

func (v *valGen) randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(v.rng.UintN(256))
	}
	return b
}

// decimal is a number of at most precision digits with scale of them after
// the point, as hamba encodes it (exactly).
func (v *valGen) decimal(precision, scale int) *big.Rat {
	r := v.rng
	ten := func(p int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil) }
	var u *big.Int
	switch r.IntN(6) {
	case 0:
		u = new(big.Int)
	case 1:
		u = new(big.Int).Sub(ten(precision), big.NewInt(1)) // all nines
	case 2:
		u = new(big.Int).Neg(new(big.Int).Sub(ten(precision), big.NewInt(1)))
	case 3:
		u = new(big.Int).Neg(ten(precision - 1))
	default:
		digits := []byte{byte('1' + r.IntN(9))}
		for range r.IntN(precision) {
			digits = append(digits, byte('0'+r.IntN(10)))
		}
		u, _ = new(big.Int).SetString(string(digits), 10)
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
	}
	return new(big.Rat).SetFrac(u, ten(scale))
}

func (v *valGen) val(n *rs, d int) any {
	r := v.rng
	v.left--
	stop := v.left <= 0 || d > valCutDepth
	switch n.kind {
	case rsRef:
		return v.val(n.target, d)
	case rsNull:
		return nil
	case rsBoolean:
		return r.IntN(2) == 0
	case rsInt:
		// Dates and timestamps up to the ends of SQL's range: past them a
		// value fails (TestAvroTimesOutsideSQLRange), where 2^31-1 days
		// and 2^63-1 ms decoded to a text the engine read as NULL.
		switch n.logical {
		case "date":
			days := int64(r.IntN(200000) - 100000)
			if r.IntN(4) == 0 {
				days = []int64{0, -1, 1, 2932896, 2932897, -719162, -719163, -719528, maxDate, minDate}[r.IntN(10)]
			}
			return time.Unix(days*86400, 0).UTC()
		case "time-millis":
			ms := int64(r.IntN(86400000))
			if r.IntN(5) == 0 {
				// Only times of day: one outside a day does not decode
				// (TestPayloadsTheSchemaDoesNotSpan).
				ms = []int64{0, 86399999, 1, 999, 1000}[r.IntN(5)]
			}
			return time.Duration(ms) * time.Millisecond
		}
		return int(v.int32())
	case rsLong:
		switch n.logical {
		case "time-micros":
			us := r.Int64N(86400000000)
			if r.IntN(5) == 0 {
				us = []int64{0, 86399999999, 1, 999999}[r.IntN(4)]
			}
			return time.Duration(us) * time.Microsecond
		case "timestamp-millis", "local-timestamp-millis":
			ms := r.Int64N(2e13) - 1e13
			if r.IntN(4) == 0 {
				ms = []int64{0, -1, 1, -999, -1000, -1001, 253402300799999, 253402300800000, -62135596800000,
					-62135596800001, -62167219200000, -62167219200001, maxTimestamp / 1000, minTimestamp / 1000}[r.IntN(14)]
			}
			return time.UnixMilli(ms).UTC()
		case "timestamp-micros", "local-timestamp-micros":
			us := r.Int64N(2e16) - 1e16
			if r.IntN(4) == 0 {
				us = []int64{0, -1, 1, -999999, -1000000, -1000001, 253402300799999999, 253402300800000000,
					-62135596800000000, -62135596800000001, maxTimestamp, minTimestamp}[r.IntN(12)]
			}
			return time.UnixMicro(us).UTC()
		}
		return v.int64()
	case rsFloat:
		return v.float32()
	case rsDouble:
		return v.float64()
	case rsString:
		if n.logical == "uuid" {
			b := v.randBytes(16)
			s := fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
			if r.IntN(4) == 0 {
				s = strings.ToUpper(s)
			}
			return s
		}
		return v.str()
	case rsBytes:
		if n.logical == "decimal" {
			return v.decimal(n.precision, n.scale)
		}
		size := r.IntN(25)
		if r.IntN(10) == 0 {
			size = 200 + r.IntN(200)
		}
		return v.randBytes(size)
	case rsEnum:
		return n.symbols[r.IntN(len(n.symbols))]
	case rsFixed:
		switch n.logical {
		case "decimal":
			return v.decimal(n.precision, n.scale)
		case "duration":
			u := func() uint32 {
				if r.IntN(3) == 0 {
					return []uint32{0, 1, math.MaxUint32, math.MaxInt32 + 1}[r.IntN(4)]
				}
				return r.Uint32() >> r.IntN(32)
			}
			return avro.LogicalDuration{Months: u(), Days: u(), Milliseconds: u()}
		}
		a := reflect.New(reflect.ArrayOf(n.size, reflect.TypeFor[byte]())).Elem()
		reflect.Copy(a, reflect.ValueOf(v.randBytes(n.size)))
		return a.Interface()
	case rsRecord:
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			m[f.name] = v.val(f.typ, d+1)
		}
		return m
	case rsArray, rsMap:
		count := 0
		if !stop {
			switch x := r.IntN(10); {
			case x < 2:
			case x < 9:
				count = 1 + r.IntN(5)
			default:
				if n.elem.resolved().kind <= rsBytes || n.elem.resolved().kind == rsEnum {
					count = 101 + r.IntN(150) // several blocks
				} else {
					count = 6 + r.IntN(4)
				}
			}
		}
		if n.kind == rsArray {
			a := make([]any, count)
			for i := range a {
				a[i] = v.val(n.elem, d+1)
			}
			return a
		}
		m := make(map[string]any, count)
		for len(m) < count {
			k := v.str()
			if r.IntN(3) == 0 {
				k = "k" + strconv.Itoa(len(m))
			}
			if _, dup := m[k]; !dup {
				m[k] = v.val(n.elem, d+1)
			}
		}
		return m
	case rsUnion:
		nullAt := -1
		for i, b := range n.branches {
			if b.kind == rsNull {
				nullAt = i
			}
		}
		if nullAt >= 0 && (stop || r.IntN(4) == 0 || len(n.branches) == 1) {
			return nil
		}
		for {
			b := n.branches[r.IntN(len(n.branches))]
			if b.kind == rsNull {
				continue
			}
			return map[string]any{b.branchKey(): v.val(b, d+1)}
		}
	}
	panic(fmt.Sprintf("value of kind %d", n.kind))
}

// ---- what the JSON text should be, from hamba's reading ----

// ev is an expected JSON value: 'n' null, 'b' bool, 'i' integer, 'f' float
// (of bits 32 or 64; NaN and the infinities as strings), 's' string, '['
// array, '{' object (keys in order), 'm' map (entries in any order), '*'
// anything (a convention left out: see refValue), 'A' any of vals.
type ev struct {
	kind byte
	b    bool
	i    int64
	f    float64
	bits int
	s    string
	keys []string
	vals []*ev
}

// notUTF8 reports whether a value hamba read holds a string or a map key
// that is not UTF-8 (hamba takes a string's bytes as they are).
func notUTF8(v any) bool {
	switch x := v.(type) {
	case string:
		return !utf8.ValidString(x)
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) || notUTF8(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if notUTF8(e) {
				return true
			}
		}
	}
	return false
}

// validText is s with each byte that is not part of valid UTF-8 replaced
// by U+FFFD, as encoding/json does.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func timeOfDay(d time.Duration) *ev {
	// Out of a day (negative, or 24 h and more) a value does not decode
	// (TestPayloadsTheSchemaDoesNotSpan); the values made here are within.
	if d < 0 || d >= 24*time.Hour {
		return &ev{kind: '*'}
	}
	us := int64(d / time.Microsecond)
	return &ev{kind: 's', s: fmt.Sprintf("%02d:%02d:%02d.%06d", us/3600e6, us/60e6%60, us/1e6%60, us%1e6)}
}

// refValue turns hamba's generic value v of node n into the JSON the
// conventions of TestAvroJSON give.
func refValue(n *rs, v any) (*ev, error) {
	n = n.resolved()
	bad := func() (*ev, error) { return nil, fmt.Errorf("hamba gave %T for %s", v, n.text()) }
	switch n.kind {
	case rsNull:
		if v != nil {
			return bad()
		}
		return &ev{kind: 'n'}, nil
	case rsBoolean:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return &ev{kind: 'b', b: b}, nil
	case rsInt, rsLong:
		switch n.logical {
		case "date":
			t, ok := v.(time.Time)
			if !ok {
				return bad()
			}
			return &ev{kind: 's', s: t.UTC().Format(time.DateOnly)}, nil
		case "time-millis", "time-micros":
			d, ok := v.(time.Duration)
			if !ok {
				return bad()
			}
			return timeOfDay(d), nil
		case "timestamp-millis", "timestamp-micros":
			t, ok := v.(time.Time)
			if !ok {
				return bad()
			}
			return &ev{kind: 's', s: t.UTC().Format(time.RFC3339Nano)}, nil
		case "local-timestamp-millis", "local-timestamp-micros":
			t, ok := v.(time.Time)
			if !ok {
				return bad()
			}
			// hamba's wall clock is the local time written.
			return &ev{kind: 's', s: t.Format("2006-01-02T15:04:05.999999")}, nil
		}
		switch x := v.(type) {
		case int:
			return &ev{kind: 'i', i: int64(x)}, nil
		case int64:
			return &ev{kind: 'i', i: x}, nil
		}
		return bad()
	case rsFloat:
		f, ok := v.(float32)
		if !ok {
			return bad()
		}
		return &ev{kind: 'f', f: float64(f), bits: 32}, nil
	case rsDouble:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		return &ev{kind: 'f', f: f, bits: 64}, nil
	case rsString, rsEnum:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		return &ev{kind: 's', s: validText(s)}, nil
	case rsBytes, rsFixed:
		switch n.logical {
		case "decimal":
			d, ok := v.(*big.Rat)
			if !ok {
				return bad()
			}
			return &ev{kind: 's', s: d.FloatString(n.scale)}, nil
		case "duration":
			d, ok := v.(avro.LogicalDuration)
			if !ok {
				return bad()
			}
			return &ev{kind: '{', keys: []string{"months", "days", "milliseconds"}, vals: []*ev{
				{kind: 'i', i: int64(d.Months)}, {kind: 'i', i: int64(d.Days)}, {kind: 'i', i: int64(d.Milliseconds)}}}, nil
		}
		var raw []byte
		if n.kind == rsBytes {
			b, ok := v.([]byte)
			if !ok {
				return bad()
			}
			raw = b
		} else {
			rv := reflect.ValueOf(v)
			if rv.Kind() != reflect.Array || rv.Len() != n.size {
				return bad()
			}
			raw = make([]byte, n.size)
			reflect.Copy(reflect.ValueOf(raw), rv)
		}
		return &ev{kind: 's', s: base64.StdEncoding.EncodeToString(raw)}, nil
	case rsRecord:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		e := &ev{kind: '{'}
		for _, f := range n.fields {
			fv, err := refValue(f.typ, m[f.name])
			if err != nil {
				return nil, err
			}
			e.keys, e.vals = append(e.keys, f.name), append(e.vals, fv)
		}
		return e, nil
	case rsArray:
		a, ok := v.([]any)
		if !ok {
			return bad()
		}
		e := &ev{kind: '['}
		for _, x := range a {
			xv, err := refValue(n.elem, x)
			if err != nil {
				return nil, err
			}
			e.vals = append(e.vals, xv)
		}
		return e, nil
	case rsMap:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		e := &ev{kind: 'm'}
		for k, x := range m {
			xv, err := refValue(n.elem, x)
			if err != nil {
				return nil, err
			}
			e.keys, e.vals = append(e.keys, validText(k)), append(e.vals, xv)
		}
		return e, nil
	case rsUnion:
		if v == nil {
			return &ev{kind: 'n'}, nil
		}
		_, isNullable := n.nullableOf()
		branch := func(b *rs, x any) (*ev, error) {
			bv, err := refValue(b, x)
			if err != nil || isNullable {
				return bv, err
			}
			return &ev{kind: '{', keys: []string{b.branchKey()}, vals: []*ev{bv}}, nil
		}
		if !hambaResolves(n) {
			// hamba's generic value: {"branch": value}.
			m, ok := v.(map[string]any)
			if !ok || len(m) != 1 {
				return bad()
			}
			for k, x := range m {
				for _, b := range n.branches {
					if b.branchKey() == k {
						return branch(b, x)
					}
				}
				return nil, fmt.Errorf("hamba named union branch %q, not one of %s", k, n.text())
			}
		}
		// hamba's generic value is the branch's own: which branch it is
		// is told by its Go type, but for a time.Time or a time.Duration
		// that two branches can give (a date and a timestamp).
		alt := &ev{kind: 'A'}
		for _, b := range n.branches {
			if b.kind == rsNull || !hambaGoType(b, v) {
				continue
			}
			bv, err := branch(b, v)
			if err != nil {
				return nil, err
			}
			alt.vals = append(alt.vals, bv)
		}
		switch len(alt.vals) {
		case 0:
			return bad()
		case 1:
			return alt.vals[0], nil
		}
		return alt, nil
	}
	return bad()
}

// hambaResolved names the union branches hamba's type resolver knows: a
// union of only these decodes, as a generic value, to the branch's value
// itself; any other to {"branch": value}.
var hambaResolved = map[string]bool{"null": true, "boolean": true, "int": true, "long": true, "float": true,
	"double": true, "string": true, "bytes": true, "int.date": true, "int.time-millis": true,
	"long.timestamp-millis": true, "long.timestamp-micros": true, "long.time-micros": true,
	"bytes.decimal": true, "string.uuid": true}

func hambaResolves(n *rs) bool {
	for _, b := range n.branches {
		if !hambaResolved[b.branchKey()] {
			return false
		}
	}
	return true
}

// hambaGoType reports whether v is of the Go type hamba decodes b to.
func hambaGoType(b *rs, v any) bool {
	b = b.resolved()
	switch v.(type) {
	case bool:
		return b.kind == rsBoolean
	case int:
		return b.kind == rsInt && b.logical == ""
	case int64:
		return b.kind == rsLong && b.logical == ""
	case float32:
		return b.kind == rsFloat
	case float64:
		return b.kind == rsDouble
	case string:
		return b.kind == rsString
	case []byte:
		return b.kind == rsBytes && b.logical == ""
	case *big.Rat:
		return b.kind == rsBytes && b.logical == "decimal"
	case time.Time:
		return b.logical == "date" || b.logical == "timestamp-millis" || b.logical == "timestamp-micros"
	case time.Duration:
		return b.logical == "time-millis" || b.logical == "time-micros"
	}
	return false
}

// ---- the JSON text read back ----

// jv is a JSON value as the text has it: 'n', 'b', '#' (number, s its
// text), 's', '[', '{' (keys in order); at [start, end) of the text.
type jv struct {
	kind       byte
	b          bool
	s          string
	keys       []string
	vals       []*jv
	dup        bool // an object here or below has a key twice
	start, end int
}

// parseJV reads a text json.Valid accepts (it is no validator itself),
// keeping the order of keys and where each value lies.
func parseJV(text []byte) (*jv, error) {
	p := &jvParser{s: text}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if p.ws(); p.i != len(p.s) {
		return nil, fmt.Errorf("text after the value at %d", p.i)
	}
	return v, nil
}

type jvParser struct {
	s []byte
	i int
}

func (p *jvParser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jvParser) expect(c byte) error {
	if p.ws(); p.i >= len(p.s) || p.s[p.i] != c {
		return fmt.Errorf("want %q at %d", c, p.i)
	}
	p.i++
	return nil
}

func (p *jvParser) str() (string, error) {
	if p.ws(); p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", fmt.Errorf("want a string at %d", p.i)
	}
	start, esc := p.i, false
	for p.i++; p.i < len(p.s) && p.s[p.i] != '"'; p.i++ {
		if p.s[p.i] == '\\' {
			esc = true
			p.i++
		}
	}
	p.i++
	if p.i > len(p.s) {
		return "", io.ErrUnexpectedEOF
	}
	raw := p.s[start:p.i]
	if !esc {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

func (p *jvParser) value() (*jv, error) {
	p.ws()
	if p.i >= len(p.s) {
		return nil, io.ErrUnexpectedEOF
	}
	v := &jv{start: p.i}
	defer func() { v.end = p.i }()
	switch c := p.s[p.i]; c {
	case '"':
		s, err := p.str()
		v.kind, v.s = 's', s
		return v, err
	case '{', '[':
		p.i++
		v.kind = c
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		seen := map[string]bool{}
		if p.ws(); p.i < len(p.s) && p.s[p.i] == closing {
			p.i++
			return v, nil
		}
		for {
			if c == '{' {
				k, err := p.str()
				if err != nil {
					return nil, err
				}
				if err := p.expect(':'); err != nil {
					return nil, err
				}
				v.dup = v.dup || seen[k]
				seen[k] = true
				v.keys = append(v.keys, k)
			}
			e, err := p.value()
			if err != nil {
				return nil, err
			}
			v.dup = v.dup || e.dup
			v.vals = append(v.vals, e)
			if p.ws(); p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			return v, p.expect(closing)
		}
	}
	for _, lit := range []string{"null", "true", "false"} {
		if bytes.HasPrefix(p.s[p.i:], []byte(lit)) {
			p.i += len(lit)
			v.kind, v.b = lit[0], lit == "true"
			if v.kind == 't' || v.kind == 'f' {
				v.kind = 'b'
			}
			return v, nil
		}
	}
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	if p.i == v.start {
		return nil, fmt.Errorf("no value at %d", p.i)
	}
	v.kind, v.s = '#', string(p.s[v.start:p.i])
	return v, nil
}

func (a *jv) String() string {
	switch a.kind {
	case 'n':
		return "null"
	case 'b':
		return strconv.FormatBool(a.b)
	case '#':
		return a.s
	case 's':
		return strconv.Quote(a.s)
	}
	var b strings.Builder
	b.WriteByte(a.kind)
	for i, v := range a.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if a.kind == '{' {
			b.WriteString(strconv.Quote(a.keys[i]) + ":")
		}
		b.WriteString(v.String())
	}
	b.WriteByte(map[byte]byte{'[': ']', '{': '}'}[a.kind])
	return b.String()
}

// match holds the text's value a to the expected e.
func match(e *ev, a *jv, path string) error {
	fail := func(want string) error { return fmt.Errorf("at %s: got %s, want %s", path, a, want) }
	switch e.kind {
	case '*':
		return nil
	case 'A':
		var errs []error
		for _, alt := range e.vals {
			err := match(alt, a, path)
			if err == nil {
				return nil
			}
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	case 'n':
		if a.kind != 'n' {
			return fail("null")
		}
	case 'b':
		if a.kind != 'b' || a.b != e.b {
			return fail(strconv.FormatBool(e.b))
		}
	case 'i':
		if a.kind != '#' {
			return fail(strconv.FormatInt(e.i, 10))
		}
		if n, err := strconv.ParseInt(a.s, 10, 64); err != nil || n != e.i {
			return fail(strconv.FormatInt(e.i, 10))
		}
	case 'f':
		want := strconv.FormatFloat(e.f, 'g', -1, e.bits)
		if math.IsNaN(e.f) || math.IsInf(e.f, 0) {
			// No JSON number: a string that reads back as the value.
			f, err := strconv.ParseFloat(a.s, e.bits)
			if a.kind != 's' || err != nil || math.IsNaN(f) != math.IsNaN(e.f) || (!math.IsNaN(f) && f != e.f) {
				return fail(want + " as a string")
			}
			return nil
		}
		f, err := strconv.ParseFloat(a.s, e.bits)
		if a.kind != '#' || err != nil || f != e.f || math.Signbit(f) != math.Signbit(e.f) {
			return fail(want)
		}
		// -0 is not written as an integer ("-0" reads back as 0 where
		// integers are read as such): appendFloat keeps its sign.
		if e.f == 0 && math.Signbit(e.f) && !strings.ContainsAny(a.s, ".eE") {
			return fail("-0 written as a float")
		}
	case 's':
		if a.kind != 's' || a.s != e.s {
			return fail(strconv.Quote(e.s))
		}
	case '[':
		if a.kind != '[' || len(a.vals) != len(e.vals) {
			return fail(fmt.Sprintf("an array of %d", len(e.vals)))
		}
		for i := range e.vals {
			if err := match(e.vals[i], a.vals[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case '{':
		if a.kind != '{' || len(a.keys) != len(e.keys) {
			return fail(fmt.Sprintf("an object with the keys %q", e.keys))
		}
		for i := range e.keys {
			if a.keys[i] != e.keys[i] {
				return fail(fmt.Sprintf("an object with the keys %q", e.keys))
			}
			if err := match(e.vals[i], a.vals[i], path+"."+e.keys[i]); err != nil {
				return err
			}
		}
	case 'm':
		if a.kind != '{' || len(a.keys) != len(e.keys) {
			return fail(fmt.Sprintf("a map of %d", len(e.keys)))
		}
		// Entries in any order; keys made valid UTF-8 may meet.
		used := make([]bool, len(a.keys))
	entries:
		for i, k := range e.keys {
			for j := range a.keys {
				if !used[j] && a.keys[j] == k && match(e.vals[i], a.vals[j], path) == nil {
					used[j] = true
					continue entries
				}
			}
			return fail(fmt.Sprintf("an entry %q", k))
		}
	default:
		return fmt.Errorf("expected kind %q", e.kind)
	}
	return nil
}

// ---- the field plan ----

// wantKind is the typed column kind fieldPlan documents for a field of
// type t; known is false where no convention is written down.
func wantKind(t *rs) (k catalog.Kind, known bool) {
	t = t.resolved()
	if b, ok := t.nullableOf(); ok {
		t = b
	}
	decimal := func() catalog.Kind {
		if t.precision > 38 {
			return catalog.KindString // wider than DuckDB's DECIMAL: text
		}
		return catalog.KindNone
	}
	switch t.kind {
	case rsInt, rsLong:
		if t.logical == "" {
			return catalog.KindInt, true
		}
	case rsFloat, rsDouble:
		return catalog.KindFloat, true
	case rsBoolean:
		return catalog.KindBool, true
	case rsString:
		if t.logical == "" {
			return catalog.KindString, true
		}
	case rsEnum:
		return catalog.KindString, true
	case rsBytes:
		if t.logical == "decimal" {
			return decimal(), true
		}
		return catalog.KindString, true
	case rsFixed:
		switch t.logical {
		case "decimal":
			return decimal(), true
		case "duration":
			// fieldPlan (avroType) makes a duration VARCHAR, but its text
			// is an object: not held to either.
			return 0, false
		}
		return catalog.KindString, true
	}
	return catalog.KindNone, true
}

// directField: the field's number must be handed over (a long, an int, a
// double or a boolean, or null and one of them); plainField: its plain
// strings must be marked (a string, or null and a string).
func directField(t *rs) bool {
	t = t.resolved()
	if b, ok := t.nullableOf(); ok {
		t = b
	}
	return (t.kind == rsInt || t.kind == rsLong) && t.logical == "" || t.kind == rsDouble || t.kind == rsBoolean
}

func plainField(t *rs) (must, may bool) {
	t = t.resolved()
	if b, ok := t.nullableOf(); ok {
		t = b
	}
	if t.kind != rsString {
		return false, false
	}
	// A uuid is a string to the decoder; whether it must be marked is not
	// written down.
	return t.logical == "", true
}

// checkFields holds vf to the text of a top-level record: each field's
// span is exactly its value, in the schema's order; numbers handed over
// are the text's; strings marked plain are. strict: a field that can take
// the fast path takes it.
func checkFields(text []byte, top *jv, vf *catalog.ValueFields, rec *rs, strict bool) error {
	if vf.Plan == nil {
		return errors.New("no field plan for a record")
	}
	if len(vf.Plan.Names) != len(rec.fields) || len(vf.Plan.Kinds) != len(rec.fields) || len(vf.Spans) != 2*len(rec.fields) {
		return fmt.Errorf("plan of %d names, %d kinds, %d spans for %d fields", len(vf.Plan.Names), len(vf.Plan.Kinds), len(vf.Spans), len(rec.fields))
	}
	if len(rec.fields) < 64 && (vf.Direct>>len(rec.fields) != 0 || vf.Plain>>len(rec.fields) != 0) {
		return fmt.Errorf("bits past the fields: direct %x plain %x", vf.Direct, vf.Plain)
	}
	if top.kind != '{' || len(top.keys) != len(rec.fields) {
		return fmt.Errorf("the text is not an object of %d fields", len(rec.fields))
	}
	for i, f := range rec.fields {
		if vf.Plan.Names[i] != f.name {
			return fmt.Errorf("plan name %d is %q, want %q", i, vf.Plan.Names[i], f.name)
		}
		if k, known := wantKind(f.typ); known && vf.Plan.Kinds[i] != k {
			return fmt.Errorf("field %d %s (%s): kind %d, want %d", i, f.name, f.typ.text(), vf.Plan.Kinds[i], k)
		}
		if top.keys[i] != f.name {
			return fmt.Errorf("key %d is %q, want %q", i, top.keys[i], f.name)
		}
		start, end := top.vals[i].start, top.vals[i].end
		raw := text[start:end]
		if a, b := int(vf.Spans[2*i]), int(vf.Spans[2*i+1]); a != start || b != end {
			return fmt.Errorf("field %d %s: span [%d,%d), its value %s is at [%d,%d)", i, f.name, a, b, raw, start, end)
		}
		v := string(raw)
		direct, plain := vf.Direct&(1<<i) != 0, vf.Plain&(1<<i) != 0
		if i >= 64 {
			continue // no bits
		}
		if direct {
			if !directField(f.typ) {
				return fmt.Errorf("field %d %s (%s): a number handed over", i, f.name, f.typ.text())
			}
			t := f.typ.resolved()
			if b, ok := t.nullableOf(); ok {
				t = b
			}
			n := vf.Nums[i]
			var ok bool
			switch t.kind {
			case rsInt, rsLong:
				ok = strconv.FormatInt(int64(n), 10) == v
			case rsBoolean:
				ok = n <= 1 && strconv.FormatBool(n == 1) == v
			case rsDouble:
				g, err := strconv.ParseFloat(strings.Trim(v, `"`), 64)
				ok = err == nil && math.Float64bits(g) == n
			}
			if !ok {
				return fmt.Errorf("field %d %s: number %#x handed over, text %s", i, f.name, n, v)
			}
		}
		if plain {
			if _, may := plainField(f.typ); !may {
				return fmt.Errorf("field %d %s (%s): marked plain", i, f.name, f.typ.text())
			}
			if len(v) < 2 || v[0] != '"' || !plainASCII([]byte(v[1:len(v)-1])) {
				return fmt.Errorf("field %d %s: marked plain, text %s", i, f.name, v)
			}
		}
		if strict && v != "null" {
			if directField(f.typ) && !direct {
				return fmt.Errorf("field %d %s (%s): no number handed over for %s", i, f.name, f.typ.text(), v)
			}
			if must, _ := plainField(f.typ); must && !plain && v[0] == '"' && plainASCII([]byte(v[1:len(v)-1])) {
				return fmt.Errorf("field %d %s: plain string %s not marked", i, f.name, v)
			}
		}
	}
	return nil
}

// ---- running the decoder ----

type avroRandomCase struct {
	id       int
	root     *rs
	text     string
	schema   avro.Schema
	payloads [][]byte
}

func wireOf(id int, payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), payload...)
}

// guarded runs f, and says whether it panicked (with what) or did not end
// within the deadline.
func guarded(f func()) (panicked any, timedOut bool) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case p := <-done:
		return p, false
	case <-time.After(5 * time.Second):
		return nil, true
	}
}

// hambaRead decodes payload with hamba into a generic value (nil, false
// where it fails or panics). It reads with a Reader: Unmarshal takes a
// payload that ends too soon (io.EOF) for a value.
func hambaRead(api avro.API, s avro.Schema, payload []byte) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	rd := avro.NewReader(nil, 0, avro.WithReaderConfig(api)).Reset(payload)
	rd.ReadVal(s, &v)
	if rd.Error != nil {
		return nil, false
	}
	return v, true
}

// hambaUnsafe reports whether a varint anywhere in p reads as the least
// int64: as an array's block count hamba (v2.31.0) negates it, grows its
// slice by a negative size and faults (a crash no recover catches).
func hambaUnsafe(p []byte) bool {
	for i := range p {
		var v uint64
		for n, s := 0, uint(0); n < 10 && i+n < len(p); n, s = n+1, s+7 {
			v |= uint64(p[i+n]&0x7f) << s
			if p[i+n] < 0x80 {
				if int64(v>>1)^-int64(v&1) == math.MinInt64 {
					return true
				}
				break
			}
		}
	}
	return false
}

type decoded struct {
	out    []byte
	text   []byte // out past the prefix
	parsed *jv
	ok     bool // decoded with no failure
	why    string
}

// decodeCase decodes payload through the resolver after a prefix, and
// checks what any outcome must be: no panic, no hang; a failure leaves the
// buffer and vf empty; a success is valid JSON and valid UTF-8, the prefix
// untouched, and a record's spans and bits agree with its text.
func decodeCase(t *testing.T, r *Resolver, c *avroRandomCase, payload, prefix []byte, vf *catalog.ValueFields, strict bool, what string) decoded {
	t.Helper()
	var out []byte
	var fail *Failure
	var ok bool
	var gotID int
	buf := append([]byte(nil), prefix...)
	p, timedOut := guarded(func() {
		out, gotID, ok, fail = r.DecodeFields(t.Context(), wireOf(c.id, payload), buf, vf)
	})
	where := func() string {
		return fmt.Sprintf("%s\nschema %d: %s\npayload (%d bytes): %s", what, c.id, c.text, len(payload), hex.EncodeToString(payload))
	}
	switch {
	case timedOut:
		t.Fatalf("decode did not end within 5 s: %s", where())
	case p != nil:
		t.Fatalf("decode panicked: %v: %s", p, where())
	case !ok || gotID != c.id:
		t.Fatalf("not taken as the wire format: ok %v id %d: %s", ok, gotID, where())
	}
	if !bytes.Equal(out[:min(len(out), len(prefix))], prefix) || len(out) < len(prefix) {
		t.Fatalf("the buffer's prefix was changed: %q: %s", out, where())
	}
	if fail != nil {
		if len(out) != len(prefix) || vf.Plan != nil || len(vf.Spans) != 0 || vf.Direct != 0 || vf.Plain != 0 {
			t.Fatalf("a failure (%s) left output %q or fields %+v: %s", fail.Reason, out[len(prefix):], vf, where())
		}
		return decoded{out: out, why: fail.Reason}
	}
	text := out[len(prefix):]
	if !json.Valid(text) {
		t.Fatalf("not valid JSON: %s\n%s", text, where())
	}
	if !utf8.Valid(text) {
		t.Fatalf("not valid UTF-8: %q\n%s", text, where())
	}
	parsed, err := parseJV(text)
	if err != nil {
		t.Fatalf("valid JSON not read back: %v\n%s", err, where())
	}
	if root := c.root.resolved(); root.kind == rsRecord {
		if err := checkFields(text, parsed, vf, root, strict); err != nil {
			t.Fatalf("fields: %v\ntext %s\n%s", err, text, where())
		}
	} else if vf.Plan != nil || len(vf.Spans) != 0 {
		t.Fatalf("fields of a value that is not a record: %+v\n%s", vf, where())
	}
	return decoded{out: out, text: text, parsed: parsed, ok: true}
}

// compareWithHamba holds the text to hamba's reading of the payload.
func compareWithHamba(c *avroRandomCase, got *jv, hv any) error {
	want, err := refValue(c.root, hv)
	if err != nil {
		return err
	}
	return match(want, got, "$")
}

// TestAvroRandomSchemas is the differential test; see the file's comment.
func TestAvroRandomSchemas(t *testing.T) {
	const nSchemas = 320
	seed := uint64(0x70b1c5a9)
	if s := os.Getenv("AVRO_RANDOM_SEED"); s != "" { // to explore other seeds
		n, err := strconv.ParseUint(s, 0, 64)
		if err != nil {
			t.Fatalf("AVRO_RANDOM_SEED: %v", err)
		}
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, 2026))
	encoders := []avro.API{avro.DefaultConfig, avro.Config{BlockLength: 2}.Freeze(),
		avro.Config{BlockLength: 3, DisableBlockSizeHeader: true}.Freeze()}
	var cases []*avroRandomCase
	dir := t.TempDir() // a --schema folder: ID.avsc
	fields64, values := 0, 0
	for i := range nSchemas {
		g := newSchemaGen(rng)
		root := g.topSchema()
		c := &avroRandomCase{id: 1000 + i, root: root, text: root.text()}
		s, err := avro.ParseWithCache(c.text, "", &avro.SchemaCache{})
		if err != nil {
			t.Fatalf("schema %d does not parse (a generator bug): %v\n%s", c.id, err, c.text)
		}
		c.schema = s
		if root.kind == rsRecord && len(root.fields) > 64 {
			fields64++
		}
		enc := encoders[i%len(encoders)]
		for j := range 3 + rng.IntN(3) {
			vg := &valGen{rng: rng, left: 1500}
			if j == 0 {
				vg.left = 0 // values as small as they go
			}
			v := vg.val(root, 0)
			payload, err := enc.Marshal(s, v)
			if err != nil {
				t.Fatalf("schema %d: hamba does not encode value %d (a generator bug): %v\n%s\n%#v", c.id, j, err, c.text, v)
			}
			c.payloads = append(c.payloads, payload)
			values++
		}
		cases = append(cases, c)
		if err := writeFile(dir, strconv.Itoa(c.id)+".avsc", c.text); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	limited := avro.Config{MaxByteSliceSize: 1 << 16, MaxSliceAllocSize: 1 << 12}.Freeze()

	var vf catalog.ValueFields // one for all, as the dump keeps one
	prefixes := [][]byte{nil, []byte(`{"before":1}`), bytes.Repeat([]byte("x"), 37)}
	truncations, mutations, garbage, garbageOK, garbageCompared, notText := 0, 0, 0, 0, 0, 0
	skipped := map[string]int{}
	for ci, c := range cases {
		for pi, payload := range c.payloads {
			what := fmt.Sprintf("value %d", pi)
			d := decodeCase(t, r, c, payload, prefixes[(ci+pi)%len(prefixes)], &vf, true, what)
			hv, ok := hambaRead(avro.DefaultConfig, c.schema, payload)
			if !ok {
				t.Fatalf("hamba does not read back its own payload\nschema %d: %s", c.id, c.text)
			}
			// A string that is not UTF-8 (the generator writes some: "\xff",
			// "\xed\xa0\x80") fails the value, where it was read with U+FFFD
			// in place of each bad byte.
			if notUTF8(hv) {
				if d.ok || !strings.Contains(d.why, "not UTF-8") {
					t.Fatalf("a value with a string that is not UTF-8 decoded (%s) or failed for another reason (%s)\nschema %d: %s\npayload %s", d.text, d.why, c.id, c.text, hex.EncodeToString(payload))
				}
				notText++
				continue
			}
			if !d.ok {
				t.Fatalf("a valid payload does not decode: %s\nschema %d: %s\npayload %s", d.why, c.id, c.text, hex.EncodeToString(payload))
			}
			if err := compareWithHamba(c, d.parsed, hv); err != nil {
				t.Fatalf("schema %d %s: %v\ntext %s\nschema %s\npayload %s", c.id, what, err, d.text, c.text, hex.EncodeToString(payload))
			}
		}
		if ci%3 != 0 {
			continue
		}
		// Garbage: every value cut short fails; mutated and random payloads
		// fail or decode to what hamba reads, where it reads them.
		for pi, payload := range c.payloads {
			step := max(1, len(payload)/48)
			for n := 0; n < len(payload); n += step {
				truncations++
				if d := decodeCase(t, r, c, payload[:n], nil, &vf, false, fmt.Sprintf("value %d cut to %d bytes", pi, n)); d.ok {
					t.Fatalf("value %d cut to %d of %d bytes decoded: %s\nschema %d: %s", pi, n, len(payload), d.text, c.id, c.text)
				}
			}
		}
		var junk [][]byte
		for range 24 {
			p := append([]byte(nil), c.payloads[rng.IntN(len(c.payloads))]...)
			if len(p) == 0 {
				continue
			}
			for range 1 + rng.IntN(3) {
				p[rng.IntN(len(p))] = junkByte(rng)
			}
			junk = append(junk, p)
			mutations++
		}
		for range 24 {
			p := make([]byte, rng.IntN(40))
			for i := range p {
				p[i] = junkByte(rng)
			}
			junk = append(junk, p)
		}
		for ji, p := range junk {
			garbage++
			d := decodeCase(t, r, c, p, nil, &vf, false, fmt.Sprintf("garbage %d", ji))
			if !d.ok {
				continue
			}
			garbageOK++
			if hambaUnsafe(p) {
				skipped["hamba would fault"]++
				continue
			}
			if d.parsed.dup {
				skipped["a map with a key twice (hamba keeps one)"]++
				continue
			}
			hv, ok := hambaRead(limited, c.schema, p)
			if !ok {
				skipped["hamba refused"]++
				continue
			}
			if notUTF8(hv) {
				t.Fatalf("schema %d garbage %d: a string that is not UTF-8 decoded: %s\npayload %s", c.id, ji, d.text, hex.EncodeToString(p))
			}
			garbageCompared++
			if err := compareWithHamba(c, d.parsed, hv); err != nil {
				t.Fatalf("schema %d garbage %d: %v\ntext %s\nschema %s\npayload %s", c.id, ji, err, d.text, c.text, hex.EncodeToString(p))
			}
		}
	}
	if notText == 0 {
		t.Error("no value held a string that is not UTF-8: the generator no longer writes one")
	}
	t.Logf("%d schemas (%d records of more than 64 fields), %d values (%d failed, a string not UTF-8); %d truncations, %d mutated and %d random payloads (%d decoded, %d of them compared with hamba; not compared: %v)",
		nSchemas, fields64, values, notText, truncations, mutations, garbage-mutations, garbageOK, garbageCompared, skipped)
}

// junkByte leans to the bytes that make varints long, negative or zero.
func junkByte(rng *rand.Rand) byte {
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return 0xff
	case 2:
		return 0x80 | byte(rng.IntN(128))
	case 3:
		return byte(rng.IntN(8))
	}
	return byte(rng.UintN(256))
}

// TestAvroRandomRegressions keeps the cases the random test found.
func TestAvroRandomRegressions(t *testing.T) {
	long := func(vs ...int64) []byte {
		w := avro.NewWriter(nil, 64)
		for _, v := range vs {
			w.WriteLong(v)
		}
		return w.Buffer()
	}
	cases := []struct {
		name, schema string
		payload      []byte
		want         string // the text ("" and no why: any valid JSON)
		why          string // what the failure says ("" for none)
	}{
		// A record that refers to itself twice (a tree) never compiled:
		// fieldPlan typed each field with avroType, which walks the whole
		// type to its depth limit of 64, 2^64 steps for two references.
		{"tree", `{"type":"record","name":"Tree","fields":[{"name":"v","type":"int"},{"name":"left","type":["null","Tree"]},{"name":"right","type":["null","Tree"]}]}`,
			long(1, 1, 2, 0, 0, 0), `{"v":1,"left":{"v":2,"left":null,"right":null},"right":null}`, ""},
		{"three references, one through maps", `{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":{"type":"map","values":["int","null","R"]}}},{"name":"a","type":["null","R"]},{"name":"b","type":{"type":"array","items":"R"}}]}`,
			long(0, 0, 0), `{"m":{},"a":null,"b":[]}`, ""},
		// Array items encoded in no bytes: a count of 2^62 in ten bytes
		// never ended (and filled memory).
		{"2^62 nulls", `{"type":"array","items":"null"}`, long(1 << 62), "", "encoded in no bytes"},
		{"2^62 empty records, in blocks of negative counts", `{"type":"array","items":{"type":"record","name":"E","fields":[{"name":"n","type":"null"}]}}`,
			long(-(1 << 62), 0), "", "encoded in no bytes"},
		{"2^62 empty fixed, nested", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":{"type":"array","items":{"type":"fixed","name":"F","size":0}}}}]}`,
			long(1, 1<<62), "", "encoded in no bytes"},
		{"many arrays of nulls, each short of the bound", `{"type":"array","items":{"type":"array","items":"null"}}`,
			append(append(long(4), bytes.Repeat(long(1<<12, 0), 4)...), long(0)...), "", "encoded in no bytes"},
		{"the same, one array fewer, decodes", `{"type":"array","items":{"type":"array","items":"null"}}`,
			append(append(long(3), bytes.Repeat(long(1<<12, 0), 3)...), long(0)...), "", ""},
		// A string that is not UTF-8 read with U+FFFD in place of each bad
		// byte (06 61 FF FE read as "a\ufffd\ufffd", 61EFBFBDEFBFBD), with no
		// error; two map keys could become one.
		{"a string not UTF-8", `"string"`, []byte{0x06, 'a', 0xff, 0xfe}, "", "not UTF-8 (at byte 1)"},
		{"map keys not UTF-8", `{"type":"map","values":"int"}`,
			[]byte{0x04, 0x02, 0xff, 0x02, 0x02, 0xfe, 0x04, 0x00}, "", "not UTF-8"},
		{"a record's string not UTF-8", `{"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}`,
			[]byte{0x04, 0xc3, 0x28, 0x02}, "", "not UTF-8"},
		{"valid UTF-8 still decodes", `"string"`, []byte{0x06, 0xc3, 0xa9, 'x'}, `"éx"`, ""},
		{"a few nulls still decode", `{"type":"array","items":["null",{"type":"array","items":"null"}]}`,
			long(2, 0, 1, 3, 0, 0), `[null,[null,null,null]]`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A resolver of its own: one that hangs holds the lock of all.
			dir := t.TempDir()
			if err := writeFile(dir, "1.avsc", c.schema); err != nil {
				t.Fatal(err)
			}
			r, err := NewResolver(t.Context(), Options{SchemaDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var out []byte
			var fail *Failure
			var vf catalog.ValueFields
			p, timedOut := guarded(func() { out, _, _, fail = r.DecodeFields(t.Context(), wireOf(1, c.payload), nil, &vf) })
			switch {
			case timedOut:
				t.Fatal("did not end within 5 s")
			case p != nil:
				t.Fatalf("panicked: %v", p)
			case c.want == "" && c.why == "":
				if fail != nil || !json.Valid(out) {
					t.Fatalf("%v", fail)
				}
			case c.want == "" && (fail == nil || !strings.Contains(fail.Reason, c.why)):
				t.Fatalf("got %.200s, %v; want a failure saying %q", out, fail, c.why)
			case c.want != "" && (fail != nil || string(out) != c.want):
				t.Fatalf("got %s, %v; want %s", out, fail, c.want)
			}
		})
	}
}
