package notebooks

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/topicsnap/topicsnap/queries"
)

// ErrUnknownParam marks a run-time parameter the notebook does not take.
var ErrUnknownParam = errors.New("unknown notebook parameter")

// paramError is a refused run-time parameter; errors.Is(err, ErrUnknownParam) holds.
type paramError struct{ msg string }

func (e *paramError) Error() string { return e.msg }
func (e *paramError) Unwrap() error { return ErrUnknownParam }

// KnownParams returns, sorted, the parameters the notebook takes: those its
// front matter declares and those its cells use as placeholders.
func (nb *Notebook) KnownParams() []string {
	seen := map[string]bool{}
	for k := range nb.Params {
		seen[k] = true
	}
	for _, b := range nb.Cells() {
		// The values do not matter: only which names the cell asks for.
		substitute(b.Text, func(name string) (string, bool) { seen[name] = true; return "x", true })
	}
	delete(seen, "dir")
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CheckParams refuses run-time parameters the notebook does not take
// (KnownParams), naming those it does, and dir, which is always the
// snapshot folder.
func (nb *Notebook) CheckParams(params map[string]string) error {
	if _, ok := params["dir"]; ok {
		return &paramError{"parameter dir is reserved: it is always the snapshot folder (set it with --dir)"}
	}
	known := nb.KnownParams()
	var unknown []string
	for k := range params {
		if !contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	takes := "no parameters"
	if len(known) > 0 {
		takes = strings.Join(known, ", ")
	}
	noun := "parameter"
	if len(unknown) > 1 {
		noun = "parameters"
	}
	return &paramError{fmt.Sprintf("unknown %s %s: this notebook takes %s", noun, strings.Join(unknown, ", "), takes)}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// isIdentParam tells whether {{name}} becomes an identifier by default.
func isIdentParam(name string) bool { return name == "topic" || strings.HasSuffix(name, "_topic") }

// SubstError is a placeholder that could not be replaced.
type SubstError struct {
	Line int // 1-based line within the cell's SQL
	Msg  string
}

func (e *SubstError) Error() string { return fmt.Sprintf("line %d of the cell: %s", e.Line, e.Msg) }

// Substitute replaces the {{name}} placeholders of a cell's SQL with quoted
// parameter values, following the rules of the package documentation:
// identifiers for topic, *_topic and {{x$all}} or {{x|ident}}, string
// literals otherwise. Placeholders inside string literals, quoted
// identifiers, dollar quotes and comments are left as written.
func Substitute(q string, params map[string]string) (string, error) {
	return substitute(q, func(name string) (string, bool) { v, ok := params[name]; return v, ok })
}

// substitute is Substitute with the parameters behind lookup.
func substitute(q string, lookup func(name string) (string, bool)) (string, error) {
	var out strings.Builder
	line := 1
	i := 0
	n := len(q)
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	prevWord := func() bool { return i > 0 && isWord(q[i-1]) }
	// copyUntil copies q[i:j] to out, counting lines.
	copyTo := func(j int) {
		if j > n {
			j = n
		}
		line += strings.Count(q[i:j], "\n")
		out.WriteString(q[i:j])
		i = j
	}
	for i < n {
		c := q[i]
		switch {
		case c == '{' && i+1 < n && q[i+1] == '{':
			// Only {{ followed by a name is a placeholder; other {{ are
			// SQL (a struct literal inside a struct, say).
			k := i + 2
			for k < n && (q[k] == ' ' || q[k] == '\t') {
				k++
			}
			if k >= n || !isWord(q[k]) || q[k] >= '0' && q[k] <= '9' {
				copyTo(i + 1)
				continue
			}
			end := strings.Index(q[i+2:], "}}")
			if end < 0 || strings.ContainsAny(q[i+2:i+2+end], "\n{}") {
				return "", &SubstError{line, fmt.Sprintf("a placeholder {{%s is not closed with }}", firstWord(q[k:]))}
			}
			trimmed := strings.TrimSpace(q[i+2 : i+2+end])
			rep, err := placeholder(trimmed, lookup)
			if err != nil {
				return "", &SubstError{line, err.Error()}
			}
			after := i + 2 + end + 2
			if i > 0 && (isWord(q[i-1]) || strings.IndexByte(`'"$`, q[i-1]) >= 0) {
				return "", &SubstError{line, fmt.Sprintf("{{%s}} touches the word or quote before it: put a space or an operator between them", trimmed)}
			}
			if after < n && (isWord(q[after]) || strings.IndexByte(`'"$`, q[after]) >= 0) {
				return "", &SubstError{line, fmt.Sprintf("{{%s}} touches the word or quote after it: put a space or an operator between them", trimmed)}
			}
			out.WriteString(rep)
			i = after
		case c == '\'':
			// A string literal; E'...' has backslash escapes.
			escapes := i > 0 && (q[i-1] == 'E' || q[i-1] == 'e') && !(i > 1 && isWord(q[i-2]))
			j := i + 1
			for j < n {
				if escapes && q[j] == '\\' {
					j += 2
					continue
				}
				if q[j] == '\'' {
					if j+1 < n && q[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			copyTo(j + 1)
		case c == '"':
			j := i + 1
			for j < n {
				if q[j] == '"' {
					if j+1 < n && q[j+1] == '"' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			copyTo(j + 1)
		case c == '-' && i+1 < n && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				copyTo(n)
			} else {
				copyTo(i + j)
			}
		case c == '/' && i+1 < n && q[i+1] == '*':
			// Block comments nest, as in PostgreSQL and DuckDB.
			depth, j := 1, i+2
			for j < n && depth > 0 {
				switch {
				case q[j] == '/' && j+1 < n && q[j+1] == '*':
					depth++
					j += 2
				case q[j] == '*' && j+1 < n && q[j+1] == '/':
					depth--
					j += 2
				default:
					j++
				}
			}
			copyTo(j)
		case c == '$' && !prevWord():
			// A dollar quote: $$...$$ or $tag$...$tag$.
			j := i + 1
			for j < n && isWord(q[j]) {
				j++
			}
			if j < n && q[j] == '$' && (j == i+1 || !(q[i+1] >= '0' && q[i+1] <= '9')) {
				tag := q[i : j+1]
				k := strings.Index(q[j+1:], tag)
				if k < 0 {
					copyTo(n)
				} else {
					copyTo(j + 1 + k + len(tag))
				}
			} else {
				copyTo(i + 1)
			}
		default:
			copyTo(i + 1)
		}
	}
	return out.String(), nil
}

func firstWord(s string) string {
	for i, c := range s {
		if c == ' ' || c == '\n' || c == '\t' || c == '}' {
			return s[:i]
		}
	}
	return s
}

// placeholder turns the inside of {{...}} into its SQL.
func placeholder(expr string, lookup func(string) (string, bool)) (string, error) {
	name, mode, hasMode := strings.Cut(expr, "|")
	name, mode = strings.TrimSpace(name), strings.TrimSpace(mode)
	all := false
	if base, ok := strings.CutSuffix(name, "$all"); ok {
		name, all = base, true
	}
	if !paramName.MatchString(name) {
		return "", fmt.Errorf("{{%s}} is not a placeholder: want {{name}}, {{name$all}}, {{name|ident}} or {{name|literal}}", expr)
	}
	if hasMode && mode != "ident" && mode != "literal" {
		return "", fmt.Errorf("{{%s}}: unknown form %q (ident or literal)", expr, mode)
	}
	v, ok := lookup(name)
	if !ok {
		return "", fmt.Errorf("{{%s}}: no parameter %s (declare it in the front matter or pass it at run time)", expr, name)
	}
	switch {
	case all && mode == "literal":
		return "", fmt.Errorf("{{%s}}: $all names a view, it cannot be a literal", expr)
	case all:
		return queries.QuoteIdent(v + "$all"), nil
	case mode == "ident", mode == "" && isIdentParam(name):
		return queries.QuoteIdent(v), nil
	default:
		return queries.QuoteString(v), nil
	}
}
