package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/schemas"
)

// typedStructure is the value (or key) structure of a schema-encoded topic,
// from its writer schemas stored in the folder (not from a sample of its
// values):
// Avro's and Protobuf's types as the schema says (timestamps, dates,
// decimals, 64-bit integers), the union by name of every schema the topic
// used. inferred is the structure sampled from the decoded JSON, whose
// top-level fields name the Protobuf message meant. It returns "" when a
// schema cannot say (JSON Schema, a schema the folder lacks), and the
// fields whose types differ between schemas (read as their JSON text).
// scalar allows a type that is not a STRUCT (a key whose schema is Avro's
// "string" or "long").
func (e *Engine) typedStructure(ctx context.Context, ss []*catalog.Schema, inferred string, scalar bool) (string, []string) {
	if len(ss) == 0 {
		return "", nil
	}
	keys, err := topKeys(inferred)
	if err != nil && !scalar {
		return "", nil
	}
	r, err := schemas.NewResolver(ctx, schemas.Options{Folder: e.dir})
	if err != nil {
		return "", nil
	}
	var t *schemas.Type
	var conflicts []string
	for _, s := range ss {
		if s.Type == catalog.SchemaJSON {
			return "", nil
		}
		st, err := r.ValueType(ctx, s.ID, keys)
		if err != nil || st.Kind != schemas.KindStruct && (!scalar || st.Kind == schemas.KindList || st.Kind == schemas.KindMap) {
			return "", nil
		}
		t = schemas.Merge(t, st, "", &conflicts)
	}
	return renderStructure(t), conflicts
}

// renderStructure writes t as from_json's structure: objects for STRUCTs,
// [elem] for LISTs, a type name for the rest.
func renderStructure(t *schemas.Type) string {
	var b strings.Builder
	var walk func(t *schemas.Type)
	walk = func(t *schemas.Type) {
		switch t.Kind {
		case schemas.KindStruct:
			b.WriteByte('{')
			for i, f := range t.Fields {
				if i > 0 {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(f.Name)
				b.Write(k)
				b.WriteByte(':')
				walk(f.Type)
			}
			b.WriteByte('}')
		case schemas.KindList:
			b.WriteByte('[')
			walk(t.Elem)
			b.WriteByte(']')
		default:
			s, _ := json.Marshal(t.SQL())
			b.Write(s)
		}
	}
	walk(t)
	return b.String()
}

// topKeys lists the top-level field names of a JSON structure.
func topKeys(structure string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(structure))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object structure")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
