package notebooks

import (
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

// view models for the page template: everything the template prints is a
// string escaped by html/template, except Prose, which proseHTML built from
// escaped pieces.
type pageView struct {
	Title    string
	Name     string
	Dir      string
	Started  string
	Duration string
	Params   []paramView
	Blocks   []blockView
	Failed   int
	Cells    int
}

type paramView struct{ Name, Value string }

type blockView struct {
	Prose template.HTML
	Cell  *cellView
}

type cellView struct {
	Notes    []string
	ID       string
	Line     int
	Title    string
	Options  string
	Source   string
	Ran      string
	Err      string
	ChartErr string
	Chart    template.HTML
	Columns  []string
	Rows     [][]cellValue
	Footer   string
}

type cellValue struct {
	Text  string
	Class string
}

func durationText(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return d.Round(100 * time.Millisecond).String()
}

// footer is "12 rows (5 shown) in 3ms".
func footer(c *Cell, shown int) string {
	n := fmt.Sprintf("%d rows", c.RowCount)
	if c.RowCount == 1 {
		n = "1 row"
	}
	if c.CountCapped {
		n = fmt.Sprintf("more than %d rows", c.RowCount)
	}
	if int64(shown) < c.RowCount {
		n += fmt.Sprintf(" (%d shown)", shown)
	}
	return n + " in " + durationText(c.Duration)
}

func shownRows(c *Cell, o CellOptions) [][]any {
	if n := o.RowsShown(); len(c.Rows) > n {
		return c.Rows[:n]
	}
	return c.Rows
}

func viewOf(res *Result) pageView {
	nb := res.Notebook
	v := pageView{Title: nb.Title, Name: nb.Name, Dir: res.Dir, Started: display.Time(res.Started.Truncate(time.Second)),
		Duration: durationText(res.Duration), Failed: res.Failed(), Cells: len(res.Cells)}
	for _, k := range sortedKeys(res.Params) {
		if k == "dir" {
			continue
		}
		v.Params = append(v.Params, paramView{k, res.Params[k]})
	}
	n := 0
	for bi, b := range nb.Blocks {
		if b.Kind == Prose {
			v.Blocks = append(v.Blocks, blockView{Prose: proseHTML(b.Text)})
			continue
		}
		n++
		c := res.cellAt(bi)
		cv := &cellView{ID: fmt.Sprintf("cell-%d", n), Line: b.Line, Title: b.Options.Title, Options: optionsText(b.Options), Source: b.Text}
		if c == nil {
			cv.Err = "not run"
		} else {
			cv.Err, cv.ChartErr, cv.Notes = c.Err, c.ChartErr, c.Notes
			if c.SQL != "" && c.SQL != b.Text {
				cv.Ran = c.SQL
			}
			if c.Err == "" {
				rows := shownRows(c, b.Options)
				cv.Columns = c.Columns
				for _, r := range rows {
					vals := make([]cellValue, len(r))
					for i, x := range r {
						vals[i] = cellValue{Text: display.Text(x)}
						if x == nil {
							vals[i].Class = "null"
						} else if _, ok := display.Numeric(x); ok {
							vals[i].Class = "num"
						}
					}
					cv.Rows = append(cv.Rows, vals)
				}
				cv.Footer = footer(c, len(rows))
				if b.Options.Chart != "" && c.ChartErr == "" {
					ch, err := buildChart(c, b.Options)
					if err != nil {
						cv.ChartErr = err.Error()
					}
					cv.Chart = ch
				}
			}
		}
		v.Blocks = append(v.Blocks, blockView{Cell: cv})
	}
	return v
}

// optionsText describes a cell's chart and limit.
func optionsText(o CellOptions) string {
	var parts []string
	if o.Chart != "" {
		parts = append(parts, "chart="+o.Chart, "x="+o.X, "y="+o.Y)
		if o.Series != "" {
			parts = append(parts, "series="+o.Series)
		}
	}
	if o.Limit > 0 {
		parts = append(parts, fmt.Sprintf("limit=%d", o.Limit))
	}
	return strings.Join(parts, " ")
}

// RenderHTML writes the result as one standalone HTML page: embedded CSS,
// inline SVG charts, no JavaScript.
func RenderHTML(w io.Writer, res *Result) error {
	return pageTemplate.Execute(w, viewOf(res))
}

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="topicsnap notebooks">
<title>{{.Title}}</title>
<style>
:root { --ink: #1d2330; --muted: #5d6475; --line: #d9dde5; --paper: #fbfbf8; --code: #f1f2ee; --accent: #3366cc; --bad: #b3261e; --badbg: #fdecea; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--paper); color: var(--ink); font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 24px 20px 64px; }
header.nb { border-bottom: 1px solid var(--line); margin-bottom: 24px; padding-bottom: 12px; }
header.nb .meta { color: var(--muted); font-size: 13px; margin: 4px 0; }
header.nb dl { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 8px 0 0; font-size: 14px; }
header.nb dt { color: var(--muted); }
header.nb dt::after { content: ":"; }
header.nb dd { margin: 0 0 0 -12px; }
.status { font-size: 13px; padding: 2px 8px; border-radius: 10px; background: #e6f4ea; color: #1e6b34; }
.status.bad { background: var(--badbg); color: var(--bad); }
h1, h2, h3, h4 { line-height: 1.25; margin: 1.4em 0 .5em; }
h1 { font-size: 28px; }
h2 { font-size: 22px; }
p, ul, ol, blockquote { margin: .6em 0; }
blockquote { border-left: 3px solid var(--line); margin-left: 0; padding-left: 14px; color: var(--muted); }
code { font: 13.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 1px 4px; border-radius: 3px; }
pre { background: var(--code); padding: 10px 12px; overflow-x: auto; border-radius: 4px; }
pre code { background: none; padding: 0; }
a { color: var(--accent); }
table { border-collapse: collapse; font-size: 13.5px; margin: 8px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef0f4; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.null { color: #9aa0ad; font-style: italic; }
td.right, th.right { text-align: right; } td.center, th.center { text-align: center; }
.cell { border: 1px solid var(--line); border-radius: 6px; background: #fff; margin: 18px 0; padding: 10px 14px; }
.cell > .caption { font-weight: 600; margin: 0 0 6px; }
.cell details.sql summary { cursor: pointer; color: var(--muted); font-size: 13px; }
.cell pre.sql { margin: 6px 0 10px; font-size: 13px; }
.result { overflow-x: auto; }
.foot { color: var(--muted); font-size: 12.5px; margin: 4px 0 0; }
.warning { background: var(--warnbg, #fff4d6); border-radius: 4px; padding: 8px 12px; }
.error { background: var(--badbg); color: var(--bad); border-radius: 4px; padding: 8px 12px; }
.error pre { background: none; margin: 4px 0 0; padding: 0; white-space: pre-wrap; color: var(--bad); }
.charterr { color: var(--bad); font-size: 13px; }
figure { margin: 6px 0; }
svg.chart { max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
svg.chart .grid { stroke: #e6e8ee; }
svg.chart .axis { stroke: #8a90a0; }
svg.chart text { fill: #4a5060; }
details.data summary { cursor: pointer; color: var(--muted); font-size: 13px; }
</style>
</head>
<body>
<main>
<header class="nb">
<div class="meta">{{.Name}} · run {{.Started}} in {{.Duration}} · {{if .Failed}}<span class="status bad">{{.Failed}} of {{.Cells}} cells failed</span>{{else}}<span class="status">{{.Cells}} cells ran</span>{{end}}</div>
<div class="meta">snapshot folder <code>{{.Dir}}</code></div>
{{if .Params}}<dl>{{range .Params}}<dt>{{.Name}}</dt><dd><code>{{.Value}}</code></dd>{{end}}</dl>{{end}}
</header>
{{range .Blocks}}{{if .Cell}}{{template "cell" .Cell}}{{else}}<section class="prose">
{{.Prose}}</section>
{{end}}{{end}}
</main>
</body>
</html>
{{define "cell"}}<section class="cell" id="{{.ID}}">
{{if .Title}}<p class="caption">{{.Title}}</p>{{end}}
<details class="sql" open><summary>SQL · line {{.Line}}{{if .Options}} · {{.Options}}{{end}}</summary><pre class="sql"><code>{{.Source}}</code></pre>
{{if .Ran}}<details class="sql"><summary>as run, parameters substituted</summary><pre class="sql"><code>{{.Ran}}</code></pre></details>{{end}}</details>
{{if .Err}}<div class="error" role="alert"><strong>This cell failed</strong><pre>{{.Err}}</pre></div>
{{else}}{{range .Notes}}<p class="warning" role="note"><strong>Warning:</strong> {{.}}</p>
{{end}}{{if .Chart}}<figure>{{.Chart}}</figure>
<details class="data"><summary>show data</summary>
<div class="result">{{template "table" .}}</div>
</details>
{{else}}{{if .ChartErr}}<p class="charterr">{{.ChartErr}}</p>{{end}}
<div class="result">{{template "table" .}}</div>
{{end}}<p class="foot">{{.Footer}}</p>
{{end}}</section>
{{end}}
{{define "table"}}<table>
<thead><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Class}} class="{{.Class}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>{{end}}
`

// RenderMarkdown writes the notebook back as Markdown: the front matter with
// the values the run used, the prose as written, and each cell followed by
// a table of its result or its error.
func RenderMarkdown(w io.Writer, res *Result) error {
	nb := res.Notebook
	var b strings.Builder
	b.WriteString("---\n")
	if nb.Title != "" {
		b.WriteString("title: " + frontValue(nb.Title) + "\n")
	}
	for _, k := range sortedKeys(res.Params) {
		if k != "dir" {
			b.WriteString(k + ": " + frontValue(res.Params[k]) + "\n")
		}
	}
	b.WriteString("---\n")
	for bi, blk := range nb.Blocks {
		b.WriteString("\n")
		if blk.Kind == Prose {
			b.WriteString(blk.Text + "\n")
			continue
		}
		fence := "```"
		for strings.Contains(blk.Text, fence) {
			fence += "`"
		}
		info := strings.TrimLeft(blk.Fence, "`~")
		b.WriteString(fence + info + "\n" + blk.Text + "\n" + fence + "\n\n")
		c := res.cellAt(bi)
		switch {
		case c == nil:
			b.WriteString("> **Not run.**\n")
		case c.Err != "":
			b.WriteString("> **Error:** " + strings.ReplaceAll(mdEscape(c.Err, false), "\n", "\n> ") + "\n")
		default:
			for _, n := range c.Notes {
				b.WriteString("> **Warning:** " + mdEscape(n, false) + "\n\n")
			}
			if c.ChartErr != "" {
				b.WriteString("> " + mdEscape(c.ChartErr, false) + "\n\n")
			}
			rows := shownRows(c, blk.Options)
			if len(c.Columns) > 0 {
				b.WriteString("| " + strings.Join(mapStrings(c.Columns, func(s string) string { return mdEscape(s, true) }), " | ") + " |\n")
				b.WriteString("|" + strings.Repeat(" --- |", len(c.Columns)) + "\n")
				for _, r := range rows {
					cells := make([]string, len(r))
					for i, x := range r {
						cells[i] = mdEscape(display.Text(x), true)
					}
					b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
				}
				b.WriteString("\n")
			}
			b.WriteString("*" + footer(c, len(rows)) + "*\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func frontValue(v string) string {
	v = strings.ReplaceAll(v, "\n", " ")
	if v != strings.TrimSpace(v) || strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'") || strings.HasPrefix(v, "#") {
		return `"` + v + `"`
	}
	return v
}

// mdEscape keeps a value from being read as Markdown or HTML; in a table
// cell, | is escaped and lines are joined.
func mdEscape(s string, cell bool) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\\", "\\\\", "`", "\\`", "*", "\\*", "[", "\\[", "]", "\\]")
	s = r.Replace(s)
	if cell {
		s = strings.ReplaceAll(s, "|", `\|`)
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", ""), "\n", " ")
	}
	return s
}

func mapStrings(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
