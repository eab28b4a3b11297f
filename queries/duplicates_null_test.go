package queries

import (
	"context"
	"fmt"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestDuplicatesCountsNullIDsAndExamples: records whose id is NULL (the
// field is missing) are one id like any other, and the examples are the
// first two copies of each duplicated id, ordered by the first copy.
func TestDuplicatesCountsNullIDsAndExamples(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	// partition 0: a, b, a, (none), c, (none), (none), b — a twice, b twice, NULL three times.
	values := []string{`{"id":"a"}`, `{"id":"b"}`, `{"id":"a"}`, `{"x":1}`, `{"id":"c"}`, `{"x":2}`, `{"x":3}`, `{"id":"b"}`}
	var rows []catalog.Row
	for i, v := range values {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: 1700000000000 + int64(i)*1000, TimestampType: catalog.TimestampCreate, Value: []byte(v)})
	}
	writePartition(t, d, "ev", 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "ev", ID: "value.id", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.Summary.Get("records"), r.Summary.Get("distinct_ids"), r.Summary.Get("duplicate_ids"), r.Summary.Get("extra_copies"))
	if got != "8 4 3 4" {
		t.Fatalf("records, distinct, duplicated, extra = %s, want 8 4 3 4 (%s)", got, r.Message)
	}
	var ex []string
	for _, row := range r.Rows {
		ex = append(ex, fmt.Sprintf("%v:%v@%v,%v+%vs", row.Get("id"), row.Get("copies"), row.Get("first_offset"), row.Get("second_offset"), row.Get("seconds_between")))
	}
	if want := "[a:2@0,2+2s b:2@1,7+6s <nil>:3@3,5+2s]"; fmt.Sprint(ex) != want {
		t.Fatalf("examples %v, want %s", ex, want)
	}
}
