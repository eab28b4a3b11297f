package schemas

import (
	"context"
	"fmt"
	"strings"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Type is the SQL type of a decoded value, derived from its writer schema:
// a STRUCT (Fields in the schema's order), a LIST or MAP (Elem; map keys
// are text), or a scalar named as DuckDB names it (BIGINT, DECIMAL(10,2),
// TIMESTAMPTZ, ...). JSON is a value of no fixed type, kept as its JSON text.
type Type struct {
	Kind   string // STRUCT, LIST, MAP, or the scalar's name
	Fields []Field
	Elem   *Type
}

// Field is one named member of a STRUCT.
type Field struct {
	Name string
	Type *Type
}

// Kinds of Type besides the scalars.
const (
	KindStruct = "STRUCT"
	KindList   = "LIST"
	KindMap    = "MAP"
	KindJSON   = "JSON"
)

func scalar(k string) *Type { return &Type{Kind: k} }

// ValueType derives the type of schema id's decoded values. For Protobuf,
// whose wire format names the message per record, keys are the top-level
// field names seen in the decoded values: the message whose fields they are
// is the one meant.
func (r *Resolver) ValueType(ctx context.Context, id int, keys []string) (*Type, error) {
	e := r.entry(ctx, id)
	if e.err != nil {
		return nil, e.err
	}
	switch d := e.dec.(type) {
	case *avroDecoder:
		return avroType(d.schema, 0, typeBudget())
	case *protoDecoder:
		md := findMessage(d.file.Messages(), keys)
		if md == nil {
			return nil, fmt.Errorf("schema %d: no message has the fields %v", id, keys)
		}
		return protoMessageType(md, 0, typeBudget()), nil
	}
	return nil, fmt.Errorf("schema %d: JSON Schema values are typed by their JSON", id)
}

// A schema's type is bounded in nodes (records, messages, lists, maps,
// unions, fields) and in weight, each node weighing its depth plus one:
// the engine's cost of a type grows with its nodes, and, nested, with their
// nodes times their depth. Measured (DuckDB 1.x, count(value) of one
// record): a record that refers to itself twice (a tree of left and right)
// expanded to 100,000 nodes 64 levels deep took 59 s and 2.1 GB; 10,000
// flat fields, 0.95 s; a union of 60,000 branches made every query of the
// topic take 3 s or more. A recursive type is expanded to 64 levels, past
// which the nested value is its JSON text; past either bound the rest is
// its JSON text too (a tree would double at every level, 2^64 nodes), and
// so is a record, message or union whose fields alone are past what is
// left. The walk is depth first, so the same schema always gives the same
// type.
const (
	maxTypeNodes  = 20_000
	maxTypeWeight = 200_000
)

// budget is what is left of a type's bounds.
type budget struct{ nodes, weight int }

func typeBudget() *budget { return &budget{maxTypeNodes, maxTypeWeight} }

// spend takes a node at depth from b; true when b is past a bound.
func spend(b *budget, depth int) bool {
	b.nodes--
	b.weight -= depth + 1
	return b.nodes < 0 || b.weight < 0
}

// tooWide reports whether n fields at depth+1 are past what is left of b:
// their STRUCT is then its JSON text.
func tooWide(b *budget, depth, n int) bool {
	return n > b.nodes || n*(depth+2) > b.weight
}

func avroType(s avro.Schema, depth int, budget *budget) (*Type, error) {
	if depth > 64 || spend(budget, depth) {
		return scalar(KindJSON), nil // a recursive type: its JSON text
	}
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	var logical avro.LogicalType
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		logical = ls.Logical().Type()
		if d, ok := ls.Logical().(*avro.DecimalLogicalSchema); ok {
			p := d.Precision()
			if p > 38 {
				return scalar("VARCHAR"), nil // wider than DuckDB's DECIMAL: exact text
			}
			return scalar(fmt.Sprintf("DECIMAL(%d,%d)", p, d.Scale())), nil
		}
	}
	switch s := s.(type) {
	case *avro.RecordSchema:
		if tooWide(budget, depth, len(s.Fields())) {
			return scalar(KindJSON), nil
		}
		t := &Type{Kind: KindStruct}
		for _, f := range s.Fields() {
			ft, err := avroType(f.Type(), depth+1, budget)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, Field{f.Name(), ft})
		}
		return orJSON(t), nil
	case *avro.ArraySchema:
		et, err := avroType(s.Items(), depth+1, budget)
		return &Type{Kind: KindList, Elem: et}, err
	case *avro.MapSchema:
		et, err := avroType(s.Values(), depth+1, budget)
		return &Type{Kind: KindMap, Elem: et}, err
	case *avro.UnionSchema:
		if nullable(s) {
			for _, b := range s.Types() {
				if b.Type() != avro.Null {
					return avroType(b, depth+1, budget)
				}
			}
		}
		if tooWide(budget, depth, len(s.Types())) {
			return scalar(KindJSON), nil
		}
		t := &Type{Kind: KindStruct}
		for _, b := range s.Types() {
			if b.Type() == avro.Null {
				continue
			}
			bt, err := avroType(b, depth+1, budget)
			if err != nil {
				return nil, err
			}
			t.Fields = append(t.Fields, Field{branchName(b), bt})
		}
		return orJSON(t), nil
	case *avro.EnumSchema:
		return scalar("VARCHAR"), nil
	case *avro.FixedSchema:
		return scalar("VARCHAR"), nil // base64
	}
	switch s.Type() {
	case avro.Boolean:
		return scalar("BOOLEAN"), nil
	case avro.Int:
		switch logical {
		case avro.Date:
			return scalar("DATE"), nil
		case avro.TimeMillis:
			return scalar("TIME"), nil
		}
		return scalar("INTEGER"), nil
	case avro.Long:
		switch logical {
		case avro.TimestampMillis, avro.TimestampMicros:
			return scalar("TIMESTAMPTZ"), nil
		case avro.LocalTimestampMillis, avro.LocalTimestampMicros:
			return scalar("TIMESTAMP"), nil
		case avro.TimeMicros:
			return scalar("TIME"), nil
		}
		return scalar("BIGINT"), nil
	case avro.Float:
		return scalar("FLOAT"), nil
	case avro.Double:
		return scalar("DOUBLE"), nil
	case avro.String:
		if logical == avro.UUID {
			return scalar("UUID"), nil
		}
		return scalar("VARCHAR"), nil
	case avro.Bytes:
		return scalar("VARCHAR"), nil // base64
	}
	return nil, fmt.Errorf("avro type %s has no SQL type", s.Type())
}

