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
