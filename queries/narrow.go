package queries

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
)

// Narrowing the value of JSON topics to the fields a query names.
//
// A JSON topic's value column is from_json(value, STRUCTURE): DuckDB parses
// each value and builds every field of the inferred structure, even when the
// query reads one (count(DISTINCT value.event_id)). That costs ~1.5x a bare
// json_extract of the one path. So each view reads its structure from a
// session variable, falling back to the whole inferred one:
//
//	from_json(decode("value"), coalesce(getvariable('topicsnap_value_<hex>'), '<structure>'))
//
// and before a query runs, narrow asks DuckDB's own parser for the query's
// syntax tree (json_serialize_sql) and, when every use of value in it is a
// field access value.F (or alias.value.F), sets the variable of each topic
// the query reads to the structure of those top-level fields only. Anything
// it cannot prove (a bare value, a star, a whole-row reference, a statement
// the serializer does not know) leaves the full structure: narrowing only
// ever drops fields the query never names. The variables are per connection
// and reset when the query's rows are closed.
//
// A query that names one field (count(DISTINCT value.event_id)) goes one
// step further: from_json still builds a STRUCT from the whole document,
// ~1.2x the cost of DuckDB's json_extract_string of one path. For it, the
// topic's views are shadowed, on the query's connection only, by TEMP views
// whose value is
//
//	struct_pack(event_id := try(json_extract_string(decode("value"), '/event_id')))
//
// for a VARCHAR field, and try(from_json(json_extract(decode("value"),
// '/f'), 'TYPE')) for any other type: the same STRUCT type, and the same
// JSON transform applied to the same member, so the same answers
// (TestOneFieldSameAnswers compares them value by value on awkward JSON).
// The TEMP views are dropped with the variables. A qualified name
// (main."t") still reads the narrowed view: slower, never different.

// valueVariable is the session variable holding the structure a query uses
// for topic's value.
func valueVariable(topic string) string {
	return "topicsnap_value_" + hex.EncodeToString([]byte(topic))
}

// sqlTree is what narrow collects from a serialized statement.
type sqlTree struct {
	tables  map[string]bool // table names and aliases, lower case
	base    [][2]string     // BASE_TABLE names as written, and their aliases
	refs    [][]string      // column references, lower case
	star    []string        // relation names of * expressions ("" for bare *)
	unknown bool            // something narrowing cannot reason about
}

func (t *sqlTree) walk(v any) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			t.walk(e)
		}
	case map[string]any:
		typ, _ := x["type"].(string)
		class, _ := x["class"].(string)
		switch {
		case typ == "BASE_TABLE":
			name, _ := x["table_name"].(string)
			alias, _ := x["alias"].(string)
			t.base = append(t.base, [2]string{name, alias})
			t.tables[strings.ToLower(name)] = true
			if alias != "" {
				t.tables[strings.ToLower(alias)] = true
			}
		case class == "COLUMN_REF":
			names, _ := x["column_names"].([]any)
			ref := make([]string, 0, len(names))
			for _, n := range names {
				s, _ := n.(string)
				ref = append(ref, strings.ToLower(s))
			}
			t.refs = append(t.refs, ref)
		case class == "STAR":
			rel, _ := x["relation_name"].(string)
			t.star = append(t.star, strings.ToLower(rel))
		case class == "POSITIONAL_REFERENCE", typ == "TABLE_FUNCTION":
			// query_table('topic') and friends read a view by name: the
			// tree does not show which of its columns are used.
			t.unknown = true
		case typ == "SUBQUERY", typ == "EXPRESSION_LIST", typ == "PIVOT", typ == "DELIM_GET", typ == "COLUMN_DATA":
			if alias, _ := x["alias"].(string); alias != "" {
				t.tables[strings.ToLower(alias)] = true
			}
		}
		for _, e := range x {
			t.walk(e)
		}
	}
}

// narrowing is what a query's connection is set up with before it runs.
type narrowing struct {
	vars  map[string]string // session variable → narrowed structure
	views map[string]string // TEMP view name → its SELECT (one field)
}

