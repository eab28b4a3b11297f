// Package display turns a value read from DuckDB (or from a remote engine,
// or a check's report) into text: the one place that decides how a NULL, a
// time, a float, a BLOB, a nested value or a hostile string is shown, used
// by the command line's tables and CSV/JSON, the notebooks, the server's
// pages and the checks' messages, so the same value reads the same
// everywhere.
//
// Typed, applied to every value scanned, first gives back what duckdb-go
// lost, at any depth of a LIST, STRUCT, MAP or UNION: a UUID's text, a
// TIME's text (12:00:00) and a TIMETZ's with its offset (12:00:00+01),
// infinity and -infinity for a DATE or TIMESTAMP's sentinels.
//
// Three families, by reader:
//
//   - Text (and Field for CSV) writes any value as the text formats show
//     it: NULL as NULL, times in UTC to the microsecond with trailing zeros
//     trimmed (2026-07-16 11:21:00.25Z; a TIMESTAMP_NS to its nanosecond), floats as the shortest text that
//     reads back to the same float (strconv 'g', -1), BLOBs as \xHH escapes,
//     nested values as JSON. A string is escaped where a terminal or a page
//     would act on it: control characters (ESC of an ANSI sequence, NUL,
//     DEL, the C1 range) and bytes that are not UTF-8 become \xHH (a
//     newline \n, a tab \t, a carriage return \r); everything else,
//     including a backslash, is the string's own.
//   - JSON returns what encoding/json writes faithfully: BLOBs as base64,
//     times as RFC 3339 with nanoseconds, huge integers and decimals as
//     JSON numbers, NaN and infinities as strings.
//   - Column writes a report's value for people by what its column holds:
//     seconds as a duration, shares as percentages, counts with thousands
//     separators, addresses (offsets, partitions, ids) as plain digits.
//     Number, Seconds and Share are its parts.
package display
