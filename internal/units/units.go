// Package units writes quantities the way topicsnap shows them to a user:
// the one place that spells a byte count, for the summaries (Bytes: an
// amount measured, rounded) and for bounds and caps (Size: exact, as they
// are written), and a time (Time). It imports nothing but fmt and time,
// so the packages that must build without cgo (catalog, dump, restore,
// safefile) use it as the command line and the server do; values read
// from DuckDB are internal/display's, which writes times with Time.
package units

import (
	"fmt"
	"time"
)

// TimeLayout is how a time is written as text: UTC, to the microsecond,
// trailing zeros trimmed (2026-09-14 08:47:00.123Z).
const TimeLayout = "2006-01-02 15:04:05.999999Z07:00"

// Time writes a time in UTC to the microsecond, trailing zeros trimmed.
func Time(t time.Time) string { return t.UTC().Format(TimeLayout) }

// Bytes is n bytes in B, KiB, MiB or GiB, rounded, as the summaries of
// dump, restore, compact and the bucket's copy print an amount moved.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Size is n bytes exactly, as a bound or a cap is written: in the largest
// of GiB, MiB and KiB that divides it (2 GiB, 4 MiB, 64 KiB), else in
// bytes (4194305 B): a message saying what passed a bound never rounds
// it onto the bound.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