// narrow returns, for each JSON topic the query reads, the variable and the
// narrowed structure to set, and for a query of one field the TEMP views;
// nil when the query keeps the full structures. doc is the query's syntax
// tree when the caller already has it; nil parses it here, if needed.
func (e *Engine) narrow(ctx context.Context, conn *sql.Conn, q string, doc *sqlDoc) *narrowing {
	e.mu.RLock()
	var jsonTopics []Topic
	for _, t := range e.topics {
		if t.JSON {
			jsonTopics = append(jsonTopics, t)
		}
	}
	e.mu.RUnlock()
	if len(jsonTopics) == 0 || !strings.Contains(strings.ToLower(q), "value") {
		return nil
	}
	if doc == nil {
		var err error
		if doc, err = parseSQL(ctx, conn, q); err != nil {
			return nil
		}
	}
	if doc.Error || len(doc.Statements) != 1 {
		return nil
	}
	t := &sqlTree{tables: map[string]bool{}}
	t.walk(doc.Statements)
	if t.unknown {
		return nil
	}
	byName := map[string]Topic{}
	for _, jt := range jsonTopics {
		byName[strings.ToLower(jt.Name)] = jt
		byName[strings.ToLower(jt.Name)+"$all"] = jt
	}
	topicRefs := map[string]bool{} // names and aliases the topic views go by
	for _, b := range t.base {
		if _, ok := byName[strings.ToLower(b[0])]; ok {
			topicRefs[strings.ToLower(b[0])] = true
			if b[1] != "" {
				topicRefs[strings.ToLower(b[1])] = true
			}
		}
	}
	for _, rel := range t.star {
		if rel == "" || topicRefs[rel] {
			return nil // * could expand a topic's value
		}
	}
	fields := map[string]bool{}
	for _, ref := range t.refs {
		i := -1
		switch {
		case len(ref) >= 1 && ref[0] == "value":
			i = 0
		case len(ref) >= 2 && ref[1] == "value" && t.tables[ref[0]]:
			i = 1
		case len(ref) >= 3 && ref[2] == "value" && t.tables[ref[1]]:
			i = 2
		case len(ref) == 1 && topicRefs[ref[0]]:
			return nil // a whole row, value and all
		}
		if i < 0 {
			continue
		}
		if i == len(ref)-1 {
			return nil // value itself
		}
		fields[ref[i+1]] = true
	}
	if len(fields) == 0 {
		return nil // value unused: projection pushdown already skips it
	}
	matched := map[string]bool{}
	out := map[string]string{}
	views := map[string]string{}
	for _, b := range t.base {
		jt, ok := byName[strings.ToLower(b[0])]
		if !ok {
			continue
		}
		s, kept, total, ok := narrowStructure(jt.Structure, fields)
		if !ok {
			return nil
		}
		for f := range kept {
			matched[f] = true
		}
		if len(kept) > 0 && len(kept) < total {
			out[valueVariable(jt.Name)] = s
		}
		if tf, ok := e.topicFilesOf(jt.Name); ok && len(kept) > 0 {
			src := jsonSource
			if tf.encoded {
				src = encodedSource
			}
			// Fields held by typed columns in every file are read from
			// them, whatever their number; else one field is read by a
			// JSON path.
			value, ok := "", false
			byName := false
			if tf.encoded {
				value, byName, ok = typedValue(tf, s)
			}
			if !ok && len(fields) == 1 && len(kept) == 1 {
				value, ok = oneFieldValue(s, src)
				raw := `"value"`
				if tf.encoded {
					raw = encodedSource
				}
				// Read only where the whole value fits its sampled
				// structure, as the full view reads it (fitted).
				value = boundedValue(fitted(value, valueFit(tf, jt)), raw)
			}
			if ok {
				cols := e.viewCols(tf, jt, value)
				cols.byName = cols.byName || byName
				all, data := topicSelects(tf.paths, tf.plain, cols, tf.openTxn)
				if strings.HasSuffix(strings.ToLower(b[0]), "$all") {
					views[tf.name+"$all"] = all
				} else {
					views[tf.name] = data
				}
			}
		}
	}
	for f := range fields {
		if !matched[f] {
			// A field no topic has: leave the structures whole so DuckDB's
			// error lists every candidate.
			return nil
		}
	}
	if len(out) == 0 && len(views) == 0 {
		return nil
	}
	return &narrowing{vars: out, views: views}
}

// typedValue is the value expression of a TEMP view whose fields (the
// top-level fields of a narrowed structure) are each held by one typed
// column in every file of the topic that holds decoded values (see
// catalog.Typed): struct_pack of the columns, the same STRUCT type as
// from_json's of the structure, and the same values
// (TestTypedColumnsSameAnswers compares them value by value). byName is
// set when some file has no typed columns (its values are NULL, or it
// holds none decoded), so read_parquet must match columns by name. ok is
// false when a field is not held that way, or its type is one the typed
// columns do not give exactly (FLOAT, through a double, is left to the
// JSON path).
func typedValue(tf topicFiles, structure string) (value string, byName, ok bool) {
	var entries []catalog.FileEntry
	for _, m := range tf.manifests {
		entries = append(entries, m.Files...)
	}
	for i := range entries {
		byName = byName || entries[i].Typed == nil
	}
	dec := json.NewDecoder(strings.NewReader(structure))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false, false
	}
	var parts []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", false, false
		}
		name, _ := tok.(string)
		var typ json.RawMessage
		if err := dec.Decode(&typ); err != nil {
			return "", false, false
		}
		col, kind, found := catalog.TypedColumnOf(entries, name)
		if !found {
			return "", false, false
		}
		var expr string
		switch t := string(typ); {
		case kind == catalog.KindString && t == `"VARCHAR"`,
			kind == catalog.KindInt && t == `"BIGINT"`,
			kind == catalog.KindFloat && t == `"DOUBLE"`,
			kind == catalog.KindBool && t == `"BOOLEAN"`:
			expr = quoteIdent(col)
		case kind == catalog.KindInt && t == `"INTEGER"`:
			expr = "CAST(" + quoteIdent(col) + " AS INTEGER)"
		default:
			return "", false, false
		}
		parts = append(parts, quoteIdent(name)+" := "+expr)
	}
	if len(parts) == 0 {
		return "", false, false
	}
	return "struct_pack(" + strings.Join(parts, ", ") + ")", byName, true
}

