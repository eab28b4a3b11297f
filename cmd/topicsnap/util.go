package main

import (
	"math"
	"strconv"
	"strings"
)

// parseBytes reads a size such as 448MiB, 1GiB, 512MB or a plain number of bytes.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
				return 0, strconv.ErrSyntax
			}
			// A float past int64 converts to a negative number (and a
			// fraction of a byte to 0): 99999999999GiB became a negative
			// size, which --target-size took as "merge nothing".
			b := f * float64(u.mult)
			if b >= math.MaxInt64 {
				return 0, strconv.ErrRange
			}
			if b < 1 {
				return 0, strconv.ErrSyntax
			}
			return int64(b), nil
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, strconv.ErrSyntax
	}
	return n, nil
}
