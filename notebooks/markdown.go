package notebooks

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The prose of a notebook is CommonMark with GitHub's tables, rendered by
// goldmark. Raw HTML is never passed through: it is shown as text (a
// renderer below escapes it). Link and image targets with a dangerous
// scheme (javascript:, vbscript:, data: other than images) are dropped by
// goldmark itself, since it runs without html.WithUnsafe. Headings get ids
// from their text; table cells are aligned by class (right, center), not by
// a style attribute, so the pages' Content-Security-Policy holds.

var prose = goldmark.New(
	goldmark.WithExtensions(extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone))),
	goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(tableClasses{}, 100))),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(rawAsText{}, 100))),
)

// Prose bounds: goldmark's time grows with the square of nesting
// (quotes nested 200,000 deep, 200 KB, took 25 s; lists nested 2,000 deep,
// 4 MB, 54 s) and its memory with unclosed link brackets (2,000,000 of
// them: 800 MB), and nothing can stop it once it runs. Prose past a bound
// is shown as text, unrendered, with a note saying which bound.
const (
	// maxProsePrefix bounds the run of spaces, tabs and container markers
	// (> - * +) that starts a line: what nests quotes and lists.
	maxProsePrefix = 256
	// maxProseBrackets bounds the [ of one prose block.
	maxProseBrackets = 10_000
)

// proseBound names the bound md passes, "" when it passes none.
func proseBound(md string) string {
	if strings.Count(md, "[") > maxProseBrackets {
		return fmt.Sprintf("it holds more than %d [", maxProseBrackets)
	}
	for line := range strings.Lines(md) {
		n := 0
		for n < len(line) && strings.IndexByte(" \t>-*+", line[n]) >= 0 {
			n++
		}
		if n > maxProsePrefix {
			return fmt.Sprintf("a line starts with %d spaces or quote and list markers, more than %d (quotes or lists nested too deep)", n, maxProsePrefix)
		}
	}
	return ""
}

// proseHTML renders Markdown prose to HTML, or, past a bound, shows it as
// text.
func proseHTML(md string) template.HTML {
	if why := proseBound(md); why != "" {
		return template.HTML(`<p class="warning">This prose is shown as text, not rendered: ` + template.HTMLEscapeString(why) +
			`.</p>` + "\n<pre>" + template.HTMLEscapeString(md) + "</pre>")
	}
	var b bytes.Buffer
	if err := prose.Convert([]byte(md), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(md)) // goldmark writes to memory: it does not fail
	}
	return template.HTML(b.String()) // goldmark escapes text; raw HTML is escaped below
}

// tableClasses marks tables class "md" and aligned cells class "right" or
// "center", for the stylesheet.
type tableClasses struct{}

func (tableClasses) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := n.(type) {
		case *east.Table:
			c.SetAttributeString("class", []byte("md"))
		case *east.TableCell:
			switch c.Alignment {
			case east.AlignRight:
				c.SetAttributeString("class", []byte("right"))
			case east.AlignCenter:
				c.SetAttributeString("class", []byte("center"))
			}
		}
		return ast.WalkContinue, nil
	})
}

// rawAsText renders raw HTML, inline or as a block, as escaped text.
type rawAsText struct{}

func (rawAsText) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindRawHTML, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := 0; i < segs.Len(); i++ {
				s := segs.At(i)
				w.Write(util.EscapeHTML(s.Value(src)))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	reg.Register(ast.KindHTMLBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		b := n.(*ast.HTMLBlock)
		w.WriteString("<p>")
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			s := lines.At(i)
			w.Write(util.EscapeHTML(bytes.TrimRight(s.Value(src), "\n")))
			if i < lines.Len()-1 {
				w.WriteString("\n")
			}
		}
		if b.HasClosure() {
			w.WriteString("\n")
			w.Write(util.EscapeHTML(bytes.TrimRight(b.ClosureLine.Value(src), "\n")))
		}
		w.WriteString("</p>\n")
		return ast.WalkContinue, nil
	})
}

var _ = html.WithUnsafe // never used: raw HTML and dangerous links stay off
