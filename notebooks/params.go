package notebooks

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/topicsnap/topicsnap/internal/sqllex"
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

// substitute is Substitute with the parameters behind lookup. Strings,
// quoted identifiers, dollar quotes and comments are read as DuckDB reads
// them (internal/sqllex) and copied as written. One left open runs to the
// end of the cell: nothing in it is a placeholder, and DuckDB says what is
// open when the cell runs.
func substitute(q string, lookup func(name string) (string, bool)) (string, error) {
	toks, _ := sqllex.Tokens(q)
	var opaque []sqllex.Token // what is not code, in order
	for _, t := range toks {
		if t.Quoted() || t.Comment() {
			opaque = append(opaque, t)
		}
	}
	var out strings.Builder
	line := 1
	i := 0
	n := len(q)
	isWord := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	// copyTo copies q[i:j] to out, counting lines.
	copyTo := func(j int) {
		line += strings.Count(q[i:j], "\n")
		out.WriteString(q[i:j])
		i = j
	}
	for i < n {
		// codeEnd is where the code at i ends: the next string,
		// identifier, dollar quote or comment.
		codeEnd := n
		if len(opaque) > 0 {
			if opaque[0].Offset == i {
				copyTo(i + len(opaque[0].Text))
				opaque = opaque[1:]
				continue
			}
			codeEnd = opaque[0].Offset
		}
		if !strings.HasPrefix(q[i:codeEnd], "{{") {
			copyTo(i + 1)
			continue
		}
		// Only {{ followed by a name is a placeholder; other {{ are SQL
		// (a struct literal inside a struct, say).
		k := i + 2
		for k < codeEnd && (q[k] == ' ' || q[k] == '\t') {
			k++
		}
		if k >= codeEnd || !isWord(q[k]) || q[k] >= '0' && q[k] <= '9' {
			copyTo(i + 1)
			continue
		}
		end := strings.Index(q[i+2:codeEnd], "}}")
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
