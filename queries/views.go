package queries

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// jsonValue is the value expression of a JSON topic's views: its values
// (the JSON text src: the value's bytes, or what the dump decoded a
// schema-encoded value to) parsed into the inferred structure, unless a
// query narrowed it to the fields it reads (see narrow.go). A value that
// is JSON but not an object (an array, a string, a number) is NULL, as its
// value_error says: from_json made a STRUCT of NULLs of [1,2], so --id value
// counted it as an id (13 records with an id where Spark, whose view gives
// it NULL, counted 12). An object is the one JSON value whose text starts
// with "{" past the whitespace JSON allows.
func jsonValue(name, structure, src string) string {
	return fmt.Sprintf(`try(CASE WHEN starts_with(ltrim(%s, ' '||chr(9)||chr(10)||chr(13)), '{') THEN from_json(%s, coalesce(getvariable(%s), %s)) END)`,
		src, src, quoteString(valueVariable(name)), quoteString(structure))
}

// viewCols are a topic's value columns: value, value_error, and the
// columns that follow schema_id (a schema-encoded topic's subject and
// version). byName reads the files by column name (files written before
// value_decoded existed lack it).
type viewCols struct {
	key, value, valueErr, extra string
	byName                      bool
	// rawHeaderKeys: some file stores a header key as bytes (key_raw);
	// byName is then set too.
	rawHeaderKeys bool
}

// headers is the headers column's expression.
func (c viewCols) headers() string {
	if c.rawHeaderKeys {
		return rawHeaders
	}
	return textHeaders
}

// topicSelects returns the SELECTs of the views "T$all" (every stored row)
// and "T" (committed data records), with value as the value column. A file
// without control markers and without open transactions (the manifest
// counts both) can hold neither markers nor aborted records, so "T" reads
// such files without the filter (and without reading is_control and
// txn_state); only the other files are filtered.
func topicSelects(paths []string, plain []bool, c viewCols, openTxn bool) (all, data string) {
	all = allSelect(paths, c, openTxn)
	var clean, other []string
	for i, p := range paths {
		if plain[i] {
			clean = append(clean, p)
		} else {
			other = append(other, p)
		}
	}
	const sel = `SELECT * EXCLUDE (is_control, control_type, aborted) FROM (%s)`
	var parts []string
	if len(clean) > 0 {
		parts = append(parts, fmt.Sprintf(sel, allSelect(clean, c, false)))
	}
	if len(other) > 0 || len(clean) == 0 {
		parts = append(parts, fmt.Sprintf(sel+` WHERE NOT is_control AND NOT aborted`, allSelect(other, c, openTxn)))
	}
	return all, strings.Join(parts, "\nUNION ALL\n")
}

// allSelect is the SELECT of every stored row of the files, typed, with
// transactions left open in their file resolved from later markers.
func allSelect(paths []string, c viewCols, openTxn bool) string {
	src := "(" + emptyRaw + ")"
	if len(paths) == 0 {
		c.rawHeaderKeys = false // the empty SELECT has no key_raw
	}
	if len(paths) > 0 {
		q := make([]string, len(paths))
		for i, p := range paths {
			q[i] = quoteString(p)
		}
		src = "read_parquet([" + strings.Join(q, ", ") + "])"
		if c.byName {
			src = "read_parquet([" + strings.Join(q, ", ") + "], union_by_name = true)"
		}
	}
	if openTxn {
		cols := strings.NewReplacer(`"partition", "offset"`, `s."partition", s."offset"`).Replace(rawColumns)
		return fmt.Sprintf(`WITH s AS (SELECT * FROM %s),
  m AS (SELECT "partition", producer_id, "offset", control_type FROM s WHERE is_control)
SELECT `+qualify(cols)+` FROM s ASOF LEFT JOIN m ON s."partition" = m."partition" AND s.producer_id = m.producer_id AND s."offset" < m."offset"`,
			src, c.key, c.value, c.valueErr, c.headers(), openResolved, openResolved, c.extra)
	}
	return fmt.Sprintf("SELECT "+rawColumns+" FROM %s", c.key, c.value, c.valueErr, c.headers(), "txn_state", "txn_state", c.extra, src)
}

