// Package jsonfit decides whether a JSON value fits a structure inferred
// from a sample of other values, so that a value read outside the sample
// is never silently changed into something else.
//
// The views type a JSON topic's values with the structure DuckDB inferred
// from a sample (json_group_structure) and read every value with
// from_json, which converts what does not fit: 1.5 read as a BIGINT is 2,
// the string "12" is 12, true is 1, a field the sample only saw null
// reads NULL whatever it holds, 1e400 is infinity and a 30-digit integer
// read as a DOUBLE loses its last digits. Check says, for one value,
// where it does not fit (a value that fits reads back what was written);
// the views then read that record's fields as NULL with the reason in
// value_error, as they do for a value past jsonbound's bounds.
//
// What fits each type of a structure:
//
//   - VARCHAR (a string field, or a field of mixed types): anything, read
//     as its text;
//   - BIGINT, UBIGINT, HUGEINT: an integer written without fraction or
//     exponent, within the type's range (-0 is zero);
//   - DOUBLE: a number whose float64 is the number written (its shortest
//     decimal equals the written one; 0.1 fits, 1e400 and a 30-digit
//     integer do not), or NaN/Infinity (DuckDB reads them); not -0 written
//     as an integer, which DuckDB reads as 0.0;
//   - BOOLEAN: true or false;
//   - NULL (the sample held only nulls, or empty arrays' elements): null;
//   - an object: an object whose members of the structure's names fit
//     (members the structure lacks are not read: value_raw keeps them);
//   - an array: an array whose every element fits.
//
// null fits every type. The check is linear in the value's length, follows
// the structure's depth (at most the view's 64 levels) and skips what it
// does not read without recursion; it accepts what DuckDB's reader accepts
// (trailing commas, NaN and Infinity), and says so when it cannot read a
// value at all.
package jsonfit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Prefix begins every reason Check returns, so SQL can count them.
const Prefix = "type: "

const suffix = "; its fields are not read (the bytes are in value_raw)"

type kind uint8

const (
	kAny kind = iota // VARCHAR: anything
	kBigint
	kUbigint
	kHugeint
	kDouble
	kBool
	kNull
	kObject
	kArray
)

var names = map[string]kind{
	"VARCHAR": kAny, "JSON": kAny, "BIGINT": kBigint, "UBIGINT": kUbigint,
	"HUGEINT": kHugeint, "DOUBLE": kDouble, "BOOLEAN": kBool, "NULL": kNull,
}

// Type is a compiled structure.
type Type struct {
	kind   kind
	name   string           // the scalar type's name, for reasons
	fields map[string]*Type // kObject
	few    []named          // kObject of at most 16 fields: looked up in order
	elem   *Type            // kArray
}

// Compile reads a structure as json_group_structure writes it (and
// safeStructure passes it): an object of fields, an array of one element
// type, or a type name.
func Compile(structure string) (*Type, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(structure))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("compile structure: %w", err)
	}
	return compile(v, 0)
}

func compile(v any, depth int) (*Type, error) {
	if depth > 1000 {
		return nil, fmt.Errorf("compile structure: nested deeper than 1000 levels")
	}
	switch x := v.(type) {
	case string:
		k, ok := names[x]
		if !ok {
			return nil, fmt.Errorf("compile structure: type %q is not one inference gives", x)
		}
		name := x
		if k == kNull {
			name = "null (all the sample held there)"
		}
		return &Type{kind: k, name: name}, nil
	case map[string]any:
		t := &Type{kind: kObject, name: "an object", fields: make(map[string]*Type, len(x))}
		for name, f := range x {
			ft, err := compile(f, depth+1)
			if err != nil {
				return nil, err
			}
			t.fields[name] = ft
		}
		if len(x) <= 16 {
			for name, ft := range t.fields {
				t.few = append(t.few, named{name, ft})
			}
		}
		return t, nil
	case []any:
		if len(x) != 1 {
			return nil, fmt.Errorf("compile structure: an array type needs one element type, has %d", len(x))
		}
		e, err := compile(x[0], depth+1)
		if err != nil {
			return nil, err
		}
		return &Type{kind: kArray, name: "an array", elem: e}, nil
	}
	return nil, fmt.Errorf("compile structure: %T is not a type", v)
}

