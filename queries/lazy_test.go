package queries

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLazyBuildsWhatAQueryNames: a lazy engine builds a topic's view or a
// catalog table when a query names it, everything (the macros too) when
// the query's tables cannot be read from its syntax tree, and answers as
// an eager engine does. (TestTopicStateAtATime: the table macros when a
// query calls one.)
func TestLazyBuildsWhatAQueryNames(t *testing.T) {
	ctx := context.Background()
	dir := fixture(t)
	eager, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eager.Close()
	const T = `"shop.events-v2"`
	for _, tc := range []struct {
		q     string
		built string // views and tables a fresh lazy engine has after q
	}{
		{`SELECT 1`, ``},
		{`SELECT count(*) FROM ` + T, `shop.events-v2`},
		{`SELECT count(*) FROM "SHOP.EVENTS-V2$ALL"`, `shop.events-v2$all`},
		{`SELECT count(*) FROM main.` + T + ` JOIN files USING ("partition")`, `files,shop.events-v2`},
		{`SELECT count(DISTINCT value.event_id) FROM ` + T, `shop.events-v2`},
		{`WITH files AS (SELECT 1 AS n) SELECT n FROM files`, `files`}, // a CTE by a catalog name: built, harmless
		{`SELECT group_id, client_id FROM group_members`, `group_members`},
		{`SELECT * FROM query('SELECT count(*) FROM "shop.events-v2"')`, `all`},
		{`SELECT count(*) FROM duckdb_tables()`, `all`},
		{`SELECT count(*) FROM information_schema.tables`, `all`},
		{`SHOW TABLES`, `all`},
		{`DESCRIBE ` + T, `all`},
		{`SUMMARIZE files`, `all`},
		{`CREATE TEMP TABLE x AS SELECT count(*) AS n FROM ` + T, `all`}, // not a SELECT
	} {
		lazy, err := Open(ctx, dir, Options{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := builtObjects(t, lazy); got != "" {
			t.Fatalf("a lazy engine built %q at open", got)
		}
		rows, err := lazy.Query(ctx, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := allRows(t, rows)
		want := tc.built
		if want == "all" {
			want = builtObjects(t, eager)
		}
		if b := builtObjects(t, lazy); b != want {
			t.Errorf("%s: built %q, want %q", tc.q, b, want)
		}
		if !strings.HasPrefix(tc.q, "CREATE") {
			rows, err := eager.Query(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if e := allRows(t, rows); got != e {
				t.Errorf("%s: lazy answered %q, eager %q", tc.q, got, e)
			}
		}
		lazy.Close()
	}
}

// TestLazyCatalogErrorBuildsAll: a query that reaches a view its syntax tree
// does not name (here through a session's TEMP view over a topic whose
// view a refresh dropped) fails with a catalog error on the first try; the
// engine then builds everything and runs it again.
func TestLazyCatalogErrorBuildsAll(t *testing.T) {
	ctx := context.Background()
	dir := fixture(t)
	e, err := Open(ctx, dir, Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.DB().SetMaxOpenConns(1) // one session
	if rows, err := e.Query(ctx, `SELECT count(*) FROM "shop.events-v2"`); err != nil {
		t.Fatal(err)
	} else {
		allRows(t, rows)
	}
	if _, err := e.DB().ExecContext(ctx, `CREATE TEMP VIEW n_events AS SELECT count(*) AS n FROM "shop.events-v2"`); err != nil {
		t.Fatal(err)
	}
	// A new catalog version: the refresh drops the views it built.
	m := filepath.Join(dir, "topic=shop.events-v2", "partition=0", "manifest.json")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(m, later, later); err != nil {
		t.Fatal(err)
	}
	if changed, err := e.Refresh(ctx); err != nil || !changed {
		t.Fatalf("refresh: %v %v", changed, err)
	}
	rows, err := e.Query(ctx, `SELECT n FROM n_events`)
	if err != nil {
		t.Fatal(err)
	}
	if got := allRows(t, rows); got != "10" {
		t.Fatalf("n_events = %q", got)
	}
	if !e.isAllBuilt() {
		t.Fatal("not everything was built")
	}
}

// builtObjects lists the views, tables and macros in DuckDB's main schema.
func builtObjects(t *testing.T, e *Engine) string {
	t.Helper()
	var s string
	if err := e.DB().QueryRow(`SELECT coalesce(string_agg(lower(n), ',' ORDER BY lower(n)), '') FROM (
		SELECT view_name AS n FROM duckdb_views() WHERE NOT internal AND NOT temporary
		UNION ALL SELECT table_name FROM duckdb_tables() WHERE NOT temporary
		UNION SELECT function_name FROM duckdb_functions() WHERE NOT internal AND function_type IN ('macro', 'table_macro'))`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// allRows reads every row of a one-or-more-column result as text.
func allRows(t *testing.T, rows *Rows) string {
	t.Helper()
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.TrimSpace(fmt.Sprintln(vals...)))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ";")
}

// TestFailedRefreshKeepsTheLastCatalog: when a refresh cannot build the new
// catalog (here made to fail: buildFault), DuckDB rolls back
// to the last views, and the engine's topics and version stay with them.
func TestFailedRefreshKeepsTheLastCatalog(t *testing.T) {
	ctx := context.Background()
	dir := fixture(t)
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	version := e.Version()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	writePartition(t, d, "broken", 0, "s2", 1, []catalog.Row{{Offset: 0, Timestamp: 1700000000000, Value: []byte(`{"a":1}`)}})
	// The views cannot be made (every data file a hand could make that
	// DuckDB cannot read costs its partition before DuckDB sees it:
	// catalog's checkFiles, queries' checkContents; the failure is made).
	buildFault = errors.New("the views cannot be made")
	defer func() { buildFault = nil }()
	if _, err := e.Refresh(ctx); err == nil {
		t.Fatal("refresh succeeded where the views cannot be made")
	}
	if e.Version() != version {
		t.Fatalf("version %s after a failed refresh, want %s", e.Version(), version)
	}
	var names []string
	for _, tp := range e.Topics() {
		names = append(names, tp.Name)
	}
	if strings.Join(names, ",") != "shop.events-v2" {
		t.Fatalf("topics %v after a failed refresh", names)
	}
	if tp, _ := e.Topic("shop.events-v2"); !tp.JSON {
		t.Fatal("shop.events-v2 lost its JSON type")
	}
	if got := query1(t, e, `SELECT count(*)::VARCHAR FROM "shop.events-v2"`); got != "10" {
		t.Fatalf("count after a failed refresh: %s", got)
	}
}

// TestCopyParquet: a Parquet export reads its SELECT as Query does (only the
// topic built on a lazy engine, the one-field value) and holds the same
// answer; a locked engine refuses it.
func TestCopyParquet(t *testing.T) {
	ctx := context.Background()
	dir := fixture(t)
	e, err := Open(ctx, dir, Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const q = `SELECT "partition", "offset", value.event_id AS id FROM "shop.events-v2"`
	out := filepath.Join(t.TempDir(), "out.parquet")
	if err := e.CopyParquet(ctx, q+";", out); err != nil {
		t.Fatal(err)
	}
	if got := builtObjects(t, e); got != "shop.events-v2" {
		t.Fatalf("built %q", got)
	}
	back := `SELECT string_agg(concat_ws(':', "partition", "offset", coalesce(id, '-')), ',' ORDER BY "partition", "offset") FROM `
	want := queryString(t, e, back+"("+q+")")
	if got := queryString(t, e, back+quoteString(out)); got != want || !strings.Contains(got, "1:3:e1-3") {
		t.Fatalf("parquet holds %q, the query answers %q", got, want)
	}
	// A statement that ends in a comment (sql keeps them) exports the same.
	commented := filepath.Join(t.TempDir(), "commented.parquet")
	if err := e.CopyParquet(ctx, q+" -- the ids", commented); err != nil {
		t.Fatal(err)
	}
	if got := queryString(t, e, back+quoteString(commented)); got != want {
		t.Fatalf("with a comment, parquet holds %q, want %q", got, want)
	}
	locked, err := Open(ctx, dir, Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer locked.Close()
	if err := locked.CopyParquet(ctx, q, filepath.Join(dir, "x.parquet")); !errors.Is(err, ErrRefused) {
		t.Fatalf("locked engine: %v", err)
	}
}