// qualify prefixes the columns the stored rows share with the markers
// (producer_id, control_type) with the rows' alias s; the others are
// unambiguous.
func qualify(cols string) string {
	for _, c := range []string{"producer_id,", "control_type,"} {
		cols = strings.Replace(cols, c, "s."+c, 1)
	}
	return cols
}

// inferJSON samples values from the first and last files and decides
// whether the topic's values are JSON objects; if so it returns DuckDB's
// merged structure of the sample.
// inferBudget bounds the bytes of sampled values inference builds a
// structure from (the shortest first): an ordinary topic's sample of 5,000
// values fits many times over.
const inferBudget = 4 << 20

// rowQuerier runs one query for one row: a *sql.DB, *sql.Conn or *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func inferJSON(ctx context.Context, tx rowQuerier, paths []string, encoded bool) (string, bool, error) {
	var sample []string
	for _, p := range sampleFiles(paths) {
		sample = append(sample, quoteString(p))
	}
	// A sample spread over the sampled files (not their first rows: a burst
	// of bad records at the start must not decide), of non-null values.
	src := `SELECT try(decode("value")) AS v FROM read_parquet([%s]) WHERE NOT is_control AND "value" IS NOT NULL`
	if encoded {
		src = `SELECT value_decoded AS v FROM read_parquet([%s], union_by_name = true) WHERE value_decoded IS NOT NULL`
	}
	q := fmt.Sprintf(`WITH s AS (`+src+`
  USING SAMPLE reservoir(5000 ROWS) REPEATABLE (7)),
  -- A value past jsonbound's bounds is never shown to json_group_structure
  -- (which recurses without a bound): it counts as a value that is not an
  -- object, as its view row reads it.
  b AS (SELECT CASE WHEN %s IS NULL THEN v END AS v FROM s),
  -- The structure is built from at most inferBudget bytes of the sample,
  -- the shortest values first: json_group_structure's time and memory
  -- grow with the nodes it sees (5,000 values of 2,000 distinct names
  -- each took it past 4 GB), and every value still counts below.
  c AS (SELECT v, sum(coalesce(strlen(v), 0)) OVER (ORDER BY strlen(v) NULLS FIRST, v ROWS UNBOUNDED PRECEDING) AS run FROM b)
SELECT count(*) AS n,
       count(*) FILTER (WHERE CASE WHEN json_valid(v) THEN json_type(v) = 'OBJECT' ELSE false END) AS objects,
       json_group_structure(CASE WHEN run <= %d AND json_valid(v) THEN CASE WHEN json_type(v) = 'OBJECT' THEN v::JSON END END)::VARCHAR AS structure
FROM c`, strings.Join(sample, ", "), boundError("v"), inferBudget)
	var n, objects int64
	var structure sql.NullString
	if err := tx.QueryRowContext(ctx, q).Scan(&n, &objects, &structure); err != nil {
		return "", false, err
	}
	// Mostly JSON objects is a JSON topic: the few values that are not
	// (poison) read as NULL fields and say why in value_error.
	if n == 0 || objects*2 <= n || !structure.Valid {
		return "", false, nil
	}
	safe, ok := safeStructure(structure.String)
	if !ok {
		return "", false, nil
	}
	structure.String = safe
	return structure.String, true, nil
}