type named struct {
	name string
	t    *Type
}

// field is the type of the member named key (as written, no escapes).
func (t *Type) field(key []byte) (*Type, bool) {
	if t.few != nil {
		for _, f := range t.few {
			if len(f.name) == len(key) && f.name == string(key) {
				return f.t, true
			}
		}
		return nil, false
	}
	ft, ok := t.fields[string(key)]
	return ft, ok
}

// Lossless reports whether every value fits t: no check is needed.
func (t *Type) Lossless() bool {
	switch t.kind {
	case kAny:
		return true
	case kObject:
		for _, f := range t.fields {
			if !f.Lossless() {
				return false
			}
		}
		return true
	}
	return false
}

// Check returns "" when the JSON text b fits t, else where and why not,
// as value_error says it.
func (t *Type) Check(b []byte) string {
	s := scanner{b: b}
	s.ws()
	if s.i >= len(s.b) {
		return Prefix + "empty" + suffix
	}
	return s.check(t)
}

type scanner struct {
	b    []byte
	i    int
	path [maxPath][2]int32 // the members (a name's bounds in b) and elements ({-1, -1}) the value read is in
	n    int               // of path; past maxPath the rest is not kept
}

const maxPath = 70

func (s *scanner) push(from, to int) {
	if s.n < maxPath {
		s.path[s.n] = [2]int32{int32(from), int32(to)}
	}
	s.n++
}

func (s *scanner) pop() { s.n-- }

// at renders where the value being read is: $.o.k, $.l[*].
func (s *scanner) at() []byte {
	p := []byte{'$'}
	for i, k := range s.path[:min(s.n, maxPath)] {
		if i == maxPath-1 && s.n > maxPath {
			return append(p, "..."...)
		}
		if k[0] < 0 {
			p = append(p, "[*]"...)
		} else {
			p = appendField(p, s.b[k[0]:k[1]])
		}
	}
	return p
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) unreadable() string {
	return Prefix + "the value at " + string(s.at()) + " could not be checked against the structure inferred from a sample" + suffix
}

func (s *scanner) misfit(what string, t *Type) string {
	return Prefix + string(s.at()) + " is " + what + ", not " + t.name + " as inferred from a sample of the topic's values" + suffix
}

// check reads one value at s.i against t.
func (s *scanner) check(t *Type) string {
	s.ws()
	if s.i >= len(s.b) {
		return s.unreadable()
	}
	c := s.b[s.i]
	if t.kind == kAny {
		if !s.skip() {
			return s.unreadable()
		}
		return ""
	}
	switch {
	case c == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")):
		s.i += 4
		return ""
	case c == '{':
		if t.kind != kObject {
			s.skip()
			return s.misfit("an object", t)
		}
		return s.object(t)
	case c == '[':
		if t.kind != kArray {
			s.skip()
			return s.misfit("an array", t)
		}
		return s.array(t)
	case c == '"':
		if !s.skipString() {
			return s.unreadable()
		}
		return s.misfit("a string", t)
	case c == 't' && bytes.HasPrefix(s.b[s.i:], []byte("true")), c == 'f' && bytes.HasPrefix(s.b[s.i:], []byte("false")):
		if c == 't' {
			s.i += 4
		} else {
			s.i += 5
		}
		if t.kind != kBool {
			return s.misfit("a boolean", t)
		}
		return ""
	}
	// A number, or NaN/Infinity.
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			goto done
		}
		s.i++
	}
done:
	lit := s.b[start:s.i]
	if len(lit) == 0 {
		return s.unreadable()
	}
	return s.numberFits(lit, t)
}

