package queries

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestOrderComparesNumbersAsNumbers: a --time that is text (a JSON field
// of mixed types, or numbers written as strings) was compared as text:
// value.id 9 then 10 of one key was "1 record is earlier than the record
// before them of the same key" ("10" < "9"). Numbers as text now compare
// as numbers, times as text with their offsets as times, other text as
// text.
func TestOrderComparesNumbersAsNumbers(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []string
		ooo    int64
	}{
		{"numbers", []string{`{"id":9}`, `{"id":10}`}, 0},
		{"numbers beside a string", []string{`{"id":9}`, `{"id":10}`, `{"id":"x"}`}, 0},
		{"numbers as strings", []string{`{"id":"9"}`, `{"id":"10"}`, `{"id":"9.5"}`}, 1},
		{"decimals as strings", []string{`{"id":"1e3"}`, `{"id":"999.5"}`}, 1},
		{"words", []string{`{"id":"b"}`, `{"id":"a"}`}, 1},
		{"times as strings", []string{`{"id":"2026-07-16T10:00:00Z"}`, `{"id":"2026-07-16T09:00:00Z"}`}, 1},
		{"times with offsets", []string{`{"id":"2026-07-16T10:00:00+02:00"}`, `{"id":"2026-07-16T09:30:00Z"}`}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now().UnixMilli()
			var rows []catalog.Row
			for i, v := range c.values {
				rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: now + int64(i), TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte(v)})
			}
			writePartition(t, d, "t", 0, "s1", int64(len(rows)), rows)
			e, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(t.Context(), "order", CheckOptions{Topic: "t", Time: "value.id"})
			if err != nil {
				t.Fatal(err)
			}
			if got := asInt(r.Summary.Get("out_of_order_records")); got != c.ooo || (c.ooo == 0) != (r.Status == StatusOK) {
				t.Fatalf("%s: %d out of order, want %d: %s %s %v", strings.Join(c.values, " "), got, c.ooo, r.Status, r.Message, r.Rows)
			}
			if c.ooo > 0 && fmt.Sprint(r.Rows[0].Get("time")) == "" {
				t.Fatalf("rows %v", r.Rows)
			}
		})
	}
}
