// Package jsonbound decides, in one pass over a value's bytes and without
// parsing it, whether a JSON value is small and shallow enough to be
// handed to a parser that recurses or grows without bound.
//
// Any producer decides what a record's value holds, and DuckDB's JSON
// functions do not stop at any depth: json_structure (and so the
// structure inference of the topic views) exhausts its stack on an object
// nested 20,000 levels deep, which kills the process. topicsnap therefore
// reads a value's fields only when the value is within three bounds:
//
//   - MaxBytes: at most 16 MiB of text;
//   - MaxDepth: objects and arrays nested at most 1,000 levels (the bound
//     of Jackson, Spark's parser, so both engines read the same values);
//   - MaxMembers: at most 10,000 object members in the whole value.
//
// A value past a bound keeps its exact bytes (value_raw); its fields are
// NULL and value_error says which bound it passed (Check's reason,
// which begins with Prefix). The
// scan is linear, allocates nothing and stops at the first bound passed.
// It does not validate: text that is not JSON is within bounds here and
// judged not JSON by the parser.
package jsonbound

import "fmt"

// The bounds.
const (
	MaxBytes   = 16 << 20
	MaxDepth   = 1000
	MaxMembers = 10_000
)

// MinBytesPastBound is the shortest value that can pass MaxDepth or
// MaxMembers as valid JSON: MaxDepth+1 levels need that many openers and
// as many closers ("[[...]]"), and MaxMembers+1 members need more. A value
// shorter than this need not be scanned.
const MinBytesPastBound = 2 * (MaxDepth + 1)

// Check returns "" when b is within the bounds, else why not, as
// value_error says it.
func Check(b []byte) string {
	if len(b) > MaxBytes {
		return TooLarge()
	}
	depth, members := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return fmt.Sprintf(Prefix+"nested deeper than %d levels"+suffix, MaxDepth)
			}
		case '}', ']':
			depth--
		case ':':
			members++
			if members > MaxMembers {
				return fmt.Sprintf(Prefix+"more than %d object members"+suffix, MaxMembers)
			}
		}
	}
	return ""
}

// TooLarge is the reason of a value past MaxBytes.
func TooLarge() string {
	return fmt.Sprintf(Prefix+"larger than %d MiB"+suffix, MaxBytes>>20)
}

// Prefix begins every reason, so SQL can count them (LIKE 'bound: %').
const Prefix = "bound: "

const suffix = "; its fields are not read (the bytes are in value_raw)"
