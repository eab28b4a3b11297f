package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/topicsnap/topicsnap/internal/sqllex"
)

// The guard: what SQL that came from outside may do.
//
// Two kinds of text reach DuckDB from outside: whole queries (the server's
// /api/sql, notebook cells on the server) and expressions (a check's --id,
// --where, ...; the same options as request parameters). Neither is ever
// filtered as text. Both are parsed by DuckDB (json_serialize_sql), and the
// syntax tree is what is judged:
//
//   - a query must be exactly one SELECT (only SELECT statements serialize,
//     so COPY, ATTACH, SET, PRAGMA, CREATE, INSERT ... are refused before
//     anything runs); it may read the topic views, the catalog tables and
//     its own CTEs, and nothing else: no other schema (information_schema,
//     pg_catalog), no system view (duckdb_settings, pg_settings, ...), no
//     file named as a table ('x.csv'), no table function but range,
//     generate_series, unnest, topic_state over a topic's view, and
//     read_csv of one regular file inside the snapshot folder (a
//     notebook's {{dir}} || '/orders.csv'), no function that discloses settings or
//     view definitions (current_setting, pg_get_viewdef, ...);
//   - an expression must parse as exactly one expression over the topic,
//     with no subquery; what is embedded in a check's SQL is not the text
//     the user gave but DuckDB's own rendering of the parsed expression
//     (json_deserialize_sql), checked to parse back to the same tree. It
//     carries no comment and cannot close a literal or a parenthesis it did
//     not open;
//   - every statement a check runs is parsed again, whole, and judged as a
//     query above before it runs, on every engine: the CLI's, the server's
//     and the notebooks'.

// ErrBadOption marks a check option that cannot be used. Errors of this
// kind are *OptionError values.
var ErrBadOption = exit.New(exit.Error, "bad option", "")

// OptionError is a check option that cannot be used: Option is its name
// as the check knows it ("id", "what_if_partitions"), so the CLI can print
// --id and the server id=.
type OptionError struct {
	Option string
	Value  string
	Reason string
}

func (e *OptionError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("option %s: %s", e.Option, e.Reason)
	}
	return fmt.Sprintf("option %s %q: %s", e.Option, e.Value, e.Reason)
}

// Is makes errors.Is(err, ErrBadCheck) and errors.Is(err, ErrBadOption)
// true for option errors.
func (e *OptionError) Is(target error) bool { return target == ErrBadOption || target == ErrBadCheck }

