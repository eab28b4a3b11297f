// Package sqllex reads SQL text as DuckDB's parser does, as far as telling
// code apart from what is not code: string literals, quoted identifiers,
// dollar-quoted strings and comments. It is the one lexer of SQL text in
// topicsnap: the sql command's statement splitter and REPL, the notebooks'
// {{name}} substitution and the guard's check of a rendered expression all
// read SQL through it, so they agree with each other and with DuckDB on
// where a ';' ends a statement and where a placeholder is code.
//
// What it knows, each rule checked against DuckDB itself (the tests in
// package queries parse the same texts with DuckDB):
//
//   - '...' is a string; a quote inside it is written twice, and a
//     backslash is an ordinary character.
//   - E'...' (or e'...') at the start of a token is a string with
//     backslash escapes: a quote after a backslash does not end it, nor
//     does a quote written twice.
//   - "..." is a quoted identifier; "" inside is one quote.
//   - $$...$$ and $tag$...$tag$ (a tag is a letter or _ then letters,
//     digits or _) are a string that ends at the same tag; $1 is a
//     parameter, and a $ inside a word (a$b, x$$) is part of the word.
//   - -- starts a comment to the end of the line (\n or \r); /* ... */ is a
//     comment, and comments of that kind nest.
//   - ; outside all of these ends a statement.
//
// Nothing else is interpreted: words, numbers and operators are Code. A
// string, identifier, dollar quote or block comment that is still open at
// the end of the text is an *UnterminatedError, which names what was
// opened and where.
//
// The package only reads text: it never builds SQL, quotes a value, or
// decides whether a statement is allowed (queries' guard does, on DuckDB's
// own syntax tree).
package sqllex

import (
	"fmt"
	"strings"
)

// Kind is what a Token is.
type Kind uint8

const (
	Code         Kind = iota // words, numbers, operators, parameters
	Space                    // blanks and line breaks
	Semicolon                // a ; that ends a statement
	String                   // '...' or E'...'
	QuotedIdent              // "..."
	DollarString             // $$...$$ or $tag$...$tag$
	LineComment              // -- to the end of the line, the line break not included
	BlockComment             // /* ... */, nested ones included
)

// Token is a piece of SQL text: Text is s[Offset:Offset+len(Text)].
type Token struct {
	Kind   Kind
	Offset int
	Text   string
}

// Comment tells whether t is a comment of either kind.
func (t Token) Comment() bool { return t.Kind == LineComment || t.Kind == BlockComment }

// Quoted tells whether t is a string, a quoted identifier or a dollar quote.
func (t Token) Quoted() bool {
	return t.Kind == String || t.Kind == QuotedIdent || t.Kind == DollarString
}

// Significant tells whether t is part of a statement: neither a blank nor
// a comment.
func (t Token) Significant() bool { return t.Kind != Space && !t.Comment() }

// UnterminatedError is a string, quoted identifier, dollar quote or block
// comment the text never closes.
type UnterminatedError struct {
	Kind   Kind   // String, QuotedIdent, DollarString or BlockComment
	Open   string // what opened it: ', E', ", $tag$ or /*
	Offset int    // where it opened, in bytes
	Line   int    // where it opened, 1-based
	Column int    // where it opened, 1-based, in bytes
	Near   string // the start of it, at most 20 bytes and one line
}

func (e *UnterminatedError) Error() string {
	what := map[Kind]string{
		String:       "string",
		QuotedIdent:  "quoted identifier",
		DollarString: "dollar-quoted string",
		BlockComment: "comment",
	}[e.Kind]
	return fmt.Sprintf("the %s opened with %s at line %d, column %d is never closed (near %s)", what, e.Open, e.Line, e.Column, e.Near)
}

