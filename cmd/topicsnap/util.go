package main

import (
	"strconv"
	"time"
)

// parseDuration reads "90s", "5m", "1h" or a bare number of seconds.
func parseDuration(s string) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 {
		return f, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, strconv.ErrSyntax
	}
	return d.Seconds(), nil
}
