package queries

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDuckDBFloatText holds duckDBFloatText to DuckDB's own text of a
// DOUBLE and of a FLOAT (x::VARCHAR), on the edges of its two forms and
// on random values of every magnitude.
func TestDuckDBFloatText(t *testing.T) {
	e, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, 0.1, 100, 12345678, 12345678.5, 1e15, 1e16, 1.5e16, 9999999999999998,
		0.0001, 0.00012, 1e-5, 1.5e-5, 1e300, -1e-300, 5e-324, math.MaxFloat64, 123456789012345680, 2.5e-4, 1234.5678,
		math.Inf(1), math.Inf(-1)} // NaN: DuckDB writes nan or -nan by the bits it was given

	rnd := rand.New(rand.NewPCG(3, 9))
	for range 300 {
		vals = append(vals, math.Float64frombits(rnd.Uint64()))
	}
	for _, bits := range []int{64, 32} {
		typ := map[int]string{64: "DOUBLE", 32: "FLOAT"}[bits]
		for _, f := range vals {
			if bits == 32 {
				f = float64(float32(f))
			}
			if math.IsNaN(f) {
				continue
			}
			var want string
			if err := e.DB().QueryRowContext(context.Background(), "SELECT CAST(?::DOUBLE AS "+typ+")::VARCHAR", f).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got := duckDBFloatText(f, bits); got != want {
				t.Errorf("%s %v: %q, DuckDB %q", typ, f, got, want)
			}
		}
	}
}