func (s *scanner) object(t *Type) string {
	s.i++ // {
	for {
		s.ws()
		if s.i >= len(s.b) {
			return s.unreadable()
		}
		if s.b[s.i] == '}' {
			s.i++
			return ""
		}
		if s.b[s.i] != '"' {
			return s.unreadable()
		}
		start := s.i
		if !s.skipString() {
			return s.unreadable()
		}
		lit := s.b[start:s.i]
		key := lit[1 : len(lit)-1]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.unreadable()
		}
		s.i++
		var ft *Type
		var ok bool
		if bytes.IndexByte(key, '\\') < 0 {
			ft, ok = t.field(key)
		} else if name, err := unquoteJSON(lit); err == nil {
			ft, ok = t.fields[name]
		} else {
			return s.unreadable()
		}
		if ok {
			s.push(start+1, start+len(lit)-1)
			r := s.check(ft)
			s.pop()
			if r != "" {
				return r
			}
		} else if !s.skip() {
			return s.unreadable()
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

func (s *scanner) array(t *Type) string {
	s.i++ // [
	s.push(-1, -1)
	for {
		s.ws()
		if s.i >= len(s.b) {
			return s.unreadable()
		}
		if s.b[s.i] == ']' {
			s.i++
			s.pop()
			return ""
		}
		if r := s.check(t.elem); r != "" {
			return r
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
		}
	}
}

// unquoteJSON decodes a JSON string literal (a member name with escapes).
func unquoteJSON(lit []byte) (string, error) {
	var out string
	err := json.Unmarshal(lit, &out)
	return out, err
}

// appendField adds .name to a path, quoted unless it is a plain word.
func appendField(path, key []byte) []byte {
	plain := len(key) > 0 && len(key) <= 64
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	path = append(path, '.')
	if plain {
		return append(path, key...)
	}
	if len(key) > 64 {
		key = append(key[:61:61], "..."...)
	}
	return strconv.AppendQuote(path, string(key))
}

// skipString moves past the string literal at s.i.
func (s *scanner) skipString() bool {
	s.i++
	for s.i < len(s.b) {
		j := bytes.IndexByte(s.b[s.i:], '"')
		if j < 0 {
			return false
		}
		end := s.i + j
		// Escaped when an odd number of backslashes precede it.
		n := 0
		for k := end - 1; k >= s.i && s.b[k] == '\\'; k-- {
			n++
		}
		s.i = end + 1
		if n%2 == 0 {
			return true
		}
	}
	return false
}

// skip moves past one value, without recursion.
func (s *scanner) skip() bool {
	s.ws()
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if !s.skipString() {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true // the end of a scalar, and of its container
			}
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return true
			}
		}
		s.i++
	}
	return depth == 0
}

var (
	minHuge = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	maxHuge = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

// numberFits judges a number literal (or NaN/Infinity) against t.
func (s *scanner) numberFits(lit []byte, t *Type) string {
	special := isSpecial(lit)
	integer := !special && isInteger(lit)
	if !special && !integer && !isNumber(lit) {
		return s.unreadable()
	}
	switch t.kind {
	case kBigint, kUbigint, kHugeint:
		if special {
			return s.misfit("NaN or Infinity", t)
		}
		if !integer {
			return s.misfit("a number with a fraction or an exponent", t)
		}
		if lit[0] == '-' && t.kind == kUbigint {
			if len(lit) == 2 && lit[1] == '0' {
				return "" // -0 is zero
			}
			return s.misfit("a negative integer", t)
		}
		if len(lit) <= 18 {
			return "" // at most 17 digits and a sign: within every range
		}
		var ok bool
		switch t.kind {
		case kBigint:
			_, err := strconv.ParseInt(string(lit), 10, 64)
			ok = err == nil
		case kUbigint:
			_, err := strconv.ParseUint(string(lit), 10, 64)
			ok = err == nil
		default:
			if len(lit) <= 41 {
				n, okb := new(big.Int).SetString(string(lit), 10)
				ok = okb && n.Cmp(minHuge) >= 0 && n.Cmp(maxHuge) <= 0
			}
		}
		if !ok {
			return s.misfit("an integer past "+t.name+"'s range", t)
		}
		return ""
	case kDouble:
		if special {
			return ""
		}
		if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
			// An integer zero with a sign: DuckDB reads it as 0.0, so the
			// sign a DOUBLE keeps (-0.0 reads -0.0) would be lost.
			return s.misfit("-0 written as an integer, which reads as 0.0 (write -0.0)", t)
		}
		// At most 15 significant digits and a modest exponent: a float64
		// holds it exactly (its shortest decimal is the one written).
		if digits, exp, ok := significant(lit); ok && digits <= 15 && exp > -290 && exp < 290 {
			return ""
		}
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil || math.IsInf(f, 0) {
			return s.misfit("a number past DOUBLE's range", t)
		}
		if !sameDecimal(lit, strconv.AppendFloat(nil, f, 'e', -1, 64)) {
			return s.misfit("a number a DOUBLE does not hold exactly (more digits than a DOUBLE keeps, or too small)", t)
		}
		return ""
	}
	return s.misfit("a number", t)
}

