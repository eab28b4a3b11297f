package queries

import (
	"context"
	"strings"
	"testing"
)

func TestNarrow(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const T = `"shop.events-v2"`
	order := `"order":{"total":"UBIGINT"}`
	for _, tc := range []struct{ q, want string }{
		{`SELECT value.event_id FROM ` + T, `{"event_id":"VARCHAR"}`},
		{`SELECT count(DISTINCT value.event_id) FROM ` + T + ` WHERE value.order.total > 10`, `{"event_id":"VARCHAR",` + order + `}`},
		{`SELECT v.value.order.total FROM ` + T + ` v`, `{` + order + `}`},
		{`SELECT value.EVENT_NAME FROM "shop.events-v2$all"`, `{"event_name":"VARCHAR"}`},
		{`WITH d AS (SELECT value.event_id AS id FROM ` + T + `) SELECT d.* FROM d`, `{"event_id":"VARCHAR"}`},
		{`SELECT x.id FROM (SELECT value.event_id AS id FROM ` + T + `) x`, `{"event_id":"VARCHAR"}`},
		// Whatever narrowing cannot prove keeps the whole structure.
		{`SELECT value FROM ` + T, ``},
		{`SELECT value['event_id'] FROM ` + T, ``},
		{`SELECT struct_extract(value, 'event_id') FROM ` + T, ``},
		{`SELECT * FROM ` + T, ``},
		{`SELECT COLUMNS(*) FROM ` + T, ``},
		{`SELECT s FROM ` + T + ` s`, ``},
		{`SELECT s.value.event_id, s.* FROM ` + T + ` s`, ``},
		{`SELECT value.event_id FROM (SELECT * FROM ` + T + `)`, ``},
		{`SELECT x.value FROM (SELECT value AS value FROM ` + T + `) x`, ``},
		{`SELECT value.event_id FROM query_table('shop.events-v2')`, ``},
		{`SELECT value.no_such_field FROM ` + T, ``},
		{`SELECT value.event_id, value.event_name, value.order FROM ` + T, ``}, // every field
		{`SELECT count(*) FROM ` + T, ``},                                      // value unused
		{`SELECT 1; SELECT value.event_id FROM ` + T, ``},
		{`COPY (SELECT value.event_id FROM ` + T + `) TO '/dev/null'`, ``},
		{`SELECT value.event_id FROM topics`, ``}, // not a topic
	} {
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if n := e.narrow(ctx, conn, tc.q, nil); n != nil {
			got = n.vars[valueVariable("shop.events-v2")]
		}
		conn.Close()
		if got != tc.want {
			t.Errorf("%s\n narrowed to %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestNarrowAnswersAndReset: a narrowed query answers as the full structure
// would, and the connection it ran on serves the full structure again after,
// whether the query succeeded or failed.
func TestNarrowAnswersAndReset(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.DB().SetMaxOpenConns(1) // every query on the same connection
	one := func(q string) (string, error) {
		rows, err := e.Query(ctx, q)
		if err != nil {
			return "", err
		}
		defer rows.Close()
		var s string
		for rows.Next() {
			if err := rows.Scan(&s); err != nil {
				return "", err
			}
		}
		return s, rows.Err()
	}
	const T = `"shop.events-v2"`
	narrowed, err := one(`SELECT string_agg(value.event_id || ':' || coalesce(value.order.total::VARCHAR, '-'), ',' ORDER BY "partition", "offset") FROM ` + T)
	if err != nil {
		t.Fatal(err)
	}
	full, err := one(`SELECT string_agg(v.event_id || ':' || coalesce(v.order.total::VARCHAR, '-'), ',' ORDER BY p, o) FROM (SELECT value AS v, "partition" AS p, "offset" AS o FROM ` + T + `)`)
	if err != nil {
		t.Fatal(err)
	}
	if narrowed != full || !strings.Contains(full, "e0-4:40") {
		t.Fatalf("narrowed answer %q, full %q", narrowed, full)
	}
	wantType := `STRUCT(event_id VARCHAR, event_name VARCHAR, "order" STRUCT(total UBIGINT))`
	for _, q := range []string{
		`SELECT value.event_id FROM ` + T,          // succeeds
		`SELECT value.event_id::INTEGER FROM ` + T, // fails while running
	} {
		one(q)
		typ, err := one(`SELECT any_value(typeof(value)) FROM ` + T)
		if err != nil {
			t.Fatal(err)
		}
		if typ != wantType {
			t.Fatalf("after %s: value is %s, want %s", q, typ, wantType)
		}
	}
}