func optErr(option, value, format string, args ...any) error {
	return &OptionError{Option: option, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// judgeFunction refuses a function or window node whose function is not
// on the allow-list (functions_allowed.go).
func judgeFunction(v map[string]any, spark bool) error {
	if v["class"] != "FUNCTION" && v["class"] != "WINDOW" {
		return nil
	}
	name, _ := v["function_name"].(string)
	if name == "" || functionAllowed(name, v["class"] == "WINDOW") || spark && sparkFunctions[strings.ToLower(name)] {
		return nil
	}
	return fmt.Errorf("function %s() is not allowed here (not on topicsnap's list of functions for SQL from outside)", name)
}

// safeTableFunctions may appear in untrusted SQL: they read no files.
var safeTableFunctions = map[string]bool{"range": true, "generate_series": true, "unnest": true}

// systemRelations lists, lower-case, every table and view DuckDB has
// before the engine creates any (duckdb_settings, pg_settings, the
// information schema, ...): no CTE of an untrusted query may take one of
// these names, since where the CTE is not in scope the name would reach
// the system view.
func systemRelations(ctx context.Context, conn *sql.Conn) (map[string]bool, error) {
	rows, err := conn.QueryContext(ctx, `SELECT lower(view_name) FROM duckdb_views() WHERE internal
UNION SELECT lower(table_name) FROM duckdb_tables() WHERE internal`)
	if err != nil {
		return nil, fmt.Errorf("list system relations: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("list system relations: %w", err)
		}
		out[n] = true
	}
	return out, rows.Err()
}

// isRelation tells whether name (any case) is one of the engine's topic
// views or catalog tables.
func (e *Engine) isRelation(name string) bool {
	n := strings.ToLower(name)
	for _, t := range metadataTables {
		if n == t {
			return true
		}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if slices.Contains(logViews, n) && e.hasOffsetsLogLocked() {
		return true
	}
	for _, tf := range e.files {
		l := strings.ToLower(tf.name)
		if n == l || n == l+"$all" || n == l+"$superseded" && len(tf.superseded) > 0 {
			return true
		}
	}
	return false
}

// systemNames returns DuckDB's own relation names, read on first use (an
// engine that never judges outside SQL never pays for it).
func (e *Engine) systemNames(ctx context.Context, conn *sql.Conn) (map[string]bool, error) {
	e.systemMu.Lock()
	defer e.systemMu.Unlock()
	if e.system == nil {
		sys, err := systemRelations(ctx, conn)
		if err != nil {
			return nil, err
		}
		e.system = sys
	}
	return e.system, nil
}

// guard refuses, with a clear message, anything but a single SELECT over
// the engine's views, catalog tables and the query's own CTEs (see the top
// of this file).
func (e *Engine) guard(ctx context.Context, conn *sql.Conn, doc *sqlDoc) error {
	return e.guardFor(ctx, conn, doc, false)
}

// guardFor is guard for a statement that runs on DuckDB, or (spark) on
// the remote Spark engine, whose functions of its own on sparkFunctions
// are allowed too.
func (e *Engine) guardFor(ctx context.Context, conn *sql.Conn, doc *sqlDoc, spark bool) error {
	if doc.Error {
		if doc.Type == "not implemented" { // the serializer knows SELECT only
			return fmt.Errorf("%w: only a read-only SELECT is allowed here (no COPY, ATTACH, INSTALL, LOAD, SET, RESET, PRAGMA, CREATE, INSERT, ...)", ErrRefused)
		}
		return fmt.Errorf("%w: %s", ErrRefused, doc.Message)
	}
	if len(doc.Statements) != 1 {
		return fmt.Errorf("%w: send exactly one statement, got %d", ErrRefused, len(doc.Statements))
	}
	ctes := map[string]bool{}
	collectCTEs(doc.Statements[0], ctes)
	system, err := e.systemNames(ctx, conn)
	if err != nil {
		return err
	}
	return e.walkGuard(doc.Statements[0], ctes, system, spark)
}

// collectCTEs adds the lower-case names of every CTE defined anywhere in n.
func collectCTEs(n any, out map[string]bool) {
	switch v := n.(type) {
	case map[string]any:
		if m, ok := v["cte_map"].(map[string]any); ok {
			if list, ok := m["map"].([]any); ok {
				for _, it := range list {
					if kv, ok := it.(map[string]any); ok {
						if k, ok := kv["key"].(string); ok {
							out[strings.ToLower(k)] = true
						}
					}
				}
			}
		}
		for _, c := range v {
			collectCTEs(c, out)
		}
	case []any:
		for _, c := range v {
			collectCTEs(c, out)
		}
	}
}

func (e *Engine) walkGuard(n any, ctes, system map[string]bool, spark bool) error {
	switch v := n.(type) {
	case map[string]any:
		switch v["type"] {
		case "TABLE_FUNCTION":
			name := functionName(v["function"])
			if strings.EqualFold(name, "topic_state") || strings.EqualFold(name, "topic_state_unknown") {
				if err := e.guardTopicState(name, v["function"]); err != nil {
					return err
				}
			} else if strings.EqualFold(name, "lag_at") {
				if err := guardLagAt(v["function"]); err != nil {
					return err
				}
			} else if csvReaders[strings.ToLower(name)] {
				if err := e.guardReadCSV(name, v["function"]); err != nil {
					return err
				}
			} else if !safeTableFunctions[strings.ToLower(name)] {
				return fmt.Errorf("%w: table function %s() is not allowed here; query the topic views and catalog tables", ErrRefused, name)
			}
		case "BASE_TABLE":
			if err := e.guardTable(v, ctes, system); err != nil {
				return err
			}
		case "SHOW_REF":
			// DESCRIBE/SUMMARIZE carry their query (walked below); of the
			// rest only SHOW TABLES, which lists names.
			if v["query"] == nil {
				if t, _ := v["table_name"].(string); strings.Trim(strings.ToLower(t), `"`) != "tables" {
					return fmt.Errorf("%w: SHOW %s is not allowed here; SHOW TABLES and DESCRIBE are", ErrRefused, t)
				}
			}
		}
		if err := judgeFunction(v, spark); err != nil {
			return fmt.Errorf("%w: %v", ErrRefused, err)
		}
		for k, c := range v {
			if k == "function" && v["type"] == "TABLE_FUNCTION" {
				// The table function was judged above; its arguments
				// are judged as any expression.
				if f, ok := c.(map[string]any); ok {
					c = f["children"]
				}
			}
			if err := e.walkGuard(c, ctes, system, spark); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range v {
			if err := e.walkGuard(c, ctes, system, spark); err != nil {
				return err
			}
		}
	}
	return nil
}

// guardTable allows a table reference to a topic view, a catalog table or
// a CTE of the query, unqualified or in the main schema.
func (e *Engine) guardTable(v map[string]any, ctes, system map[string]bool) error {
	schema, _ := v["schema_name"].(string)
	cat, _ := v["catalog_name"].(string)
	name, _ := v["table_name"].(string)
	if (schema != "" && !strings.EqualFold(schema, "main")) || (cat != "" && !strings.EqualFold(cat, "memory")) {
		return fmt.Errorf("%w: %s is not allowed here; query the topic views and catalog tables (topicsnap ls lists them)", ErrRefused, qualifiedName(cat, schema, name))
	}
	if e.isRelation(name) {
		return nil
	}
	l := strings.ToLower(name)
	if ctes[l] && !system[l] && !strings.ContainsAny(name, `./\:`) {
		return nil
	}
	return fmt.Errorf("%w: %q is not a topic view or catalog table; query those (topicsnap ls lists them)", ErrRefused, name)
}

func qualifiedName(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, quoteIdent(p))
		}
	}
	return strings.Join(out, ".")
}

// CheckReadOnly parses query and judges it as the guard does (see the top
// of this file); ErrRefused says why not.
func (e *Engine) CheckReadOnly(ctx context.Context, conn *sql.Conn, query string) error {
	doc, err := parseSQL(ctx, conn, query)
	if err != nil {
		return err
	}
	return e.guard(ctx, conn, doc)
}

// Expr parses text as one expression over topic's view (the view "T", or
// "T$all" when all is set) and returns DuckDB's own rendering of it: the
// only form in which an expression from outside is embedded in SQL.
// option names the option for errors.
func (e *Engine) Expr(ctx context.Context, option, text, topic string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", optErr(option, "", "is empty: give an SQL expression over the topic, such as value.event_id")
	}
	if len(text) > maxExprBytes {
		return "", optErr(option, "", "is %d bytes; an expression may have %d at most", len(text), maxExprBytes)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	view := quoteIdent(topic)
	parse := func(expr string) (map[string]any, error) {
		// The newlines end a trailing -- comment; whatever the text does,
		// only the tree is used.
		doc, err := parseSQL(ctx, conn, "SELECT (\n"+expr+"\n) FROM "+view)
		if errors.Is(err, ErrRefused) { // a NUL, a tree that is not JSON
			return nil, optErr(option, text, "%v", strings.TrimPrefix(err.Error(), ErrRefused.Error()+": "))
		}
		if err != nil {
			return nil, err
		}
		if doc.Error {
			return nil, optErr(option, text, "is not an SQL expression: %s", doc.Message)
		}
		if len(doc.Statements) != 1 {
			return nil, optErr(option, text, "must be one expression, not %d statements", len(doc.Statements))
		}
		st, _ := doc.Statements[0].(map[string]any)
		node, _ := st["node"].(map[string]any)
		if node == nil || node["type"] != "SELECT_NODE" {
			return nil, optErr(option, text, "must be one expression over the topic")
		}
		list, _ := node["select_list"].([]any)
		from, _ := node["from_table"].(map[string]any)
		simple := len(list) == 1 && from != nil && from["type"] == "BASE_TABLE" &&
			from["table_name"] == topic && from["schema_name"] == "" && from["catalog_name"] == "" &&
			node["where_clause"] == nil && node["having"] == nil && node["qualify"] == nil && node["sample"] == nil &&
			isEmpty(node["group_expressions"]) && isEmpty(node["modifiers"]) && !hasCTE(node)
		if !simple {
			return nil, optErr(option, text, "must be one expression over the topic (no FROM, WHERE, GROUP BY, ORDER BY, LIMIT or second column)")
		}
		x, _ := list[0].(map[string]any)
		if x == nil {
			return nil, optErr(option, text, "must be one expression over the topic")
		}
		delete(x, "alias")
		if err := refuseInExpr(x); err != nil {
			return nil, optErr(option, text, "%v", err)
		}
		return x, nil
	}
	tree, err := parse(text)
	if err != nil {
		return "", err
	}
	// Render the tree alone: SELECT <expr> with no FROM.
	stmt := map[string]any{"error": false, "statements": []any{map[string]any{
		"node": map[string]any{
			"type": "SELECT_NODE", "modifiers": []any{}, "cte_map": map[string]any{"map": []any{}},
			"select_list":  []any{tree},
			"from_table":   map[string]any{"type": "EMPTY", "alias": "", "sample": nil, "query_location": json.Number("18446744073709551615")},
			"where_clause": nil, "group_expressions": []any{}, "group_sets": []any{},
			"aggregate_handling": "STANDARD_HANDLING", "having": nil, "sample": nil, "qualify": nil,
		},
		"named_param_map": []any{},
	}}}
	js, err := json.Marshal(stmt)
	if err != nil {
		return "", fmt.Errorf("render option %s: %w", option, err)
	}
	var rendered string
	if err := conn.QueryRowContext(ctx, "SELECT json_deserialize_sql(?::JSON)", string(js)).Scan(&rendered); err != nil {
		return "", optErr(option, text, "cannot be rendered back as SQL: %v", CleanError(err))
	}
	canon, ok := strings.CutPrefix(rendered, "SELECT ")
	// DuckDB renders no comment, and closes what it opens; a rendering
	// that holds a comment or leaves a quote open, as internal/sqllex
	// reads it, is refused.
	if !ok || sqllex.HasComment(canon) {
		return "", optErr(option, text, "cannot be rendered back as SQL")
	}
	// The rendering must mean exactly the tree that was judged.
	again, err := parse(canon)
	if err != nil {
		return "", optErr(option, text, "does not render back to itself")
	}
	if !reflect.DeepEqual(withoutLocations(tree), withoutLocations(again)) {
		return "", optErr(option, text, "does not render back to the same expression")
	}
	// Bind it (names, types) without reading data.
	rows, err := conn.QueryContext(ctx, "SELECT ("+canon+") AS x FROM "+view+" LIMIT 0")
	if err != nil {
		if t, ok := e.Topic(topic); ok && t.unsampled != nil {
			// The value's type was lost to a damaged file: the option may
			// well be right, and the folder is what to fix.
			de := *t.unsampled
			de.Context = fmt.Sprintf("option %s %q cannot be judged: the values of %s could not be typed", option, text, t.Name)
			de.Err = errors.Join(de.Err, err)
			return "", &de
		}
		return "", optErr(option, text, "%v", CleanError(err))
	}
	rows.Close()
	if e.opts.Remote != nil {
		if err := e.remoteExpr(ctx, option, text, canon, topic); err != nil {
			return "", err
		}
	}
	return canon, nil
}

// RemoteRefusal is an error of a remote engine that refused a statement
// (a syntax error, a name or a type it does not know), not one that could
// not be run: a remote's package marks its errors so.
type RemoteRefusal interface {
	error
	RefusedStatement()
}

// remoteExpr binds canon (Expr's rendering of text) over topic's view on
// the remote, reading nothing: an expression is sent there as DuckDB
// writes it, and one the remote reads otherwise (--event-time
// 'CAST(x AS TIMESTAMPTZ)', written TIMESTAMP WITH TIME ZONE) failed the
// check's whole statement with a syntax error at a line of topicsnap's
// SQL, naming no option.
func (e *Engine) remoteExpr(ctx context.Context, option, text, canon, topic string) error {
	engine := e.opts.Remote.Dialect()
	view := sqlData{T: quoteIdent(topic)}.in(viewSchemas[engine]).T
	_, err := e.queryRemoteAt(ctx, "SELECT ("+canon+") AS x FROM "+view+" LIMIT 0", "")
	var refused RemoteRefusal
	if errors.As(err, &refused) {
		if typ, terr := e.exprType(ctx, canon, topic); terr == nil && nestedType(typ) {
			// A list or a struct Spark builds otherwise: the check
			// refuses it on the remote by its type, naming the fix.
			return nil
		}
		why, _, _ := strings.Cut(refused.Error(), "\n") // not the statement Spark prints after it
		return optErr(option, text, "is sent to %s as DuckDB writes it, %s, which %s refuses: %s; give an expression both engines read (CAST(x AS TIMESTAMP), not TIMESTAMPTZ; functions both have)", engine, canon, engine, strings.TrimSpace(why))
	}
	return err
}

// exprType is DuckDB's type name of expr (Expr's rendering) over topic's
// view, as its driver names it (BIGINT, BLOB, TIMESTAMPTZ, STRUCT(...)):
// bound, no data read. A remote statement shows a value as DuckDB's text
// of it by its type (duplicates.spark.sql).
func (e *Engine) exprType(ctx context.Context, expr, topic string) (string, error) {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT ("+expr+") AS x FROM "+quoteIdent(topic)+" LIMIT 0")
	if err != nil {
		return "", fmt.Errorf("type %s: %w", expr, CleanError(err))
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil || len(cts) != 1 {
		return "", fmt.Errorf("type %s: %v", expr, err)
	}
	return cts[0].DatabaseTypeName(), nil
}

// maxExprBytes bounds an expression option.
const maxExprBytes = 4096

// refuseInExpr refuses what an expression over the topic may not hold: a
// subquery (it could read other tables), a table function, a denied
// function.
func refuseInExpr(n any) error {
	switch v := n.(type) {
	case map[string]any:
		if v["class"] == "STAR" || v["class"] == "COLUMNS" {
			return errors.New("* and COLUMNS() are not allowed: give one expression over the topic's columns")
		}
		if v["class"] == "SUBQUERY" || v["type"] == "SUBQUERY" {
			return errors.New("a subquery is not allowed: give one expression over the topic's columns")
		}
		if v["type"] == "TABLE_FUNCTION" || v["type"] == "BASE_TABLE" {
			return errors.New("a table is not allowed: give one expression over the topic's columns")
		}
		if err := judgeFunction(v, false); err != nil {
			return err
		}
		for _, c := range v {
			if err := refuseInExpr(c); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range v {
			if err := refuseInExpr(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	}
	return false
}

func hasCTE(node map[string]any) bool {
	m, _ := node["cte_map"].(map[string]any)
	list, _ := m["map"].([]any)
	return len(list) > 0
}

// withoutLocations copies a syntax tree without its query_location fields,
// which differ between two spellings of one expression.
func withoutLocations(n any) any {
	switch v := n.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, c := range v {
			if k != "query_location" {
				out[k] = withoutLocations(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = withoutLocations(c)
		}
		return out
	}
	return n
}

// guardTopicState allows topic_state(topic, time) and
// topic_state_unknown(topic, time) only over a topic's view: the first
// argument is a string constant naming one.
func (e *Engine) guardTopicState(fname string, fn any) error {
	fname = strings.ToLower(fname)
	refuse := fmt.Errorf("%w: %s's first argument is a topic's name as a string constant, such as %s('routing', TIMESTAMPTZ '2026-07-16 11:00:00Z')", ErrRefused, fname, fname)
	f, _ := fn.(map[string]any)
	args, _ := f["children"].([]any)
	name, ok := constantArg(fn, 0)
	if len(args) != 2 || !ok {
		return refuse
	}
	if slices.Contains(metadataTables, strings.ToLower(name)) || !e.isRelation(name) {
		return fmt.Errorf("%w: %s(%q, ...): no topic of that name in the snapshot folder", ErrRefused, fname, name)
	}
	return nil
}

// guardLagAt allows lag_at(group, time): the macro reads the catalog
// tables, the commit log and the topics' offsets and timestamps, whatever
// its arguments (values, judged as any expression, bound parameters
// included).
func guardLagAt(fn any) error {
	f, _ := fn.(map[string]any)
	if args, _ := f["children"].([]any); len(args) != 2 {
		return fmt.Errorf("%w: lag_at takes a group's name and a time, such as lag_at('billing', TIMESTAMPTZ '2026-07-16 11:00:00Z')", ErrRefused)
	}
	return nil
}

// csvReaders read a CSV file; guardReadCSV says which calls may.
var csvReaders = map[string]bool{"read_csv": true, "read_csv_auto": true}

// csvOptions are the read_csv options untrusted SQL may set: how to parse
// the file, nothing that names it (filename would show the folder's path)
// or reads others.
var csvOptions = map[string]bool{
	"header": true, "all_varchar": true, "delim": true, "sep": true, "quote": true, "escape": true,
	"skip": true, "nullstr": true, "dateformat": true, "timestampformat": true, "auto_detect": true,
	"sample_size": true, "comment": true, "new_line": true,
}

// guardReadCSV allows read_csv(path, option = constant, ...) only when path
// is a string constant (or constants joined with ||, as a notebook's
// {{dir}} || '/orders.csv') naming one regular file inside the snapshot
// folder, also once symbolic links are followed, with no glob; DuckDB's
// allowed_directories bounds the read a second time.
func (e *Engine) guardReadCSV(name string, fn any) error {
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s() reads one CSV file of the snapshot folder, named by a string such as {{dir}} || '/orders.csv' in a notebook: %s", ErrRefused, name, why)
	}
	f, _ := fn.(map[string]any)
	args, _ := f["children"].([]any)
	if len(args) == 0 {
		return refuse("no file named")
	}
	path, ok := constantString(args[0])
	if !ok {
		return refuse("the file is not named by a string constant")
	}
	if strings.ContainsAny(path, "*?[]{}") || strings.Contains(path, "://") {
		return refuse("a pattern or a URL names more than one file")
	}
	if !e.insideFolder(path) {
		return refuse("the file is not a regular file inside the snapshot folder")
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || !csvData(path) || !csvData(real) {
		return refuse("only a data file (.csv, .tsv, .txt, optionally .gz) is read this way, never the catalog's own files")
	}
	for _, a := range args[1:] {
		m, _ := a.(map[string]any)
		left, _ := m["left"].(map[string]any)
		cols, _ := left["column_names"].([]any)
		opt := ""
		if len(cols) == 1 {
			opt, _ = cols[0].(string)
		}
		right, _ := m["right"].(map[string]any)
		if c, ok := right["child"].(map[string]any); ok && right["class"] == "CAST" {
			right = c
		}
		if m["type"] != "COMPARE_EQUAL" || left["class"] != "COLUMN_REF" || !csvOptions[strings.ToLower(opt)] || right["class"] != "CONSTANT" {
			return refuse(fmt.Sprintf("option %s is not one of %s, set to a constant", opt, strings.Join(slices.Sorted(maps.Keys(csvOptions)), ", ")))
		}
	}
	return nil
}

// constantString is the text of a VARCHAR constant, or of constants
// joined with ||.
func constantString(n any) (string, bool) {
	m, _ := n.(map[string]any)
	if m["class"] == "FUNCTION" && m["function_name"] == "||" {
		args, _ := m["children"].([]any)
		var b strings.Builder
		for _, a := range args {
			s, ok := constantString(a)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), len(args) > 0
	}
	return constantArg(map[string]any{"children": []any{n}}, 0)
}

// insideFolder reports whether path names a regular file inside the
// snapshot folder, by its name and once symbolic links are followed.
func (e *Engine) insideFolder(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	dir, err := filepath.EvalSymlinks(e.dir.Path)
	if err != nil {
		return false
	}
	within := func(p string) bool {
		rel, err := filepath.Rel(dir, p)
		return err == nil && rel != "." && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	clean := filepath.Clean(path)
	abs, err := filepath.Abs(e.dir.Path)
	if err != nil {
		return false
	}
	if rel, err := filepath.Rel(abs, clean); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil || !within(real) {
		return false
	}
	st, err := os.Stat(real)
	return err == nil && st.Mode().IsRegular()
}

// csvData tells whether a file's name says it is data a user put in the
// folder (orders.csv), not one of the catalog's own files (JSON, Parquet).
func csvData(path string) bool {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	return strings.HasSuffix(name, ".csv") || strings.HasSuffix(name, ".tsv") || strings.HasSuffix(name, ".txt")
}
