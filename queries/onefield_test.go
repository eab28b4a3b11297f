package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// oddFixture writes a topic of JSON objects whose fields are awkward for
// a one-field extraction: a field of every JSON kind, numbers in strings,
// duplicate keys, names with dots, slashes, quotes and tildes, nested
// objects and lists, and a few values that are not JSON objects at all.
func oddFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	odd := []string{
		`{"s":"plain","n":1,"d":1.5,"b":true,"o":{"k":1,"m":"x"},"l":[1,2]}`,
		`{"s":12,"n":"12","d":"1e2","b":"true","o":{"k":"2"},"l":[]}`,
		`{"s":1.50,"n":1.5,"d":" 7 ","b":1,"o":null,"l":null}`,
		`{"s":{"a":[1, 2]},"n":"1_000","d":"inf","b":"yes","o":{"k":1e3}}`,
		`{"s":null,"n":null,"d":null,"b":null,"o":[1]}`,
		`{"s":"first","s":"second","n":2,"n":3}`,
		`{"Upper":"upper","N2":5}`, // (names differing only in case: TestNamesDifferingInCase)
		`{"s":"\u00e9\n\"","n":123456789012345678901234567890,"d":-0}`,
		`{"a.b":"dot","x/y":"slash","q\"uote":"quote","ti~lde":"tilde","":"empty"}`,
		` {"s" : "spaced" , "n" : -7 } `,
		`{}`,
		`[1,2]`, `"just a string"`, `not json`, `{"s": "truncated`,
	}
	var rows []catalog.Row
	for i := 0; i < 200; i++ {
		v := fmt.Sprintf(`{"s":"s%d","n":%d,"d":%d.25,"b":%t,"o":{"k":%d,"m":"m%d"},"l":[%d]}`, i, i, i, i%2 == 0, i, i, i)
		if i < len(odd) {
			v = odd[i]
		}
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
	}
	rows = append(rows, catalog.Row{Offset: 200, Timestamp: 1700000000000}) // a null value
	writePartition(t, d, "odd", 0, "s1", 201, rows)
	return dir
}

// TestOneFieldSameAnswers: for every field of the inferred structure, a
// query naming only that field (the TEMP view with json_extract) answers
// exactly what the full from_json structure answers, value by value.
func TestOneFieldSameAnswers(t *testing.T) {
	ctx := context.Background()
	for _, locked := range []bool{false, true} {
		e, err := Open(ctx, oddFixture(t), Options{Locked: locked})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		top, _ := e.Topic("odd")
		if !top.JSON {
			t.Fatal("odd is not read as JSON")
		}
		var structure map[string]json.RawMessage
		if err := json.Unmarshal([]byte(top.Structure), &structure); err != nil {
			t.Fatal(err)
		}
		if len(structure) < 10 {
			t.Fatalf("structure %s lacks fields", top.Structure)
		}
		for f := range structure {
			if f == "" {
				continue // DuckDB cannot name an empty field
			}
			for _, view := range []string{"odd", "odd$all"} {
				fast := fmt.Sprintf(`SELECT list(value.%s ORDER BY "offset")::VARCHAR FROM %s`, quoteIdent(f), quoteIdent(view))
				full := fmt.Sprintf(`SELECT list(v.%s ORDER BY o)::VARCHAR FROM (SELECT value AS v, "offset" AS o FROM %s)`, quoteIdent(f), quoteIdent(view))
				conn, err := e.db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				n := e.narrow(ctx, conn, fast, nil)
				conn.Close()
				// Fields that differ only in case ("s" and "S") are both
				// kept, and then the narrowed view is read instead.
				collides := false
				for g := range structure {
					collides = collides || g != f && strings.EqualFold(g, f)
				}
				if !collides && (n == nil || len(n.views) != 1) {
					t.Fatalf("%s: no one-field view (%+v)", fast, n)
				}
				a, b := queryString(t, e, fast), queryString(t, e, full)
				if a != b {
					t.Errorf("locked=%v field %q of %s:\n one field: %s\n full:      %s", locked, f, view, a, b)
				}
			}
		}
	}
}

func queryString(t *testing.T, e *Engine, q string) string {
	t.Helper()
	rows, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var s string
	for rows.Next() {
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOneFieldViewIsMadeAndDropped: the TEMP view exists on the query's
// connection while it runs (also on a locked engine) and is gone after.
func TestOneFieldViewIsMadeAndDropped(t *testing.T) {
	ctx := context.Background()
	for _, locked := range []bool{false, true} {
		e, err := Open(ctx, fixture(t), Options{Locked: locked})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		conn, err := e.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		temps := func() string {
			var s string
			if err := conn.QueryRowContext(ctx, `SELECT coalesce(string_agg(view_name, ','), '') FROM duckdb_views() WHERE temporary AND NOT internal`).Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		n := e.narrow(ctx, conn, `SELECT count(DISTINCT value.event_id) FROM "shop.events-v2"`, nil)
		if n == nil {
			t.Fatal("not narrowed")
		}
		reset, err := setNarrow(ctx, conn, n)
		if err != nil {
			t.Fatal(err)
		}
		if got := temps(); got != "shop.events-v2" {
			t.Fatalf("locked=%v: temporary views %q while the query runs", locked, got)
		}
		var typ string
		if err := conn.QueryRowContext(ctx, `SELECT any_value(typeof(value)) FROM "shop.events-v2"`).Scan(&typ); err != nil {
			t.Fatal(err)
		}
		if typ != "STRUCT(event_id VARCHAR)" {
			t.Fatalf("one-field value is %s", typ)
		}
		reset()
		if got := temps(); got != "" {
			t.Fatalf("locked=%v: temporary views %q after the query", locked, got)
		}
	}
}

// TestOneFieldKeepsASessionsTempView: a TEMP view the session made under a
// topic's name is neither replaced nor dropped by a one-field query.
func TestOneFieldKeepsASessionsTempView(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.DB().SetMaxOpenConns(1) // one session
	if _, err := e.DB().ExecContext(ctx, `CREATE TEMP VIEW "shop.events-v2" AS SELECT {'event_id': 'mine'} AS value`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if got := queryString(t, e, `SELECT string_agg(value.event_id, ',') FROM "shop.events-v2"`); got != "mine" {
			t.Fatalf("run %d: the session's view answered %q", i, got)
		}
	}
}
