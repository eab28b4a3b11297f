package queries

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// DuckDB's STRUCT field names are case-insensitive: of a value's fields
// "id" and "ID", value.ID reads the first, so a record {"id": 1, "ID": "hi"}
// read value.ID as 1, with no error. No name can reach the second, so a
// view never types an object level that holds names differing only in case
// as a STRUCT: that level is its JSON text (VARCHAR; nothing lost, read
// with the JSON functions: value->>'ID' tells the two apart), the rest
// stays typed, and the topic's warning names the level and its names.

// caseApart rewrites a from_json structure so that no object of it holds
// two names that SQL does not tell apart; clashes describes each object
// rewritten ("value.n: a and A"), where names the expression the
// structure types ("value", "key").
func caseApart(structure, names string) (string, []string, error) {
	dec := json.NewDecoder(strings.NewReader(structure))
	dec.UseNumber()
	var out bytes.Buffer
	var clashes []string
	if err := caseApartValue(dec, &out, names, &clashes); err != nil {
		return "", nil, fmt.Errorf("read structure: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", nil, errors.New("read structure: text after it")
	}
	return out.String(), clashes, nil
}

func caseApartValue(dec *json.Decoder, out *bytes.Buffer, path string, clashes *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			out.WriteByte('[')
			for n := 0; dec.More(); n++ {
				if n > 0 {
					out.WriteByte(',')
				}
				if err := caseApartValue(dec, out, path+"[]", clashes); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			out.WriteByte(']')
			return nil
		case '{':
			start := out.Len()
			out.WriteByte('{')
			seen := map[string]string{}
			var same [][2]string
			for n := 0; dec.More(); n++ {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, ok := kt.(string)
				if !ok {
					return fmt.Errorf("a name that is not a string at %s", path)
				}
				fold := strings.ToLower(strings.ToUpper(k))
				if first, ok := seen[fold]; ok {
					same = append(same, [2]string{first, k})
				} else {
					seen[fold] = k
				}
				if n > 0 {
					out.WriteByte(',')
				}
				b, _ := json.Marshal(k)
				out.Write(b)
				out.WriteByte(':')
				if err := caseApartValue(dec, out, path+"."+k, clashes); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
			if len(same) == 0 {
				out.WriteByte('}')
				return nil
			}
			// Its own clashes name it; those of the levels inside it no
			// longer apply (they are in its text).
			for len(*clashes) > 0 && strings.HasPrefix((*clashes)[len(*clashes)-1], path+".") {
				*clashes = (*clashes)[:len(*clashes)-1]
			}
			pairs := make([]string, len(same))
			for i, p := range same {
				pairs[i] = p[0] + " and " + p[1]
			}
			*clashes = append(*clashes, path+": "+strings.Join(pairs, ", "))
			out.Truncate(start)
			out.WriteString(`"VARCHAR"`)
			return nil
		}
		return fmt.Errorf("unexpected %v at %s", t, path)
	default:
		b, _ := json.Marshal(t)
		out.Write(b)
		return nil
	}
}