// Tokens splits s into tokens that cover it whole, in order. When s ends
// inside a string, identifier, dollar quote or block comment, the last
// token runs to the end of s and err is an *UnterminatedError.
func Tokens(s string) (toks []Token, err error) {
	n := len(s)
	add := func(k Kind, from, to int) {
		// Code runs are merged, so a token list is short.
		if k == Code && len(toks) > 0 && toks[len(toks)-1].Kind == Code && toks[len(toks)-1].Offset+len(toks[len(toks)-1].Text) == from {
			toks[len(toks)-1].Text = s[toks[len(toks)-1].Offset:to]
			return
		}
		toks = append(toks, Token{Kind: k, Offset: from, Text: s[from:to]})
	}
	open := func(k Kind, from, to int, opener string) {
		add(k, from, to)
		if err == nil {
			err = unterminated(s, k, from, opener)
		}
	}
	for i := 0; i < n; {
		c := s[i]
		switch {
		case isSpace(c):
			j := i + 1
			for j < n && isSpace(s[j]) {
				j++
			}
			add(Space, i, j)
			i = j
		case c == ';':
			add(Semicolon, i, i+1)
			i++
		case c == '-' && i+1 < n && s[i+1] == '-':
			j := i + 2
			for j < n && s[j] != '\n' && s[j] != '\r' {
				j++
			}
			add(LineComment, i, j)
			i = j
		case c == '/' && i+1 < n && s[i+1] == '*':
			depth, j := 1, i+2
			for j < n && depth > 0 {
				switch {
				case s[j] == '/' && j+1 < n && s[j+1] == '*':
					depth++
					j += 2
				case s[j] == '*' && j+1 < n && s[j+1] == '/':
					depth--
					j += 2
				default:
					j++
				}
			}
			if depth > 0 {
				open(BlockComment, i, n, "/*")
			} else {
				add(BlockComment, i, j)
			}
			i = j
		case c == '\'':
			j, ok := endQuote(s, i+1, '\'', false)
			if !ok {
				open(String, i, n, "'")
			} else {
				add(String, i, j)
			}
			i = j
		case (c == 'E' || c == 'e') && i+1 < n && s[i+1] == '\'':
			// Only at the start of a word: inside one (xE'y') the E was
			// taken with its word below.
			j, ok := endQuote(s, i+2, '\'', true)
			if !ok {
				open(String, i, n, s[i:i+2])
			} else {
				add(String, i, j)
			}
			i = j
		case c == '"':
			j, ok := endQuote(s, i+1, '"', false)
			if !ok {
				open(QuotedIdent, i, n, `"`)
			} else {
				add(QuotedIdent, i, j)
			}
			i = j
		case c == '$':
			if tag := dollarTag(s[i:]); tag != "" {
				k := strings.Index(s[i+len(tag):], tag)
				if k < 0 {
					open(DollarString, i, n, tag)
					i = n
				} else {
					j := i + len(tag) + k + len(tag)
					add(DollarString, i, j)
					i = j
				}
				continue
			}
			// $1, or a lone $.
			j := i + 1
			for j < n && isDigit(s[j]) {
				j++
			}
			add(Code, i, j)
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentCont(s[j]) {
				j++
			}
			add(Code, i, j)
			i = j
		case isDigit(c):
			// A number takes no letters (1AS is 1 then AS, 1e'x' is 1
			// then e'x'), but its exponent.
			j := i + 1
			for j < n && (isDigit(s[j]) || s[j] == '_') {
				j++
			}
			if j < n && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < n && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < n && isDigit(s[k]) {
					for k < n && isDigit(s[k]) {
						k++
					}
					j = k
				}
			}
			add(Code, i, j)
			i = j
		default:
			add(Code, i, i+1)
			i++
		}
	}
	return toks, err
}

// endQuote returns the offset just past the quote q that closes a string
// or identifier whose body starts at i; a doubled q is one character, and
// with escapes a backslash takes the byte after it. ok is false when
// nothing closes it.
func endQuote(s string, i int, q byte, escapes bool) (end int, ok bool) {
	for i < len(s) {
		switch {
		case escapes && s[i] == '\\':
			i += 2
		case s[i] == q && i+1 < len(s) && s[i+1] == q:
			i += 2
		case s[i] == q:
			return i + 1, true
		default:
			i++
		}
	}
	return len(s), false
}

// dollarTag returns the $tag$ (or $$) s starts with, or "".
func dollarTag(s string) string {
	if len(s) < 2 || s[0] != '$' {
		return ""
	}
	if s[1] == '$' {
		return "$$"
	}
	if !isIdentStart(s[1]) {
		return ""
	}
	for j := 2; j < len(s); j++ {
		switch {
		case s[j] == '$':
			return s[:j+1]
		case !isIdentStart(s[j]) && !isDigit(s[j]):
			return ""
		}
	}
	return ""
}

func unterminated(s string, k Kind, off int, opener string) *UnterminatedError {
	line := 1 + strings.Count(s[:off], "\n")
	col := off - strings.LastIndexByte(s[:off], '\n')
	near := s[off:]
	if i := strings.IndexAny(near, "\r\n"); i >= 0 {
		near = near[:i]
	}
	if len(near) > 20 {
		near = near[:20] + "…"
	}
	return &UnterminatedError{Kind: k, Open: opener, Offset: off, Line: line, Column: col, Near: near}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isIdentStart: a letter, _ or any byte of a multi-byte UTF-8 character.
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// isIdentCont: what may follow inside a word; $ included (a$b is a name).
func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// Split returns the statements of s in order, each without its ';' and
// trimmed of blanks; a piece with nothing but blanks and comments is not a
// statement. When s ends inside a string, identifier, dollar quote or
// block comment, it returns the statements before the unclosed one and an
// *UnterminatedError.
func Split(s string) ([]string, error) {
	toks, err := Tokens(s)
	var out []string
	start, significant := 0, false
	for _, t := range toks {
		if err != nil && t.Offset >= err.(*UnterminatedError).Offset {
			break
		}
		switch {
		case t.Kind == Semicolon:
			if significant {
				out = append(out, strings.TrimSpace(s[start:t.Offset]))
			}
			start, significant = t.Offset+1, false
		case t.Significant():
			significant = true
		}
	}
	if err != nil {
		return out, err
	}
	if significant {
		out = append(out, strings.TrimSpace(s[start:]))
	}
	return out, nil
}

// Complete tells whether s ends a statement: nothing is left open and its
// last token but blanks and comments is a ';'. The REPL reads lines until
// the text is complete.
func Complete(s string) bool {
	toks, err := Tokens(s)
	if err != nil {
		return false
	}
	for i := len(toks) - 1; i >= 0; i-- {
		if toks[i].Significant() {
			return toks[i].Kind == Semicolon
		}
	}
	return false
}

// OnlyComments tells whether s holds nothing but blanks and closed
// comments (the empty text included).
func OnlyComments(s string) bool {
	toks, err := Tokens(s)
	if err != nil {
		return false
	}
	for _, t := range toks {
		if t.Significant() {
			return false
		}
	}
	return true
}

// HasComment tells whether s holds a comment, or leaves something open.
func HasComment(s string) bool {
	toks, err := Tokens(s)
	if err != nil {
		return true
	}
	for _, t := range toks {
		if t.Comment() {
			return true
		}
	}
	return false
}
