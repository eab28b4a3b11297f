package notebooks

import (
	"bytes"
	"html/template"

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

// proseHTML renders Markdown prose to HTML.
func proseHTML(md string) template.HTML {
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
