package schemas

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonDecoder reads JSON Schema values: the payload is JSON text, taken as
// it is (checked against nothing but JSON's grammar, in UTF-8, with no
// unpaired surrogate escape: what the query engine's JSON reader reads).
type jsonDecoder struct{}

var (
	errNotJSON = errors.New("payload is not JSON")
	// errNotUTF8: JSON text is UTF-8 (RFC 8259). Kept as decoded text, a
	// payload that is not would make the whole data file unreadable: the
	// engine refuses a string column of bytes that are not UTF-8.
	errNotUTF8 = errors.New("payload is not UTF-8 (JSON text is UTF-8)")
	// errLoneSurrogate: encoding/json takes "\ud800" as JSON, the engine's
	// reader does not (it read the value as NULL, with no error).
	errLoneSurrogate = errors.New("payload is not JSON: a \\u escape is half of a UTF-16 surrogate pair")
)

func (jsonDecoder) decode(payload []byte, buf []byte) ([]byte, error) {
	if !utf8.Valid(payload) {
		return nil, errNotUTF8
	}
	if !json.Valid(payload) {
		return nil, errNotJSON
	}
	if loneSurrogate(payload) {
		return nil, errLoneSurrogate
	}
	return append(buf, payload...), nil
}

// loneSurrogate reports whether valid JSON text b holds a \u escape of a
// UTF-16 surrogate that is not one of a pair (a high one followed at once
// by a low one).
func loneSurrogate(b []byte) bool {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !inString {
			inString = c == '"'
			continue
		}
		switch c {
		case '"':
			inString = false
		case '\\':
			i++
			if b[i] != 'u' {
				continue
			}
			r := hex4(b[i+1 : i+5])
			i += 4
			if !utf16.IsSurrogate(r) {
				continue
			}
			// A high surrogate needs a low one right after it.
			if r >= 0xdc00 || i+6 >= len(b) || b[i+1] != '\\' || b[i+2] != 'u' {
				return true
			}
			lo := hex4(b[i+3 : i+7])
			if lo < 0xdc00 || lo > 0xdfff {
				return true
			}
			i += 6
		}
	}
	return false
}

// hex4 is the rune of 4 hex digits (valid JSON has them after \u).
func hex4(h []byte) rune {
	v, _ := strconv.ParseUint(string(h), 16, 32)
	return rune(v)
}
