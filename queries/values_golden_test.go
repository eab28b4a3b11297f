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