// branchName is the name a union's branch has in the decoded JSON (as
// hamba/avro names it: see unionBranch).
func branchName(s avro.Schema) string {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	if ns, ok := s.(avro.NamedSchema); ok {
		return ns.FullName()
	}
	n := string(s.Type())
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		n += "." + string(ls.Logical().Type())
	}
	return n
}

// findMessage finds, among msgs and their nested messages, the one the
// decoded values are of: protojson emits every field of the message, so its
// fields are all among keys (the top-level names of every version's values);
// of those, the one with the most fields.
func findMessage(msgs protoreflect.MessageDescriptors, keys []string) protoreflect.MessageDescriptor {
	have := map[string]bool{}
	for _, k := range keys {
		have[k] = true
	}
	var best protoreflect.MessageDescriptor
	var walk func(msgs protoreflect.MessageDescriptors)
	walk = func(msgs protoreflect.MessageDescriptors) {
		for i := 0; i < msgs.Len(); i++ {
			md := msgs.Get(i)
			fs := md.Fields()
			all := fs.Len() > 0 && !md.IsMapEntry()
			for j := 0; all && j < fs.Len(); j++ {
				all = have[string(fs.Get(j).Name())]
			}
			if all && (best == nil || fs.Len() > best.Fields().Len()) {
				best = md
			}
			walk(md.Messages())
		}
	}
	walk(msgs)
	return best
}

// protoMessageType is the type protojson's output of md reads as.
func protoMessageType(md protoreflect.MessageDescriptor, depth int, budget *budget) *Type {
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return scalar("TIMESTAMPTZ")
	case "google.protobuf.Duration", "google.protobuf.FieldMask":
		return scalar("VARCHAR") // "1.5s", "a.b,c"
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.Any":
		return scalar(KindJSON)
	case "google.protobuf.DoubleValue":
		return scalar("DOUBLE")
	case "google.protobuf.FloatValue":
		return scalar("FLOAT")
	case "google.protobuf.Int64Value":
		return scalar("BIGINT")
	case "google.protobuf.UInt64Value":
		return scalar("UBIGINT")
	case "google.protobuf.Int32Value":
		return scalar("INTEGER")
	case "google.protobuf.UInt32Value":
		return scalar("UINTEGER")
	case "google.protobuf.BoolValue":
		return scalar("BOOLEAN")
	case "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return scalar("VARCHAR")
	}
	fs := md.Fields()
	if depth > 64 || spend(budget, depth) || tooWide(budget, depth, fs.Len()) {
		return scalar(KindJSON) // a recursive message: its JSON text
	}
	// Its fields, as an Avro record's.
	budget.nodes -= fs.Len()
	budget.weight -= fs.Len() * (depth + 2)
	t := &Type{Kind: KindStruct}
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		t.Fields = append(t.Fields, Field{string(fd.Name()), protoFieldType(fd, depth, budget)})
	}
	return orJSON(t)
}

