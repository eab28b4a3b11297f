package queries

import (
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

// Display is display.Column, FormatNumber display.Number and FormatTime
// display.Time, named here for the checks' own files, which write their
// messages with them.
func Display(column string, v any) string { return display.Column(column, v) }

// FormatNumber writes a count with thousands separators (display.Number).
func FormatNumber(f float64) string { return display.Number(f) }

// FormatTime writes a time as every surface shows one (display.Time: UTC,
// to the microsecond, trailing zeros trimmed), so a message names a moment
// as its report's table does.
func FormatTime(t time.Time) string { return display.Time(t) }
