package queries

import (
	"context"
	"testing"

	"github.com/topicsnap/topicsnap/internal/display"
)

// TestCheckRowsTyped: a check's rows (what check, its pages and its JSON
// show) read a value as every other surface does: a UUID id was 16 bytes,
// a TIME a time on 0001-01-01.
func TestCheckRowsTyped(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cases := []struct{ expr, want string }{
		{"UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{"[UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']", `["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]`},
		{"TIME '12:00'", "12:00:00"},
		{"'infinity'::TIMESTAMP", "infinity"},
	}
	for _, c := range cases {
		rows, err := e.queryRows(ctx, "SELECT "+c.expr+" AS id")
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", c.expr, len(rows))
		}
		if got := display.Text(rows[0].Get("id")); got != c.want {
			t.Errorf("%s: %s, want %s", c.expr, got, c.want)
		}
	}
}
