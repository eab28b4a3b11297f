package queries

import (
	"context"
	"fmt"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestGoldenValues: the values check on the fixture (one value "not json"
// among JSON objects), and on a topic whose values are not JSON at all
// (no format to judge: warn, never ok).
func TestGoldenValues(t *testing.T) {
	dir := fixture(t)
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for i := int64(0); i < 4; i++ {
		rows = append(rows, catalog.Row{Offset: i, Timestamp: 1700000000000 + i, Value: []byte(fmt.Sprintf("plain text %d", i))})
	}
	writePartition(t, d, "text", 0, "s1", 4, rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	runGolden(t, e, "fixture-", []goldenCase{
		{"values", "values", CheckOptions{Topic: "shop.events-v2"}},
		{"values-text", "values", CheckOptions{Topic: "text"}},
	})
}

// TestValuesOfBytesNotUTF8: the values check on a JSON topic with a value
// that is not UTF-8 (hostileFolder's, in a file with transactions) names
// it, its start in hex. Before, the check failed (exit 2) with "Conversion
// Error: Failure in decode: could not convert blob to UTF8 string": DuckDB
// computed the example's decode(value_raw) once for the whole CASE, the
// row the try() had ruled out included.
func TestValuesOfBytesNotUTF8(t *testing.T) {
	dir, _ := hostileFolder(t)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "values", CheckOptions{Topic: hostileTopic})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range r.Rows {
		if row.Get("kind") == "unparsed" {
			got = append(got, fmt.Sprintf("%v %v %v", row.Get("offset"), row.Get("problem"), row.Get("value_start")))
		}
	}
	want := "[6 not JSON  7 not JSON not json 8 not a JSON object [1,2] 9 not UTF-8 0xC328]"
	if r.Status != StatusWarn || fmt.Sprint(got) != want {
		t.Errorf("%s: %s; examples %q, want %s", r.Status, r.Message, got, want)
	}
}

// TestValueNotAnObjectIsNull: on a JSON topic, a value is NULL exactly when
// it is a tombstone or its value_error says why it is not an object. Before,
// a value that was JSON but not an object ([1,2], "text", 42) read as a
// STRUCT of NULLs: --id value counted it as an id (13 records with an id on
// hostileFolder's topic, where Spark, whose view gives it NULL, counted 12).
func TestValueNotAnObjectIsNull(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for i := range 10 {
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: fmt.Appendf(nil, `{"id":%d}`, i)})
	}
	for _, v := range []string{`[1,2]`, ` [{"id":1}]`, `"text"`, `42`, `true`, `null`, "\t\n {\"id\":99}", `{}`, `oops`, "\xff{}", "\f{}", ``} {
		rows = append(rows, catalog.Row{Offset: int64(len(rows)), Timestamp: 1700000000000, Value: []byte(v)})
	}
	rows = append(rows, catalog.Row{Offset: int64(len(rows)), Timestamp: 1700000000000})
	writePartition(t, d, "mixed", 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	q := `SELECT "offset", coalesce(value_error, '-'), value IS NULL, value_raw IS NULL FROM mixed ORDER BY "offset"`
	rs, err := e.DB().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	n := 0
	for rs.Next() {
		var off int64
		var verr string
		var null, tomb bool
		if err := rs.Scan(&off, &verr, &null, &tomb); err != nil {
			t.Fatal(err)
		}
		if want := verr != "-" || tomb; null != want {
			t.Errorf("value %q (value_error %s): value IS NULL is %v, want %v", rows[off].Value, verr, null, want)
		}
		n++
	}
	if err := rs.Err(); err != nil || n != len(rows) {
		t.Fatalf("%d rows of %d: %v", n, len(rows), err)
	}
}
