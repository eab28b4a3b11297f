package spark

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"

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

// TestDecimalKeepsEveryDigit: a DECIMAL from Spark (Arrow decimal128) is
// DuckDB's driver's duckdb.Decimal, every digit: a decimal(38,10) of 30
// significant digits read 12345678901234567000 (a float64) under --engine
// spark, where DuckDB said 12345678901234567890.1234567891 (and shows a zero as
// 0, as DuckDB's own String does).
func TestDecimalKeepsEveryDigit(t *testing.T) {
	dt := &arrow.Decimal128Type{Precision: 38, Scale: 10}
	b := array.NewDecimal128Builder(memory.DefaultAllocator, dt)
	defer b.Release()
	for _, s := range []string{"12345678901234567890.1234567891", "-0.0000000001", "99999999999999999999999999.9999999999", "0"} {
		n, err := decimal128.FromString(s, dt.Precision, dt.Scale)
		if err != nil {
			t.Fatal(err)
		}
		b.Append(n)
	}
	b.AppendNull()
	a := b.NewArray()
	defer a.Release()
	for i, want := range []string{"12345678901234567890.1234567891", "-0.0000000001", "99999999999999999999999999.9999999999", "0", "NULL"} {
		v, err := value(a, i)
		if err != nil {
			t.Fatal(err)
		}
		if got := display.Text(v); got != want {
			t.Errorf("value %d = %q, want %q", i, got, want)
		}
		if want == "NULL" {
			continue
		}
		if _, ok := v.(duckdb.Decimal); !ok {
			t.Errorf("value %d is a %T, want DuckDB's duckdb.Decimal", i, v)
		}
	}
}
