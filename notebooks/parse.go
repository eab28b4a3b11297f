package notebooks

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultLimit is the number of rows a cell shows when it sets no limit.
const DefaultLimit = 200

// MaxLimit is the largest limit a cell may ask for.
const MaxLimit = 100000

// Notebook is a parsed notebook.
type Notebook struct {
	// Name is the name given to Parse, usually the file's path.
	Name string
	// Title is the front matter's title, else the first "# heading", else
	// the file name without .md.
	Title string
	// Needs is the front matter's needs: the data the notebook is written
	// for, and the command that makes it, for people (notebook ls, the
	// server's overview). It is not a parameter.
	Needs string
	// Params are the parameters the front matter declares, with their
	// default values.
	Params map[string]string
	// Blocks are the prose and the cells, in file order.
	Blocks []Block
}

// BlockKind tells prose from a cell.
type BlockKind int

// Kinds of block.
const (
	Prose BlockKind = iota
	SQL
)

func (k BlockKind) String() string {
	if k == SQL {
		return "sql"
	}
	return "prose"
}

// Block is a stretch of prose or one sql cell.
type Block struct {
	Kind BlockKind
	// Text is the Markdown of prose, or the SQL of a cell as written
	// (placeholders not yet substituted).
	Text string
	// Line is the 1-based line of the block's first line in the file: for a
	// cell, its opening fence.
	Line int
	// Fence is the cell's opening fence as written (```sql chart=bar ...).
	Fence string
	// Options are the cell's options.
	Options CellOptions
}

// CellOptions are the options of a cell's fence.
type CellOptions struct {
	Chart  string // "", "bar" or "line"
	X, Y   string // columns of a chart
	Series string // optional column splitting a chart into series
	Limit  int    // rows shown; 0 means DefaultLimit
	Title  string // caption
}

// RowsShown is the number of rows the cell shows.
func (o CellOptions) RowsShown() int {
	if o.Limit > 0 {
		return o.Limit
	}
	return DefaultLimit
}

// ParseError is a notebook syntax error at one line.
type ParseError struct {
	Name string
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
}

var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse reads a notebook. name is used in errors and as the fallback title.
func Parse(name string, src []byte) (*Notebook, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(text, "\n")
	nb := &Notebook{Name: name, Params: map[string]string{}}
	perr := func(line int, format string, args ...any) error {
		return &ParseError{Name: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}

	i := 0
	titleSet := false
	if len(lines) > 0 && strings.TrimRight(lines[0], " \t") == "---" {
		closed := false
		for i = 1; i < len(lines); i++ {
			l := strings.TrimSpace(lines[i])
			if l == "---" || l == "..." {
				closed = true
				i++
				break
			}
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				return nil, perr(i+1, "front matter: want name: value, got %q", l)
			}
			k, v = strings.TrimSpace(k), unquote(strings.TrimSpace(v))
			if !paramName.MatchString(k) {
				return nil, perr(i+1, "front matter: %q is not a name (letters, digits and _, not starting with a digit)", k)
			}
			if k == "title" {
				if titleSet {
					return nil, perr(i+1, "front matter: title is given twice")
				}
				nb.Title, titleSet = v, true
				continue
			}
			if k == "needs" {
				if nb.Needs != "" {
					return nil, perr(i+1, "front matter: needs is given twice")
				}
				nb.Needs = v
				continue
			}
			if _, dup := nb.Params[k]; dup {
				return nil, perr(i+1, "front matter: parameter %s is given twice", k)
			}
			nb.Params[k] = v
		}
		if !closed {
			return nil, perr(1, "front matter opened here is never closed with a line of ---")
		}
	}

	var prose []string
	proseStart := i + 1
	flush := func() {
		// Trim blank lines at both ends, keeping line numbers right.
		start, end := 0, len(prose)
		for start < end && strings.TrimSpace(prose[start]) == "" {
			start++
		}
		for end > start && strings.TrimSpace(prose[end-1]) == "" {
			end--
		}
		if start < end {
			nb.Blocks = append(nb.Blocks, Block{Kind: Prose, Text: strings.Join(prose[start:end], "\n"), Line: proseStart + start})
		}
		prose = nil
	}
	for i < len(lines) {
		l := lines[i]
		f, ok := openFence(l)
		if !ok {
			if len(prose) == 0 {
				proseStart = i + 1
			}
			prose = append(prose, l)
			i++
			continue
		}
		// Find the closing fence.
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if f.closes(lines[j]) {
				end = j
				break
			}
		}
		if end < 0 {
			what := "code block"
			if f.isSQL() {
				what = "sql cell"
			}
			return nil, perr(i+1, "%s opened here with %s is never closed", what, f.marker)
		}
		if !f.isSQL() {
			if len(prose) == 0 {
				proseStart = i + 1
			}
			prose = append(prose, lines[i:end+1]...)
			i = end + 1
			continue
		}
		flush()
		opts, err := parseOptions(f.info)
		if err != nil {
			return nil, perr(i+1, "%v", err)
		}
		body := lines[i+1 : end]
		// Remove the fence's indentation from the body, as CommonMark does.
		if f.indent > 0 {
			for k, b := range body {
				n := 0
				for n < f.indent && n < len(b) && b[n] == ' ' {
					n++
				}
				body[k] = b[n:]
			}
		}
		nb.Blocks = append(nb.Blocks, Block{Kind: SQL, Text: strings.Join(body, "\n"), Line: i + 1, Fence: strings.TrimSpace(l), Options: opts})
		i = end + 1
		proseStart = i + 1
	}
	flush()
	if !titleSet {
		nb.Title = firstHeading(nb.Blocks)
		if nb.Title == "" {
			nb.Title = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		}
	}
	return nb, nil
}

