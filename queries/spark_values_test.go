package queries

import (
	"context"
	"fmt"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSparkValueErrorIsDuckDBs: on a JSON topic, Spark's view says of each
// value what DuckDB's says (value_error, value.id, value.n):
// an object after whitespace is an object, an array, a string, a number,
// true and null are JSON but not objects, text that does not parse and
// bytes that are not UTF-8 are neither, duplicate keys parse, a tombstone
// has no error.
func TestSparkValueErrorIsDuckDBs(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var vals [][]byte
	for i := 0; i < 20; i++ { // enough objects for the topic to read as JSON
		vals = append(vals, fmt.Appendf(nil, `{"id":"g%d","n":%d}`, i, i))
	}
	dup := int64(len(vals))
	vals = append(vals, []byte(`{"id":"dup","id":"dup2"}`))
	for _, v := range []string{
		` {"id":"space"}`, "\t\n\r{\"id\":\"tabs\"}", `{}`, `{"id":"trailing space"}  `,
		`[{"id":"array"}]`, ` ["x"]`, `"text"`, `42`, `true`, `null`, ` null`,
		`oops`, `{"id":`, ``, `   `, "\f{}", "\xff\xfe{}", "\xef\xbb\xbf{}",
	} {
		vals = append(vals, []byte(v))
	}
	var rows []catalog.Row
	for i, v := range vals {
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: v})
	}
	rows = append(rows, catalog.Row{Offset: int64(len(vals)), Timestamp: 1700000000000}) // a tombstone
	writePartition(t, d, "mixed", 0, "s1", int64(len(rows)), rows)
	duck, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	if tp, _ := duck.Topic("mixed"); !tp.JSON {
		t.Fatalf("topic mixed is not read as JSON: %+v", tp)
	}
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	// A duplicated key's value is each engine's own pick: only that it parsed.
	// A value that is not an object is NULL on both (nv: value IS NULL;
	// DuckDB's was a STRUCT of NULLs of [1,2]).
	q := fmt.Sprintf(`SELECT "offset", value_error, CASE WHEN "offset" <> %d THEN value.id END AS id, value.n AS n, value IS NULL AS nv FROM mixed ORDER BY "offset"`, dup)
	dr, err := duck.DB().QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer dr.Close()
	var want []string
	for dr.Next() {
		var off int64
		var verr, id *string
		var n *int64
		var null bool
		if err := dr.Scan(&off, &verr, &id, &n, &null); err != nil {
			t.Fatal(err)
		}
		nv := "-"
		if n != nil {
			nv = fmt.Sprint(*n)
		}
		want = append(want, fmt.Sprint(off, " ", str(verr), " ", str(id), " ", nv, " ", null))
	}
	if err := dr.Err(); err != nil {
		t.Fatal(err)
	}
	_, got, err := sp.QueryRemote(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows on Spark, %d on DuckDB", len(got), len(want))
	}
	objects := 0
	for i, r := range got {
		verr, _ := r[1].(string)
		id, _ := r[2].(string)
		g := fmt.Sprint(r[0], " ", orDash(r[1] == nil, verr), " ", orDash(r[2] == nil, id), " ", orDash(r[3] == nil, fmt.Sprint(r[3])), " ", r[4])
		if g != want[i] {
			t.Errorf("value %q: Spark %q, DuckDB %q (offset, value_error, value.id, value.n, value IS NULL)", rows[i].Value, g, want[i])
		}
		if r[1] == nil && i < len(vals) {
			objects++
		}
	}
	// The cases are what they say: 20 objects and the dup, 4 more objects
	// ({} and three around whitespace), the rest not objects or not JSON.
	if objects != 25 {
		t.Errorf("%d values read as objects on Spark, want 25", objects)
	}
}

func str(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func orDash(null bool, s string) string {
	if null {
		return "-"
	}
	return s
}