// oneFieldValue is the value expression of the one-field TEMP view for a
// narrowed structure of exactly one field ({"event_id":"VARCHAR"}).
func oneFieldValue(structure, src string) (string, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(structure), &m); err != nil || len(m) != 1 {
		return "", false
	}
	for name, typ := range m {
		// A JSON pointer: no quoting rules for dots, quotes or brackets.
		ptr := quoteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name))
		var expr string
		if string(typ) == `"VARCHAR"` {
			expr = fmt.Sprintf(`try(json_extract_string(%s, %s))`, src, ptr)
		} else {
			expr = fmt.Sprintf(`try(from_json(json_extract(%s, %s), %s))`, src, ptr, quoteString(string(typ)))
		}
		return fmt.Sprintf("struct_pack(%s := %s)", quoteIdent(name), expr), true
	}
	return "", false
}

// narrowStructure keeps the top-level fields of a JSON structure whose
// names (case-insensitively) are in fields, in their order. It reports the
// fields kept (lower case) and how many there were.
func narrowStructure(structure string, fields map[string]bool) (string, map[string]bool, int, bool) {
	dec := json.NewDecoder(strings.NewReader(structure))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", nil, 0, false
	}
	var buf bytes.Buffer
	buf.WriteByte('{')
	kept := map[string]bool{}
	total := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return "", nil, 0, false
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return "", nil, 0, false
		}
		total++
		if !fields[strings.ToLower(name)] {
			continue
		}
		if len(kept) > 0 {
			buf.WriteByte(',')
		}
		kept[strings.ToLower(name)] = true
		k, _ := json.Marshal(name)
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(raw)
	}
	buf.WriteByte('}')
	return buf.String(), kept, total, true
}

// setNarrow sets the narrowed structures and creates the TEMP views on
// conn, and returns the function that undoes both. A connection that cannot
// be reset is dropped from the pool, so no later query sees a narrowed
// structure. A TEMP view that cannot be made is left out: the query then
// reads the narrowed view, with the same answers.
func setNarrow(ctx context.Context, conn *sql.Conn, n *narrowing) (func(), error) {
	var views []string
	reset := func() {
		rctx := context.WithoutCancel(ctx)
		for _, v := range views {
			if _, err := conn.ExecContext(rctx, "DROP VIEW IF EXISTS temp.main."+quoteIdent(v)); err != nil {
				conn.Raw(func(any) error { return driver.ErrBadConn })
				return
			}
		}
		for name := range n.vars {
			if _, err := conn.ExecContext(rctx, "RESET VARIABLE "+quoteIdent(name)); err != nil {
				conn.Raw(func(any) error { return driver.ErrBadConn })
				return
			}
		}
	}
	for name, s := range n.vars {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET VARIABLE %s = %s", quoteIdent(name), quoteString(s))); err != nil {
			reset()
			return func() {}, fmt.Errorf("narrow value structure: %w", err)
		}
	}
	if len(n.views) > 0 && sessionHasTemp(ctx, conn, n.views) {
		// The session made a TEMP object of that name (the REPL): leave it be;
		// the query reads it, as it would have anyway.
		return reset, nil
	}
	for name, sel := range n.views {
		views = append(views, name)
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP VIEW %s AS %s", quoteIdent(name), sel)); err != nil {
			if ctx.Err() != nil {
				reset()
				return func() {}, ctx.Err()
			}
			// Not worth failing the query for: it reads the narrowed view.
		}
	}
	return reset, nil
}

// sessionHasTemp reports whether conn has a TEMP view or table named like
// one of views (or whether it cannot tell).
func sessionHasTemp(ctx context.Context, conn *sql.Conn, views map[string]string) bool {
	names := make([]string, 0, len(views))
	for v := range views {
		names = append(names, strings.ToLower(v))
	}
	var n int
	err := conn.QueryRowContext(ctx, `SELECT count(*) FROM (
		SELECT view_name AS n FROM duckdb_views() WHERE temporary AND NOT internal
		UNION ALL SELECT table_name FROM duckdb_tables() WHERE temporary)
	WHERE list_contains(?::VARCHAR[], lower(n))`, names).Scan(&n)
	return err != nil || n > 0
}