// orJSON is t, or JSON text when t is a STRUCT of no fields (an Avro record
// of no fields, a union of null alone, a Protobuf message of none such as
// google.protobuf.Empty): the engine has no empty STRUCT (its views failed
// with "Binder Error: Empty object in JSON structure", every query of the
// topic with them), and a JSON topic's {} reads as its text too.
func orJSON(t *Type) *Type {
	if t.Kind == KindStruct && len(t.Fields) == 0 {
		return scalar(KindJSON)
	}
	return t
}

func protoFieldType(fd protoreflect.FieldDescriptor, depth int, budget *budget) *Type {
	if fd.IsMap() {
		return &Type{Kind: KindMap, Elem: protoKindType(fd.MapValue(), depth, budget)}
	}
	t := protoKindType(fd, depth, budget)
	if fd.IsList() {
		return &Type{Kind: KindList, Elem: t}
	}
	return t
}

func protoKindType(fd protoreflect.FieldDescriptor, depth int, budget *budget) *Type {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return scalar("BOOLEAN")
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return scalar("INTEGER")
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return scalar("UINTEGER")
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return scalar("BIGINT")
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return scalar("UBIGINT")
	case protoreflect.FloatKind:
		return scalar("FLOAT")
	case protoreflect.DoubleKind:
		return scalar("DOUBLE")
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind:
		return scalar("VARCHAR") // bytes as base64, enums by name
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return protoMessageType(fd.Message(), depth+1, budget)
	}
	return scalar(KindJSON)
}

// Merge unites a and b by field name (schema evolution): a field one lacks
// is kept; the same field with types that cannot be united becomes JSON
// (its JSON text) and is named in conflicts ("a.b: BIGINT and VARCHAR").
func Merge(a, b *Type, path string, conflicts *[]string) *Type {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.Kind == KindStruct && b.Kind == KindStruct:
		out := &Type{Kind: KindStruct}
		idx := map[string]int{}
		for _, f := range a.Fields {
			idx[f.Name] = len(out.Fields)
			out.Fields = append(out.Fields, f)
		}
		for _, f := range b.Fields {
			if i, ok := idx[f.Name]; ok {
				out.Fields[i].Type = Merge(out.Fields[i].Type, f.Type, join(path, f.Name), conflicts)
				continue
			}
			out.Fields = append(out.Fields, f)
		}
		return out
	case (a.Kind == KindList || a.Kind == KindMap) && a.Kind == b.Kind:
		return &Type{Kind: a.Kind, Elem: Merge(a.Elem, b.Elem, path+"[]", conflicts)}
	case a.Kind == b.Kind:
		return a
	}
	// Avro's promotions (int to long, float to double), and numbers wider.
	if w, ok := widen[[2]string{a.Kind, b.Kind}]; ok {
		return scalar(w)
	}
	if w, ok := widen[[2]string{b.Kind, a.Kind}]; ok {
		return scalar(w)
	}
	*conflicts = append(*conflicts, fmt.Sprintf("%s: %s and %s", path, a.SQL(), b.SQL()))
	return scalar(KindJSON)
}

var widen = map[[2]string]string{
	{"INTEGER", "BIGINT"}: "BIGINT", {"FLOAT", "DOUBLE"}: "DOUBLE",
	{"INTEGER", "DOUBLE"}: "DOUBLE", {"BIGINT", "DOUBLE"}: "DOUBLE", {"INTEGER", "FLOAT"}: "DOUBLE", {"BIGINT", "FLOAT"}: "DOUBLE",
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// SQL renders t as a DuckDB type.
func (t *Type) SQL() string {
	switch t.Kind {
	case KindStruct:
		var parts []string
		for _, f := range t.Fields {
			parts = append(parts, `"`+strings.ReplaceAll(f.Name, `"`, `""`)+`" `+f.Type.SQL())
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case KindList:
		return t.Elem.SQL() + "[]"
	case KindMap:
		return "MAP(VARCHAR, " + t.Elem.SQL() + ")"
	case KindJSON:
		return "VARCHAR"
	}
	return t.Kind
}
