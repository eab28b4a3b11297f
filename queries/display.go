package queries

import "github.com/topicsnap/topicsnap/internal/display"

// Display is display.Column and FormatNumber display.Number, named here for
// the checks' own files, which write their messages with them.
func Display(column string, v any) string { return display.Column(column, v) }

// FormatNumber writes a count with thousands separators (display.Number).
func FormatNumber(f float64) string { return display.Number(f) }