// inferKey returns the structure of a sample of a topic's decoded keys
// (key_decoded, JSON text the dump wrote), from the first and last of
// paths, the files that hold decoded keys: an object's, or a scalar's type
// name; "" when no key was decoded.
func inferKey(ctx context.Context, tx rowQuerier, paths []string) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	var sample []string
	for _, p := range sampleFiles(paths) {
		sample = append(sample, quoteString(p))
	}
	q := fmt.Sprintf(`WITH s AS (SELECT key_decoded AS v FROM read_parquet([%s], union_by_name = true) WHERE key_decoded IS NOT NULL
  USING SAMPLE reservoir(5000 ROWS) REPEATABLE (7)),
  c AS (SELECT v, sum(coalesce(strlen(v), 0)) OVER (ORDER BY strlen(v) NULLS FIRST, v ROWS UNBOUNDED PRECEDING) AS run FROM s)
SELECT json_group_structure(CASE WHEN run <= %d AND %s IS NULL AND json_valid(v) THEN v::JSON END)::VARCHAR FROM c`, strings.Join(sample, ", "), inferBudget, boundError("v"))
	var structure sql.NullString
	if err := tx.QueryRowContext(ctx, q).Scan(&structure); err != nil {
		return "", err
	}
	if !structure.Valid || structure.String == `"NULL"` {
		return "", nil
	}
	safe, ok := safeStructure(structure.String)
	if !ok {
		return "", nil
	}
	return safe, nil
}

// A view's value STRUCT is bounded, whatever the values hold: at most
// maxViewFields named fields in all (a topic whose values carry thousands
// of distinct names still opens fast; the fields past the bound are left
// out of the view, first seen first kept, and stay reachable from
// value_raw), nested at most maxViewDepth levels (deeper, a field is its
// JSON text, as a schema type past 64 levels is).
const (
	maxViewFields = 1000
	maxViewDepth  = 64
)

// skipNested consumes the rest of a JSON object or array whose opening
// delimiter dec has just returned.
func skipNested(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// safeStructure makes an inferred structure one every client can read: a
// field of mixed types (JSON) becomes VARCHAR, its JSON text (the Go driver
// would parse a JSON field, and fails on numbers past float64 such as
// 1e400). A field with an empty name cannot be a STRUCT field that a
// client can read: it is left out of the structure (its values stay in
// value_raw). An object that is left with no field (all of its fields
// were left out: no name, or past maxViewFields) cannot be a STRUCT
// either: it becomes its JSON text, as a field past maxViewDepth does, so
// that one record's odd field costs that field and never the whole view
// (a name that merely contains "{}" is a name like any other).
func safeStructure(structure string) (string, bool) {
	// Token by token, so the fields keep their order.
	dec := json.NewDecoder(strings.NewReader(structure))
	dec.UseNumber()
	var out bytes.Buffer
	type frame struct {
		object, wantKey bool
		n               int
		start           int // where its opening delimiter is in out
	}
	var stack []frame
	fields := 0
	sep := func() {
		if len(stack) == 0 {
			return
		}
		f := &stack[len(stack)-1]
		if f.object && !f.wantKey {
			out.WriteByte(':')
			f.wantKey = true
			return
		}
		if f.n > 0 {
			out.WriteByte(',')
		}
		f.n++
		if f.object {
			f.wantKey = false
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxViewDepth {
					// Deeper than a view goes: the JSON text of the rest.
					if err := skipNested(dec); err != nil {
						return "", false
					}
					sep()
					out.WriteString(`"VARCHAR"`)
					continue
				}
				sep()
				stack = append(stack, frame{object: t == '{', wantKey: t == '{', start: out.Len()})
				out.WriteRune(rune(t))
			default:
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if f.object && f.n == 0 {
					// No field left: a STRUCT needs one.
					if len(stack) == 0 {
						return "", false
					}
					out.Truncate(f.start)
					out.WriteString(`"VARCHAR"`)
					continue
				}
				out.WriteRune(rune(t))
			}
		case string:
			isKey := len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].wantKey
			if isKey && t != "" {
				fields++
			}
			if isKey && (t == "" || fields > maxViewFields) {
				// Left out (no name, or past maxViewFields): its values
				// stay in value_raw.
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return "", false
				}
				continue
			}
			sep()
			if !isKey && t == "JSON" {
				t = "VARCHAR"
			}
			b, _ := json.Marshal(t)
			out.Write(b)
		default:
			sep()
			b, _ := json.Marshal(t)
			out.Write(b)
		}
	}
	if len(stack) != 0 || out.Len() == 0 {
		return "", false
	}
	return out.String(), true
}
