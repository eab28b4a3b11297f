package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestDuplicatesCountsNullIDsApartAndExamples: records whose id is NULL
// (the field is missing) have no id: counted apart, never copies of each
// other (three poison records are not "an id seen three times"); the
// examples are the first two copies of each duplicated id, ordered by the
// first copy.
func TestDuplicatesCountsNullIDsApartAndExamples(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	// partition 0: a, b, a, (none), c, (none), (none), b — a twice, b twice, three without an id.
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
	got := fmt.Sprint(r.Summary.Get("records"), r.Summary.Get("records_without_id"), r.Summary.Get("distinct_ids"), r.Summary.Get("duplicate_ids"), r.Summary.Get("extra_copies"), r.Summary.Get("duplicate_share"))
	if got != "8 3 3 2 2 0.4" {
		t.Fatalf("records, without id, distinct, duplicated, extra, share = %s, want 8 3 3 2 2 0.4 (%s)", got, r.Message)
	}
	if want := "2 ids occur more than once: 2 extra copies, 40.0% of 5 records with an id; 3 records have no id (value.id is NULL), not judged"; r.Status != StatusWarn || r.Message != want {
		t.Fatalf("%s %q, want warn %q", r.Status, r.Message, want)
	}
	var ex []string
	for _, row := range r.Rows {
		ex = append(ex, fmt.Sprintf("%v:%v@%v,%v+%vs", row.Get("id"), row.Get("copies"), row.Get("first_offset"), row.Get("second_offset"), row.Get("seconds_between")))
	}
	if want := "[a:2@0,2+2s b:2@1,7+6s]"; fmt.Sprint(ex) != want {
		t.Fatalf("examples %v, want %s", ex, want)
	}
	// The breakdown counts the same way: the records without an id are
	// no extra copies.
	r, err = e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "ev", ID: "value.id", By: "'all'", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if row.Get("kind") == "by" {
			if got := fmt.Sprint(row.Get("records"), row.Get("without_id"), row.Get("distinct_ids"), row.Get("extra_copies")); got != "8 3 3 2" {
				t.Fatalf("by: records, without id, distinct, extra = %s, want 8 3 3 2", got)
			}
		}
	}
}

// TestDuplicatesWithNoIDAtAllSaysSo: an --id that is NULL on every record
// (a field the values do not carry) judges nothing and says so; never ok.
func TestDuplicatesWithNoIDAtAllSaysSo(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for i, v := range []string{`{"id":"a"}`, `{"id":"a"}`, `{"id":"b"}`} {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: 1700000000000 + int64(i)*1000, TimestampType: catalog.TimestampCreate, Value: []byte(v)})
	}
	writePartition(t, d, "ev", 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "ev", ID: "value.id::VARCHAR || NULL", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "no record has an id") || fmt.Sprint(r.Summary.Get("records_without_id")) != "3" {
		t.Fatalf("%s %q %v, want warn: no record has an id", r.Status, r.Message, r.Summary)
	}
}
