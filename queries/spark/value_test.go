package spark

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/topicsnap/topicsnap/internal/display"
)

// TestDateIsItsDay: a DATE from Spark (Arrow date32) is its day, as DuckDB's
// is on every surface (display.Date): it read as a timestamp at midnight,
// "2026-12-07 00:00:00Z", under --engine spark, where DuckDB said
// "2026-12-07". In a list too.
func TestDateIsItsDay(t *testing.T) {
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	b := array.NewDate32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(arrow.Date32FromTime(day))
	b.AppendNull()
	dates := b.NewArray()
	defer dates.Release()
	lb := array.NewListBuilder(memory.DefaultAllocator, arrow.FixedWidthTypes.Date32)
	defer lb.Release()
	lb.Append(true)
	lb.ValueBuilder().(*array.Date32Builder).Append(arrow.Date32FromTime(day))
	list := lb.NewArray()
	defer list.Release()
	for _, c := range []struct {
		name string
		a    arrow.Array
		i    int
		want string
	}{
		{"date", dates, 0, "2026-12-07"},
		{"null", dates, 1, "NULL"},
		{"date in a list", list, 0, `["2026-12-07"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := value(c.a, c.i)
			if err != nil {
				t.Fatal(err)
			}
			if got := display.Text(v); got != c.want {
				t.Errorf("%s = %q, want %q", c.name, got, c.want)
			}
		})
	}
}
