package queries

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// A lazy engine (Options.Lazy) builds a topic's views and a catalog table
// when a query first names them. The names come from DuckDB's own syntax
// tree of the query (json_serialize_sql): every BASE_TABLE reference
// unqualified or in the main schema. Anything that could reach a table
// without naming it in the tree builds everything first: a statement the
// serializer does not know (only SELECT serializes), a table function
// (query_table, duckdb_tables, ...), SHOW/DESCRIBE/SUMMARIZE, and a table
// in another schema (information_schema, pg_catalog, temp). A name the
// tree shows that is neither a topic nor a catalog table (a CTE, a table
// the session made) builds nothing.

// wantOf returns what a lazy engine must build before running the query
// whose syntax tree is doc (nil when it did not parse).
func wantOf(doc *sqlDoc) want {
	if doc == nil || doc.Error {
		return want{all: true}
	}
	w := want{names: map[string]bool{}}
	if !collectNames(doc.Statements, w.names) {
		return want{all: true}
	}
	return w
}

// collectNames adds the lower-case names of the tables n reads to names,
// and reports false when n may read a table it does not name.
func collectNames(n any, names map[string]bool) bool {
	switch v := n.(type) {
	case []any:
		for _, c := range v {
			if !collectNames(c, names) {
				return false
			}
		}
	case map[string]any:
		switch v["type"] {
		case "BASE_TABLE":
			schema, _ := v["schema_name"].(string)
			cat, _ := v["catalog_name"].(string)
			if (schema != "" && !strings.EqualFold(schema, "main")) || (cat != "" && !strings.EqualFold(cat, "memory")) {
				return false
			}
			name, _ := v["table_name"].(string)
			names[strings.ToLower(name)] = true
		case "TABLE_FUNCTION":
			fn := strings.ToLower(functionName(v["function"]))
			if fn == "topic_state" || fn == "topic_state_unknown" {
				// topic_state('T', time) reads topic T's two views and the
				// catalog tables topic_state_unknown reads.
				name, ok := constantArg(v["function"], 0)
				if !ok {
					return false
				}
				n := strings.ToLower(name)
				for _, t := range []string{stateMacros, n, n + "$all", "partition_dumps", "lost_ranges", "topic_configs"} {
					names[t] = true
				}
			} else if fn == "lag_at" {
				// lag_at reads every topic: it exists once all is built.
				return false
			} else if !safeTableFunctions[fn] {
				return false
			}
		case "SHOW_REF":
			return false
		}
		for _, c := range v {
			if !collectNames(c, names) {
				return false
			}
		}
	}
	return true
}

// ensureFor builds what the query needs on a lazy engine; a no-op on an
// eager one.
func (e *Engine) ensureFor(ctx context.Context, conn *sql.Conn, doc *sqlDoc) error {
	if !e.opts.Lazy {
		return nil
	}
	return e.ensure(ctx, conn, wantOf(doc))
}

// isCatalogError reports whether err is DuckDB's "does not exist" kind of
// error: on a lazy engine, the sign that a query needed something its
// syntax tree did not name.
func isCatalogError(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeCatalog
}

func (e *Engine) isAllBuilt() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.allBuilt
}
