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

// safeTableFunctions may appear in untrusted SQL: they read no files.
var safeTableFunctions = map[string]bool{"range": true, "generate_series": true, "unnest": true}

// sqlDoc is DuckDB's own syntax tree of a query string, from
// json_serialize_sql. Only SELECT statements serialize; for anything else
// Error is set and Message says why.
type sqlDoc struct {
	Error      bool   `json:"error"`
	Message    string `json:"error_message"`
	Statements []any  `json:"statements"`
}

// parseSQL asks DuckDB's parser for the syntax tree of q. It is read by the
// locked engine's check and by narrow, once per query.
func parseSQL(ctx context.Context, conn *sql.Conn, q string) (*sqlDoc, error) {
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", q).Scan(&out); err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	var doc sqlDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("parse query: %w", err)
	}
	return &doc, nil
}

// CheckReadOnly refuses, with a clear message, anything but a single
// SELECT statement over the engine's views and tables: no COPY, ATTACH,
// INSTALL/LOAD, SET/RESET, PRAGMA, DDL, and no table function that could
// read a file (read_csv, glob, read_parquet, ...).
func (e *Engine) CheckReadOnly(ctx context.Context, conn *sql.Conn, query string) error {
	doc, err := parseSQL(ctx, conn, query)
	if err != nil {
		return err
	}
	return refuseUnsafe(doc)
}

// refuseUnsafe is CheckReadOnly on a parsed query.
func refuseUnsafe(doc *sqlDoc) error {
	if doc.Error {
		if strings.Contains(doc.Message, "Only SELECT") || strings.Contains(doc.Message, "SELECT statements") {
			return fmt.Errorf("%w: only a read-only SELECT is allowed here (no COPY, ATTACH, INSTALL, LOAD, SET, RESET, PRAGMA, CREATE, INSERT, ...)", ErrRefused)
		}
		return fmt.Errorf("%w: %s", ErrRefused, doc.Message)
	}
	if len(doc.Statements) != 1 {
		return fmt.Errorf("%w: send exactly one statement, got %d", ErrRefused, len(doc.Statements))
	}
	return walkRefuse(doc.Statements[0])
}

func walkRefuse(n any) error {
	switch v := n.(type) {
	case map[string]any:
		if v["type"] == "TABLE_FUNCTION" {
			name := functionName(v["function"])
			if !safeTableFunctions[strings.ToLower(name)] {
				return fmt.Errorf("%w: table function %s() is not allowed here; query the topic views and catalog tables", ErrRefused, name)
			}
		}
		for _, c := range v {
			if err := walkRefuse(c); err != nil {
				return err
			}
		}
	case []any:
		for _, c := range v {
			if err := walkRefuse(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func functionName(f any) string {
	if m, ok := f.(map[string]any); ok {
		if s, ok := m["function_name"].(string); ok {
			return s
		}
	}
	return "?"
}
