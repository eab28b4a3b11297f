package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// lock applies the settings of a locked engine, then locks them.
func (e *Engine) lock(ctx context.Context) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	dir := strings.TrimSuffix(e.dir.Path, "/") + "/"
	stmts := []string{
		fmt.Sprintf("SET allowed_directories = [%s]", quoteString(dir)),
		"SET enable_external_access = false",
		"SET autoinstall_known_extensions = false",
		"SET autoload_known_extensions = false",
		"SET allow_community_extensions = false",
		"SET lock_configuration = true",
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("lock duckdb (%s): %w", s, err)
		}
	}
	return nil
}

// sqlDoc is DuckDB's own syntax tree of a query string, from
// json_serialize_sql. Only SELECT statements serialize; for anything else
// Error is set and Message says why.
type sqlDoc struct {
	Error      bool   `json:"error"`
	Message    string `json:"error_message"`
	Type       string `json:"error_type"`
	Statements []any  `json:"statements"`
}

// parseSQL asks DuckDB's parser for the syntax tree of q. It is read by the
// guard, by Engine.Expr (which renders a tree back to SQL) and by narrow,
// once per query. Numbers stay as DuckDB wrote them: a BIGINT constant must
// not pass through a float64.
func parseSQL(ctx context.Context, conn *sql.Conn, q string) (*sqlDoc, error) {
	// DuckDB reads a statement's text up to its first NUL byte: what
	// follows would be dropped unseen, by the guard and the run alike.
	if i := strings.IndexByte(q, 0); i >= 0 {
		return nil, fmt.Errorf("%w: the text holds a NUL byte (at byte %d), where DuckDB would stop reading it; remove it (in a string, write chr(0))", ErrRefused, i)
	}
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", q).Scan(&out); err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var doc sqlDoc
	if err := dec.Decode(&doc); err != nil {
		// DuckDB writes a DOUBLE constant past float64's range (1e400) as
		// a bare Infinity, which is not JSON: the text cannot be judged,
		// and says so as a refusal (400), not as the server's own failure.
		return nil, fmt.Errorf("%w: this text cannot be judged: DuckDB's syntax tree of it is not JSON (%v); a number beyond a DOUBLE's range, such as 1e400, is the usual cause: write 'infinity'::DOUBLE", ErrRefused, err)
	}
	return &doc, nil
}

func functionName(f any) string {
	if m, ok := f.(map[string]any); ok {
		if s, ok := m["function_name"].(string); ok {
			return s
		}
	}
	return "?"
}

// constantArg is a function's i-th argument when it is a string constant.
func constantArg(fn any, i int) (string, bool) {
	f, _ := fn.(map[string]any)
	args, _ := f["children"].([]any)
	if i >= len(args) {
		return "", false
	}
	a, _ := args[i].(map[string]any)
	val, _ := a["value"].(map[string]any)
	typ, _ := val["type"].(map[string]any)
	s, ok := val["value"].(string)
	if a["class"] != "CONSTANT" || typ["id"] != "VARCHAR" || val["is_null"] == true || !ok {
		return "", false
	}
	return s, true
}