// significant counts a number literal's significant digits (from the first
// non-zero to the last non-zero) and the power of ten of its first one,
// without allocating; ok is false past int32 exponents.
func significant(lit []byte) (digits int, exp int, ok bool) {
	first, last, dot := -1, -1, -1
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	for ; i < len(lit); i++ {
		c := lit[i]
		if c == '.' {
			dot = i
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if c != '0' {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	mant := i
	e := 0
	if i < len(lit) {
		i++ // e or E
		neg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			neg = lit[i] == '-'
			i++
		}
		for ; i < len(lit); i++ {
			e = e*10 + int(lit[i]-'0')
			if e > 1<<30 {
				return 0, 0, false
			}
		}
		if neg {
			e = -e
		}
	}
	if first < 0 {
		return 0, 0, true // zero
	}
	if dot < 0 {
		dot = mant
	}
	digits = last - first + 1
	if first < dot && last > dot {
		digits-- // the dot lies between
	}
	if first < dot {
		exp = dot - first - 1
	} else {
		exp = dot - first
	}
	return digits, exp + e, true
}

// isSpecial: NaN, Infinity, inf, -Infinity, as DuckDB's reader accepts them.
func isSpecial(lit []byte) bool {
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
	}
	if len(lit) < 3 || lit[0]|0x20 != 'n' && lit[0]|0x20 != 'i' {
		return false
	}
	return bytes.EqualFold(lit, []byte("nan")) || bytes.EqualFold(lit, []byte("inf")) || bytes.EqualFold(lit, []byte("infinity"))
}

func isInteger(lit []byte) bool {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	if i == len(lit) {
		return false
	}
	if lit[i] == '0' && i+1 < len(lit) {
		return false
	}
	for ; i < len(lit); i++ {
		if lit[i] < '0' || lit[i] > '9' {
			return false
		}
	}
	return true
}

// isNumber: JSON's number grammar.
func isNumber(lit []byte) bool {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
		return i > start
	}
	if !digits() {
		return false
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(lit)
}

// decimal splits a JSON number into its sign, significant digits (no
// leading or trailing zeros) and the power of ten of the last digit.
func decimal(lit []byte) (neg bool, digits []byte, exp int64, ok bool) {
	i := 0
	if i < len(lit) && lit[i] == '-' {
		neg = true
		i++
	}
	start := i
	var frac int64
	seenDot := false
	for ; i < len(lit); i++ {
		c := lit[i]
		if c >= '0' && c <= '9' {
			if seenDot {
				frac++
			}
			if len(digits) > 0 || c != '0' {
				digits = append(digits, c)
			}
			continue
		}
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		break
	}
	if i == start || (seenDot && frac == 0) {
		return false, nil, 0, false
	}
	if i < len(lit) {
		if lit[i] != 'e' && lit[i] != 'E' {
			return false, nil, 0, false
		}
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		if i == len(lit) {
			return false, nil, 0, false
		}
		for ; i < len(lit); i++ {
			c := lit[i]
			if c < '0' || c > '9' {
				return false, nil, 0, false
			}
			if exp < 1<<40 {
				exp = exp*10 + int64(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	exp -= frac
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		exp++
	}
	return neg, digits, exp, true
}

// sameDecimal reports whether two number literals are the same number.
func sameDecimal(a, b []byte) bool {
	an, ad, ae, aok := decimal(a)
	bn, bd, be, bok := decimal(b)
	if !aok || !bok {
		return false
	}
	if len(ad) == 0 || len(bd) == 0 {
		return len(ad) == len(bd) // zero is zero, whatever its sign
	}
	return an == bn && ae == be && bytes.Equal(ad, bd)
}
