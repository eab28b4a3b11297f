package notebooks

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"unicode"
)

// This file is a small Markdown renderer for the prose of notebooks:
// ATX headings, paragraphs, bullet and numbered lists (nested by
// indentation), block quotes, fenced code, pipe tables, rules; inline code,
// **bold**, *italic*, _italic_, [links](url), ![images](url), autolinks and
// backslash escapes. Every piece of text is HTML-escaped; raw HTML in the
// prose is shown as text, never passed through. Link targets are kept only
// for http, https and mailto URLs and relative paths.

// proseHTML renders Markdown prose to HTML.
func proseHTML(md string) template.HTML {
	var b strings.Builder
	renderBlocks(&b, strings.Split(md, "\n"))
	return template.HTML(b.String()) // every text piece was escaped
}

var (
	hrLine     = regexp.MustCompile(`^ {0,3}((\*[ \t]*){3,}|(-[ \t]*){3,}|(_[ \t]*){3,})$`)
	listItem   = regexp.MustCompile(`^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)`)
	tableSep   = regexp.MustCompile(`^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	quoteStart = regexp.MustCompile(`^ {0,3}>`)
)

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

// startsBlock tells whether a line interrupts a paragraph.
func startsBlock(l string) bool {
	if _, ok := openFence(l); ok {
		return true
	}
	return atxHeading.MatchString(l) || hrLine.MatchString(l) || quoteStart.MatchString(l) || listItem.MatchString(l)
}

func renderBlocks(b *strings.Builder, lines []string) {
	i := 0
	for i < len(lines) {
		l := lines[i]
		switch {
		case isBlank(l):
			i++
		case func() bool { _, ok := openFence(l); return ok }():
			f, _ := openFence(l)
			j := i + 1
			for j < len(lines) && !f.closes(lines[j]) {
				j++
			}
			lang, _, _ := strings.Cut(f.info, " ")
			b.WriteString("<pre><code")
			if lang != "" {
				b.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
			}
			b.WriteString(">")
			for k := i + 1; k < j && k < len(lines); k++ {
				b.WriteString(html.EscapeString(lines[k]) + "\n")
			}
			b.WriteString("</code></pre>\n")
			i = j + 1
		case atxHeading.MatchString(l):
			m := atxHeading.FindStringSubmatch(l)
			lvl := string(rune('0' + len(m[1])))
			text := strings.TrimSpace(m[2])
			b.WriteString("<h" + lvl + ` id="` + html.EscapeString(slug(text)) + `">` + inline(text) + "</h" + lvl + ">\n")
			i++
		case hrLine.MatchString(l):
			b.WriteString("<hr>\n")
			i++
		case quoteStart.MatchString(l):
			var inner []string
			for i < len(lines) && !isBlank(lines[i]) {
				q := lines[i]
				if quoteStart.MatchString(q) {
					q = strings.TrimLeft(q, " ")[1:]
					q = strings.TrimPrefix(q, " ")
				} else if startsBlock(q) {
					break
				}
				inner = append(inner, q)
				i++
			}
			b.WriteString("<blockquote>\n")
			renderBlocks(b, inner)
			b.WriteString("</blockquote>\n")
		case listItem.MatchString(l):
			i = renderList(b, lines, i)
		case strings.Contains(l, "|") && i+1 < len(lines) && tableSep.MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-"):
			i = renderTable(b, lines, i)
		default:
			var para []string
			for i < len(lines) && !isBlank(lines[i]) && (len(para) == 0 || !startsBlock(lines[i])) {
				para = append(para, strings.TrimSpace(lines[i]))
				i++
			}
			b.WriteString("<p>" + inline(strings.Join(para, "\n")) + "</p>\n")
		}
	}
}

// renderList renders the list starting at lines[i] and returns the index
// after it.
func renderList(b *strings.Builder, lines []string, i int) int {
	m := listItem.FindStringSubmatch(lines[i])
	ordered := m[2][0] >= '0' && m[2][0] <= '9'
	baseIndent := len(m[1])
	if ordered {
		start := strings.TrimRight(m[2], ".)")
		if start != "1" {
			b.WriteString(`<ol start="` + html.EscapeString(strings.TrimLeft(start, "0")) + `">` + "\n")
		} else {
			b.WriteString("<ol>\n")
		}
	} else {
		b.WriteString("<ul>\n")
	}
	var items [][]string
	loose := false
	for i < len(lines) {
		l := lines[i]
		mm := listItem.FindStringSubmatch(l)
		if mm == nil || len(mm[1]) != baseIndent || (mm[2][0] >= '0' && mm[2][0] <= '9') != ordered {
			break
		}
		contentIndent := len(mm[0])
		if strings.TrimSpace(mm[3]) == "" && len(mm[3]) == 0 {
			contentIndent = len(mm[1]) + len(mm[2]) + 1
		}
		item := []string{strings.TrimLeft(l[len(mm[0]):], " \t")}
		i++
		for i < len(lines) {
			c := lines[i]
			if isBlank(c) {
				// A blank line continues the item only if indented
				// content follows.
				if i+1 < len(lines) && indentOf(lines[i+1]) >= contentIndent && !isBlank(lines[i+1]) {
					item = append(item, "")
					loose = true
					i++
					continue
				}
				break
			}
			ind := indentOf(c)
			if ind >= contentIndent {
				item = append(item, c[min(contentIndent, len(c)):])
				i++
				continue
			}
			if startsBlock(c) {
				break
			}
			// Lazy continuation of the item's paragraph.
			item = append(item, strings.TrimSpace(c))
			i++
		}
		items = append(items, item)
		// A blank line between items makes the list loose; stop if the
		// list does not go on after it.
		if i < len(lines) && isBlank(lines[i]) {
			j := i
			for j < len(lines) && isBlank(lines[j]) {
				j++
			}
			if j < len(lines) {
				if nm := listItem.FindStringSubmatch(lines[j]); nm != nil && len(nm[1]) == baseIndent && (nm[2][0] >= '0' && nm[2][0] <= '9') == ordered {
					loose = true
					i = j
					continue
				}
			}
			break
		}
	}
	for _, item := range items {
		b.WriteString("<li>")
		if !loose && simpleItem(item) {
			b.WriteString(inline(strings.Join(item, "\n")))
		} else if !loose {
			// Tight: the first paragraph inline, then the nested blocks.
			j := 0
			for j < len(item) && !isBlank(item[j]) && (j == 0 || !startsBlock(item[j])) {
				j++
			}
			b.WriteString(inline(strings.Join(item[:j], "\n")) + "\n")
			renderBlocks(b, item[j:])
		} else {
			b.WriteString("\n")
			renderBlocks(b, item)
		}
		b.WriteString("</li>\n")
	}
	if ordered {
		b.WriteString("</ol>\n")
	} else {
		b.WriteString("</ul>\n")
	}
	return i
}

func simpleItem(item []string) bool {
	for k, l := range item {
		if isBlank(l) || (k > 0 && startsBlock(l)) {
			return false
		}
	}
	return true
}

func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

func splitRow(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimPrefix(l, "|")
	if strings.HasSuffix(l, "|") && !strings.HasSuffix(l, `\|`) {
		l = l[:len(l)-1]
	}
	var cells []string
	var cur strings.Builder
	inCode := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cur.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func renderTable(b *strings.Builder, lines []string, i int) int {
	head := splitRow(lines[i])
	seps := splitRow(lines[i+1])
	align := make([]string, len(head))
	for k := range align {
		if k < len(seps) {
			s := seps[k]
			switch {
			case strings.HasPrefix(s, ":") && strings.HasSuffix(s, ":"):
				align[k] = "center"
			case strings.HasSuffix(s, ":"):
				align[k] = "right"
			case strings.HasPrefix(s, ":"):
				align[k] = "left"
			}
		}
	}
	cell := func(tag, text string, k int) {
		b.WriteString("<" + tag)
		if align[k] != "" {
			b.WriteString(` class="` + align[k] + `"`)
		}
		b.WriteString(">" + inline(text) + "</" + tag + ">")
	}
	b.WriteString("<table class=\"md\">\n<thead><tr>")
	for k, h := range head {
		cell("th", h, k)
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	i += 2
	for i < len(lines) && !isBlank(lines[i]) && strings.Contains(lines[i], "|") {
		row := splitRow(lines[i])
		b.WriteString("<tr>")
		for k := range head {
			text := ""
			if k < len(row) {
				text = row[k]
			}
			cell("td", text, k)
		}
		b.WriteString("</tr>\n")
		i++
	}
	b.WriteString("</tbody>\n</table>\n")
	return i
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// safeURL keeps http, https and mailto URLs and relative references; any
// other scheme (javascript:, data:, ...) becomes "#".
func safeURL(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.IndexAny(u, ":/?#"); i >= 0 && u[i] == ':' {
		scheme := strings.ToLower(u[:i])
		if scheme != "http" && scheme != "https" && scheme != "mailto" {
			return "#"
		}
	}
	return u
}

const punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

var autolink = regexp.MustCompile(`^<((?:https?://|mailto:)[^\s<>]+)>`)

// inline renders the inline Markdown of one paragraph or heading.
func inline(s string) string {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte(punct, s[i+1]) >= 0:
			b.WriteString(html.EscapeString(s[i+1 : i+2]))
			i += 2
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("<br>\n")
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			ticks := s[i : i+n]
			end := indexRun(s[i+n:], ticks)
			if end < 0 {
				b.WriteString(html.EscapeString(ticks))
				i += n
				continue
			}
			code := strings.ReplaceAll(s[i+n:i+n+end], "\n", " ")
			if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
				code = code[1 : len(code)-1]
			}
			b.WriteString("<code>" + html.EscapeString(code) + "</code>")
			i += n + end + n
		case c == '!' && i+1 < len(s) && s[i+1] == '[':
			if text, url, n, ok := linkAt(s[i+1:]); ok {
				b.WriteString(`<img src="` + html.EscapeString(safeURL(url)) + `" alt="` + html.EscapeString(text) + `">`)
				i += 1 + n
				continue
			}
			b.WriteString("!")
			i++
		case c == '[':
			if text, url, n, ok := linkAt(s[i:]); ok {
				b.WriteString(`<a href="` + html.EscapeString(safeURL(url)) + `">` + inline(text) + "</a>")
				i += n
				continue
			}
			b.WriteString("[")
			i++
		case c == '<' && autolink.MatchString(s[i:]):
			m := autolink.FindStringSubmatch(s[i:])
			b.WriteString(`<a href="` + html.EscapeString(m[1]) + `">` + html.EscapeString(strings.TrimPrefix(m[1], "mailto:")) + "</a>")
			i += len(m[0])
		case c == '*' || c == '_':
			n := 1
			if i+1 < len(s) && s[i+1] == c {
				n = 2
			}
			if end, ok := emphasisEnd(s, i, n); ok {
				tag := "em"
				if n == 2 {
					tag = "strong"
				}
				b.WriteString("<" + tag + ">" + inline(s[i+n:end]) + "</" + tag + ">")
				i = end + n
				continue
			}
			b.WriteString(html.EscapeString(s[i : i+n]))
			i += n
		case c == ' ' && strings.HasPrefix(s[i:], "  \n"):
			b.WriteString("<br>\n")
			i += 3
		default:
			j := i + 1
			for j < len(s) && strings.IndexByte("\\`![<*_ ", s[j]) < 0 {
				j++
			}
			b.WriteString(html.EscapeString(s[i:j]))
			i = j
		}
	}
	return b.String()
}

// indexRun finds a run of exactly len(ticks) backticks.
func indexRun(s, ticks string) int {
	for k := 0; k < len(s); {
		j := strings.Index(s[k:], ticks)
		if j < 0 {
			return -1
		}
		j += k
		e := j + len(ticks)
		if (j == 0 || s[j-1] != '`') && (e >= len(s) || s[e] != '`') {
			return j
		}
		for e < len(s) && s[e] == '`' {
			e++
		}
		k = e
	}
	return -1
}

// linkAt parses [text](url "title") at the start of s.
func linkAt(s string) (text, url string, n int, ok bool) {
	depth := 0
	closeText := -1
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				closeText = k
			}
		}
		if closeText >= 0 {
			break
		}
	}
	if closeText < 0 || closeText+1 >= len(s) || s[closeText+1] != '(' {
		return "", "", 0, false
	}
	// The destination ends at the ) that balances the (.
	end, depth := -1, 0
	for k := closeText + 2; k < len(s) && end < 0; k++ {
		switch s[k] {
		case '\\':
			k++
		case '(':
			depth++
		case ')':
			if depth == 0 {
				end = k - (closeText + 2)
			}
			depth--
		}
	}
	if end < 0 {
		return "", "", 0, false
	}
	target := strings.TrimSpace(s[closeText+2 : closeText+2+end])
	if sp := strings.IndexAny(target, " \t\n"); sp >= 0 {
		target = target[:sp] // drop a "title"
	}
	target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
	return s[1:closeText], target, closeText + 2 + end + 1, true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// emphasisEnd finds where the emphasis opened at s[i] with n delimiters
// closes. An opener is followed by a non-space; a closer follows a
// non-space; _ only opens and closes at word edges, so snake_case stays.
func emphasisEnd(s string, i, n int) (int, bool) {
	c := s[i]
	open := i + n
	if open >= len(s) || s[open] == ' ' || s[open] == '\n' || s[open] == c {
		return 0, false
	}
	if c == '_' && i > 0 && isAlnum(s[i-1]) {
		return 0, false
	}
	delim := strings.Repeat(string(c), n)
	for k := open + 1; k+n <= len(s); k++ {
		switch s[k] {
		case '`':
			// Skip code spans.
			m := 1
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if e := indexRun(s[k+m:], s[k:k+m]); e >= 0 {
				k += m + e + m - 1
			}
			continue
		case '\\':
			k++
			continue
		}
		if s[k:k+n] != delim || s[k-1] == ' ' || s[k-1] == '\n' {
			continue
		}
		after := k + n
		if after < len(s) && s[after] == c {
			// A longer run: for * let ** close an inner strong first.
			if n == 1 {
				k++
				continue
			}
		}
		if c == '_' && after < len(s) && isAlnum(s[after]) {
			continue
		}
		return k, true
	}
	return 0, false
}