// Cells returns the sql cells.
func (nb *Notebook) Cells() []Block {
	var out []Block
	for _, b := range nb.Blocks {
		if b.Kind == SQL {
			out = append(out, b)
		}
	}
	return out
}

// ParamNames returns the declared parameters' names, sorted.
func (nb *Notebook) ParamNames() []string {
	names := make([]string, 0, len(nb.Params))
	for k := range nb.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

var atxHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)

func firstHeading(blocks []Block) string {
	for _, b := range blocks {
		if b.Kind != Prose {
			continue
		}
		inFence := false
		var f fence
		for _, l := range strings.Split(b.Text, "\n") {
			if inFence {
				if f.closes(l) {
					inFence = false
				}
				continue
			}
			if ff, ok := openFence(l); ok {
				f, inFence = ff, true
				continue
			}
			if m := atxHeading.FindStringSubmatch(l); m != nil && len(m[1]) == 1 {
				return strings.TrimSpace(m[2])
			}
		}
	}
	return ""
}

// fence is an opening code fence.
type fence struct {
	char   byte
	n      int
	indent int
	info   string
	marker string
}

func (f fence) isSQL() bool {
	lang, _, _ := strings.Cut(f.info, " ")
	lang, _, _ = strings.Cut(lang, "\t")
	return strings.EqualFold(lang, "sql")
}

func openFence(l string) (fence, bool) {
	indent := 0
	for indent < len(l) && l[indent] == ' ' {
		indent++
	}
	if indent > 3 || indent >= len(l) || (l[indent] != '`' && l[indent] != '~') {
		return fence{}, false
	}
	c := l[indent]
	n := 0
	for indent+n < len(l) && l[indent+n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	info := strings.TrimSpace(l[indent+n:])
	if c == '`' && strings.Contains(info, "`") {
		return fence{}, false
	}
	return fence{char: c, n: n, indent: indent, info: info, marker: strings.Repeat(string(c), n)}, true
}

func (f fence) closes(l string) bool {
	indent := 0
	for indent < len(l) && l[indent] == ' ' {
		indent++
	}
	if indent > 3 {
		return false
	}
	n := 0
	for indent+n < len(l) && l[indent+n] == f.char {
		n++
	}
	return n >= f.n && strings.TrimSpace(l[indent+n:]) == ""
}

// parseOptions reads the options after "sql" in a fence's info string.
func parseOptions(info string) (CellOptions, error) {
	var o CellOptions
	words, err := splitWords(info)
	if err != nil {
		return o, err
	}
	seen := map[string]bool{}
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return o, fmt.Errorf("cell option %q: want name=value (chart, x, y, series, limit, title)", w)
		}
		k = strings.ToLower(k)
		if seen[k] {
			return o, fmt.Errorf("cell option %s is given twice", k)
		}
		seen[k] = true
		switch k {
		case "chart":
			v = strings.ToLower(v)
			if v != "bar" && v != "line" {
				return o, fmt.Errorf("cell option chart=%s: want chart=bar or chart=line", v)
			}
			o.Chart = v
		case "x":
			o.X = v
		case "y":
			o.Y = v
		case "series":
			o.Series = v
		case "title":
			o.Title = v
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > MaxLimit {
				return o, fmt.Errorf("cell option limit=%s: want a whole number from 1 to %d", v, MaxLimit)
			}
			o.Limit = n
		default:
			return o, fmt.Errorf("unknown cell option %q (known: chart, x, y, series, limit, title)", k)
		}
	}
	if o.Chart != "" && (o.X == "" || o.Y == "") {
		return o, fmt.Errorf("chart=%s needs x=COLUMN and y=COLUMN", o.Chart)
	}
	if o.Chart == "" && (o.X != "" || o.Y != "" || o.Series != "") {
		return o, fmt.Errorf("x, y and series are chart options: add chart=bar or chart=line")
	}
	return o, nil
}

// splitWords splits on blanks, keeping double-quoted stretches together
// (quotes removed, \" and \\ unescaped).
func splitWords(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	in, has := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == '"':
			in, has = !in, true
		case !in && (c == ' ' || c == '\t'):
			if has {
				out = append(out, b.String())
				b.Reset()
				has = false
			}
		default:
			b.WriteByte(c)
			has = true
		}
	}
	if in {
		return nil, fmt.Errorf("cell options: a double quote is never closed")
	}
	if has {
		out = append(out, b.String())
	}
	return out, nil
}
