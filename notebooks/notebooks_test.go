package notebooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

func TestParse(t *testing.T) {
	type cell struct {
		line int
		sql  string
		opts CellOptions
	}
	cases := []struct {
		name   string
		src    string
		title  string
		params map[string]string
		cells  []cell
		prose  int
	}{
		{
			name: "front matter, params and options",
			src: "---\ntitle: Lost events\n# a comment\ntopic: app_events\nkey: \"u000001\"\nat: 2026-07-16T11:00:00Z\nempty:\n---\n\n# Heading\n\nSome prose.\n\n" +
				"```sql\nSELECT 1\n```\n\nMore.\n\n```sql chart=bar x=partition y=records limit=5 title=\"Per partition\"\nSELECT 2\n```\n" +
				"~~~sql chart=line x=t y=v series=p\nSELECT 3\n~~~\n",
			title:  "Lost events",
			params: map[string]string{"topic": "app_events", "key": "u000001", "at": "2026-07-16T11:00:00Z", "empty": ""},
			cells: []cell{
				{14, "SELECT 1", CellOptions{}},
				{20, "SELECT 2", CellOptions{Chart: "bar", X: "partition", Y: "records", Limit: 5, Title: "Per partition"}},
				{23, "SELECT 3", CellOptions{Chart: "line", X: "t", Y: "v", Series: "p"}},
			},
			prose: 2,
		},
		{
			name:   "no front matter: title from the first heading",
			src:    "Intro\n\n## Not this\n\n# The title\n\n```SQL\nSELECT 1;\nSELECT 2\n```\n",
			title:  "The title",
			params: map[string]string{},
			cells:  []cell{{7, "SELECT 1;\nSELECT 2", CellOptions{}}},
			prose:  1,
		},
		{
			name:   "other fences are prose, even holding a sql fence",
			src:    "````markdown\n```sql\nSELECT 'not a cell'\n```\n````\n\n```go\nfunc x() {}\n```\n",
			title:  "nb",
			params: map[string]string{},
			prose:  1,
		},
		{
			name:   "a longer fence holds a shorter one; CRLF",
			src:    "````sql\r\nSELECT '```'\r\n```\r\nSELECT 1\r\n````\r\n",
			title:  "nb",
			params: map[string]string{},
			cells:  []cell{{1, "SELECT '```'\n```\nSELECT 1", CellOptions{}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nb, err := Parse("nb.md", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if nb.Title != c.title {
				t.Errorf("title %q, want %q", nb.Title, c.title)
			}
			if !reflect.DeepEqual(nb.Params, c.params) {
				t.Errorf("params %v, want %v", nb.Params, c.params)
			}
			cells := nb.Cells()
			if len(cells) != len(c.cells) {
				t.Fatalf("%d cells, want %d: %+v", len(cells), len(c.cells), nb.Blocks)
			}
			for i, w := range c.cells {
				if cells[i].Line != w.line || cells[i].Text != w.sql || cells[i].Options != w.opts {
					t.Errorf("cell %d: line %d %q %+v, want line %d %q %+v", i, cells[i].Line, cells[i].Text, cells[i].Options, w.line, w.sql, w.opts)
				}
			}
			if got := len(nb.Blocks) - len(cells); got != c.prose {
				t.Errorf("%d prose blocks, want %d", got, c.prose)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"unterminated sql fence", "# T\n\ntext\n\n```sql\nSELECT 1\n\nmore\n", "nb.md:5: sql cell opened here with ``` is never closed"},
		{"unterminated other fence", "```text\nabc\n", "nb.md:1: code block opened here"},
		{"a shorter fence does not close", "````sql\nSELECT 1\n```\n", "nb.md:1: sql cell"},
		{"unterminated front matter", "---\ntopic: x\n\n# T\n", "nb.md:1: front matter opened here is never closed"},
		{"front matter line without colon", "---\ntopic app_events\n---\n", "nb.md:2: front matter: want name: value"},
		{"bad parameter name", "---\n1topic: x\n---\n", "nb.md:2: front matter: \"1topic\" is not a name"},
		{"duplicate parameter", "---\nkey: a\nkey: b\n---\n", "nb.md:3: front matter: parameter key is given twice"},
		{"unknown option", "x\n```sql colour=red\nSELECT 1\n```\n", "nb.md:2: unknown cell option \"colour\""},
		{"chart without y", "```sql chart=bar x=a\nSELECT 1\n```\n", "nb.md:1: chart=bar needs x=COLUMN and y=COLUMN"},
		{"unknown chart", "```sql chart=pie x=a y=b\nSELECT 1\n```\n", "want chart=bar or chart=line"},
		{"x without chart", "```sql x=a\nSELECT 1\n```\n", "add chart=bar or chart=line"},
		{"bad limit", "\n\n```sql limit=0\nSELECT 1\n```\n", "nb.md:3: cell option limit=0"},
		{"option without =", "```sql chart\nSELECT 1\n```\n", "want name=value"},
		{"unclosed quote in options", "```sql title=\"abc\nSELECT 1\n```\n", "double quote is never closed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("nb.md", []byte(c.src))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T, want *ParseError", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestSubstitute(t *testing.T) {
	params := map[string]string{
		"topic":       `we"ird`,
		"other_topic": "readings",
		"key":         `O'Brien'; DROP TABLE files; --`,
		"at":          "2026-07-16T11:00:00Z",
		"multi":       "a\nb */ SELECT 1; /*",
	}
	cases := []struct {
		name, sql, want, err string
	}{
		{"topic is an identifier", `SELECT * FROM {{topic}}`, `SELECT * FROM "we""ird"`, ""},
		{"$all view", `SELECT * FROM {{topic$all}}`, `SELECT * FROM "we""ird$all"`, ""},
		{"*_topic is an identifier", `SELECT * FROM {{other_topic}}`, `SELECT * FROM "readings"`, ""},
		{"others are literals", `WHERE key = {{key}}`, `WHERE key = 'O''Brien''; DROP TABLE files; --'`, ""},
		{"spaces inside braces", `WHERE t >= {{ at }}::TIMESTAMPTZ`, `WHERE t >= '2026-07-16T11:00:00Z'::TIMESTAMPTZ`, ""},
		{"forced literal", `WHERE topic = {{topic|literal}}`, `WHERE topic = 'we"ird'`, ""},
		{"forced identifier", `SELECT {{key|ident}}`, `SELECT "O'Brien'; DROP TABLE files; --"`, ""},
		{"not inside string literals", `SELECT '{{key}}', E'\'{{key}}', {{key}}`, `SELECT '{{key}}', E'\'{{key}}', 'O''Brien''; DROP TABLE files; --'`, ""},
		{"not inside quoted identifiers", `SELECT "{{key}}"`, `SELECT "{{key}}"`, ""},
		{"not inside comments", "-- {{multi}}\n/* /* {{multi}} */ {{multi}} */ SELECT {{at}}", "-- {{multi}}\n/* /* {{multi}} */ {{multi}} */ SELECT '2026-07-16T11:00:00Z'", ""},
		{"not inside dollar quotes", `SELECT $$ {{key}} $$, $x$ {{key}} $x$`, `SELECT $$ {{key}} $$, $x$ {{key}} $x$`, ""},
		{"newlines stay inside the literal", "SELECT {{multi}}", "SELECT 'a\nb */ SELECT 1; /*'", ""},
		{"struct literals are SQL", `SELECT {'a': {'b': 1}}, [{'c': 2}]`, `SELECT {'a': {'b': 1}}, [{'c': 2}]`, ""},
		{"unknown parameter", "SELECT 1\nFROM {{nope}}", "", "line 2 of the cell: {{nope}}: no parameter nope"},
		{"unclosed placeholder", "SELECT {{key", "", "not closed with }}"},
		{"touching a word", "SELECT E{{key}}", "", "touches the word or quote before it"},
		{"touching a quote", "SELECT {{key}}'x'", "", "touches the word or quote after it"},
		{"$all as literal", "SELECT {{topic$all|literal}}", "", "cannot be a literal"},
		{"unknown form", "SELECT {{key|raw}}", "", `unknown form "raw"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Substitute(c.sql, params)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func open(t *testing.T, dir string) *queries.Engine {
	t.Helper()
	e, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustParse(t *testing.T, src string) *Notebook {
	t.Helper()
	nb, err := Parse("test.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

func cellText(c *Cell, row, col int) string {
	if row >= len(c.Rows) || col >= len(c.Rows[row]) {
		return "<none>"
	}
	return display.Text(c.Rows[row][col])
}

const runNotebook = `---
title: Run test
topic: app_events
key: u000001
---

# Run test <script>alert("prose")</script>

Some **bold**, *italic*, ` + "`code`" + ` and a [link](https://example.com) and a [bad one](javascript:alert(1)).

- one
- two

` + "```sql" + `
SELECT "offset", value.event_name AS event_name FROM {{topic}} WHERE "key" = {{key}} ORDER BY "offset"
` + "```" + `

A broken cell:

` + "```sql" + `
SELECT nosuchcolumn FROM {{topic}}
` + "```" + `

Gaps with lead():

` + "```sql" + `
SELECT "partition", "offset", lead("offset") OVER (PARTITION BY "partition" ORDER BY "offset") - "offset" - 1 AS gap
FROM {{topic}} ORDER BY 1, 2
` + "```" + `

` + "```sql chart=bar x=partition y=records" + `
SELECT "partition", count(*) AS records FROM {{topic}} GROUP BY 1 ORDER BY 1
` + "```" + `

` + "```sql chart=line x=as_of y=committed_offset series=partition limit=2" + `
SELECT as_of, "partition", committed_offset FROM group_offsets WHERE group_id = 'writers' ORDER BY 1, 2
` + "```" + `

` + "```sql" + `
SELECT value.event_name AS event_name FROM {{topic}} WHERE value.event_name LIKE '%script%'
` + "```" + `

` + "```sql" + `
SELECT {{missing}}
` + "```" + `
`

func TestRunShowsErrorsInPlaceAndGoesOn(t *testing.T) {
	e := open(t, fixture(t))
	nb := mustParse(t, runNotebook)
	res := Run(context.Background(), e, nb, nil)
	if len(res.Cells) != 7 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	c0 := res.Cells[0]
	if c0.Err != "" || c0.RowCount != 3 || cellText(c0, 2, 0) != "5" || cellText(c0, 2, 1) != "order_placed" {
		t.Errorf("cell 1: %+v", c0)
	}
	if !reflect.DeepEqual(c0.Columns, []string{"offset", "event_name"}) {
		t.Errorf("columns %v", c0.Columns)
	}
	if c0.Duration <= 0 {
		t.Errorf("no duration")
	}
	c1 := res.Cells[1]
	if !strings.Contains(c1.Err, "nosuchcolumn") {
		t.Errorf("broken cell: %q", c1.Err)
	}
	gaps := res.Cells[2]
	if gaps.Err != "" {
		t.Fatal(gaps.Err)
	}
	found := false
	for i := range gaps.Rows {
		if cellText(gaps, i, 0) == "0" && cellText(gaps, i, 1) == "2" {
			found = cellText(gaps, i, 2) == "2"
		}
	}
	if !found {
		t.Errorf("no gap of 2 after partition 0 offset 2: %v", gaps.Rows)
	}
	if c := res.Cells[3]; c.Err != "" || c.ChartErr != "" || c.RowCount != 2 {
		t.Errorf("bar cell: %+v", c)
	}
	if c := res.Cells[4]; c.Err != "" || c.ChartErr != "" || c.RowCount != 9 || len(c.Rows) != 9 {
		t.Errorf("line cell keeps its rows for the chart: %d rows, %d kept, %q %q", c.RowCount, len(c.Rows), c.Err, c.ChartErr)
	}
	if c := res.Cells[6]; !strings.Contains(c.Err, "no parameter missing") || !strings.Contains(c.Err, "line 44:") {
		t.Errorf("missing parameter: %q", c.Err)
	}
	if res.Failed() != 2 {
		t.Errorf("%d failed", res.Failed())
	}
	if res.Params["dir"] != e.Dir() {
		t.Errorf("dir = %q", res.Params["dir"])
	}

	var html bytes.Buffer
	if err := RenderHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, want := range []string{
		"<!DOCTYPE html>", "<style>", "<svg", `role="img"`, "<rect", "<path", "show data",
		"&lt;script&gt;alert(&quot;prose&quot;)&lt;/script&gt;", // prose
		"&lt;script&gt;alert(1)&lt;/script&gt;",                 // data
		"<strong>bold</strong>", "<em>italic</em>", "<code>code</code>", `<a href="https://example.com">link</a>`, `<a href="">bad one</a>`,
		"<li>one</li>", "This cell failed", "nosuchcolumn", "2 of 7 cells failed", "9 rows (2 shown)",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if strings.Contains(h, "<script") || strings.Contains(h, "javascript:") {
		t.Errorf("HTML holds a script")
	}
	if testing.Verbose() {
		os.WriteFile(filepath.Join(os.TempDir(), "notebook-run-test.html"), html.Bytes(), 0o644)
	}

	var md bytes.Buffer
	if err := RenderMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	for _, want := range []string{
		"---\ntitle: Run test\nkey: u000001\ntopic: app_events\n---\n",
		"# Run test <script>alert(\"prose\")</script>", // prose as is
		"| offset | event_name |\n| --- | --- |\n| 0 | app_open |\n",
		"*3 rows in ",
		"> **Error:** ",
		"| &lt;script&gt;alert(1)&lt;/script&gt; |",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, m)
		}
	}
	// The Markdown output is itself a notebook with the same cells.
	again, err := Parse("again.md", md.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Cells()) != len(nb.Cells()) || again.Params["key"] != "u000001" {
		t.Errorf("the Markdown output does not parse back: %d cells", len(again.Cells()))
	}
}

func TestParametersCannotInject(t *testing.T) {
	e := open(t, fixture(t))
	nb := mustParse(t, "---\ntopic: app_events\nkey: x\n---\n\n```sql\nSELECT count(*) AS n FROM {{topic}} WHERE \"key\" = {{key}}\n```\n\n```sql\nSELECT count(*) AS n FROM files\n```\n")
	for _, p := range []map[string]string{
		{"key": `x' OR '1'='1`},
		{"key": `x'; DROP TABLE files; --`},
		{"key": "x' --\n OR true --"},
		{"topic": `app_events" WHERE 1=1; DROP TABLE files; --`},
		{"topic": `app_events"--`},
	} {
		res := Run(context.Background(), e, nb, p)
		c := res.Cells[0]
		if _, isTopic := p["topic"]; isTopic {
			if c.Err == "" || !strings.Contains(c.Err, "does not exist") {
				t.Errorf("%v: %q, want a missing table", p, c.Err)
			}
		} else if c.Err != "" || cellText(c, 0, 0) != "0" {
			t.Errorf("%v: %q %v, want 0 rows matched", p, c.Err, c.Rows)
		}
		if f := res.Cells[1]; f.Err != "" || cellText(f, 0, 0) == "0" {
			t.Errorf("%v: files table damaged: %q %v", p, f.Err, f.Rows)
		}
	}
	// A topic with a double quote in its name is a view name, quoted.
	if got, _ := Substitute("SELECT * FROM {{topic}}", map[string]string{"topic": `a"b`}); got != `SELECT * FROM "a""b"` {
		t.Error(got)
	}
}

func TestChartErrorsShowTheTable(t *testing.T) {
	e := open(t, fixture(t))
	nb := mustParse(t, "```sql chart=bar x=nope y=n\nSELECT 1 AS n\n```\n\n```sql chart=line x=a y=b\nSELECT 'x' AS a, 'not a number' AS b\n```\n\n```sql chart=bar x=a y=b\nSELECT 1 AS a, 2 AS b WHERE false\n```\n")
	res := Run(context.Background(), e, nb, nil)
	if !strings.Contains(res.Cells[0].ChartErr, "x=nope is not a column") {
		t.Errorf("cell 1: %q", res.Cells[0].ChartErr)
	}
	if !strings.Contains(res.Cells[1].ChartErr, "y=b is not a number") {
		t.Errorf("cell 2: %q", res.Cells[1].ChartErr)
	}
	if res.Cells[2].ChartErr != "" || res.Cells[2].Err != "" {
		t.Errorf("empty chart: %+v", res.Cells[2])
	}
	var html bytes.Buffer
	if err := RenderHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	if h := html.String(); !strings.Contains(h, "x=nope is not a column") || strings.Contains(h, "<svg") || !strings.Contains(h, "<td class=\"num\">1</td>") {
		t.Errorf("chart errors not shown with the table:\n%s", h)
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.md", "---\ntitle: Bee\ntopic: t\n---\n```sql\nSELECT 1\n```\n")
	write("a.md", "# Ay\n```sql\nSELECT 1\n```\n")
	write("README.md", "# Notes\n\nno cells here\n````md\n```sql\nSELECT 1\n```\n````\n")
	write("broken.md", "```sql\nSELECT 1\n")
	write("notes.txt", "```sql\nSELECT 1\n```\n")
	os.Mkdir(filepath.Join(dir, "sub.md"), 0o755)
	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, fmt.Sprintf("%s:%s:%d:%v", e.Name, e.Title, e.Cells, e.Err != nil))
	}
	want := []string{"a:Ay:1:false", "b:Bee:1:false", "broken:broken:0:true"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	if _, err := List(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing folder listed")
	}
	// The package's own folder lists exactly the shipped notebooks.
	own, err := List(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(own) != 2 || own[0].Name != "did-kafka-lose-my-event" || own[1].Name != "the-group-that-ate-six-partitions" || own[0].Err != nil || own[1].Err != nil {
		t.Errorf("shipped: %+v", own)
	}
	if s := ListShipped(); len(s) != 2 || s[0].Title != "Did Kafka lose my event?" {
		t.Errorf("embedded: %+v", s)
	}
}

func runShipped(t *testing.T, e *queries.Engine, name string) *Result {
	t.Helper()
	return runShippedWith(t, e, name, nil)
}

// runShippedWith runs a shipped notebook with parameters and fails on any
// cell's error.
func runShippedWith(t *testing.T, e *queries.Engine, name string, params map[string]string) *Result {
	t.Helper()
	nb, err := LoadShipped(name)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := Load(name + ".md")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(nb.Blocks, disk.Blocks) {
		t.Fatalf("the embedded %s differs from the file", name)
	}
	res := Run(context.Background(), e, nb, params)
	for i, c := range res.Cells {
		if c.Err != "" {
			t.Errorf("%s cell %d (line %d): %s\n%s", name, i+1, nb.Blocks[c.Block].Line, c.Err, c.SQL)
		}
		if c.ChartErr != "" {
			t.Errorf("%s cell %d: chart: %s", name, i+1, c.ChartErr)
		}
	}
	var html, md bytes.Buffer
	if err := RenderHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	if err := RenderMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "<svg") {
		t.Errorf("%s: no chart in the HTML", name)
	}
	if testing.Verbose() {
		os.WriteFile(filepath.Join(os.TempDir(), name+".html"), html.Bytes(), 0o644)
		os.WriteFile(filepath.Join(os.TempDir(), name+".out.md"), md.Bytes(), 0o644)
	}
	return res
}

// cellByTitle finds a cell by its title option.
func cellByTitle(t *testing.T, res *Result, title string) *Cell {
	t.Helper()
	for _, c := range res.Cells {
		if res.Notebook.Blocks[c.Block].Options.Title == title {
			return c
		}
	}
	t.Fatalf("no cell titled %q", title)
	return nil
}

// column returns one column of a cell as text, row by row.
func column(t *testing.T, c *Cell, name string) []string {
	t.Helper()
	i := colIndex(c, name)
	if i < 0 {
		t.Fatalf("no column %s in %v", name, c.Columns)
	}
	var out []string
	for _, r := range c.Rows {
		out = append(out, display.Text(r[i]))
	}
	return out
}

func TestShippedNotebooksOnTheFixture(t *testing.T) {
	e := open(t, fixture(t))
	lost := runShipped(t, e, "did-kafka-lose-my-event")
	if got := column(t, cellByTitle(t, lost, "Every record of the key"), "event_name"); !reflect.DeepEqual(got, []string{"app_open", "view_menu", "order_placed"}) {
		t.Errorf("key's records: %v", got)
	}
	around := cellByTitle(t, lost, "The partition around the key's last record")
	if got := column(t, around, "hole"); !reflect.DeepEqual(got, []string{"", "", "HOLE", "", ""}) {
		t.Errorf("holes: %v", got)
	}
	if got := column(t, cellByTitle(t, lost, "Missing offsets per partition"), "missing_offsets"); !reflect.DeepEqual(got, []string{"2", "0"}) {
		t.Errorf("missing offsets: %v", got)
	}
	if got := column(t, cellByTitle(t, lost, "Missing offsets per partition"), "unexplained"); !reflect.DeepEqual(got, []string{"1", "0"}) {
		t.Errorf("unexplained offsets: %v", got)
	}
	if got := column(t, cellByTitle(t, lost, "Event ids stored more than once"), "event_id"); !reflect.DeepEqual(got, []string{"e6"}) {
		t.Errorf("duplicates: %v", got)
	}
	missing := cellByTitle(t, lost, "Orders with no order_completed event")
	if got := fmt.Sprint(column(t, missing, "platform"), column(t, missing, "missing_completed")); got != "[android ios web] [1 1 0]" {
		t.Errorf("missing by platform: %s", got)
	}

	group := runShippedWith(t, e, "the-group-that-ate-six-partitions", map[string]string{"group": "writers", "first_partition": "0", "last_partition": "2"})
	members := cellByTitle(t, group, "Members and client ids per snapshot")
	if got := column(t, members, "client_ids"); len(got) != 3 || !strings.Contains(got[1], "galewatch-watcher-1") || strings.Contains(got[2], "watcher") {
		t.Errorf("members: %v", got)
	}
	lag := cellByTitle(t, group, "Lag in records per partition")
	if got := column(t, lag, "lag_records"); len(got) != 9 || got[0] != "2" {
		t.Errorf("lag: %v", got)
	}
	if got := column(t, lag, "lag_seconds"); got[0] != "10" {
		t.Errorf("lag seconds: %v", got)
	}
	// at = 11:00 is offset 12 of every partition (10 s apart from 10:58);
	// the dump ends at offset 72, the last snapshot (11:10) committed 71 and 70
	// (high watermark 73 on partition 0; 72 on partitions 1 and 2, whose
	// last record is a second or two past 11:10).
	replay := cellByTitle(t, group, "Records a replay from at would re-read")
	if got := fmt.Sprint(column(t, replay, "reset_offset"), column(t, replay, "replay_records")); got != "[12 12 12] [61 61 61]" {
		t.Errorf("replay: %s", got)
	}
	split := cellByTitle(t, group, "Replay split at the committed offset")
	if got := fmt.Sprint(column(t, split, "already_processed"), column(t, split, "not_yet_read")); got != "[59 58 58] [2 3 3]" {
		t.Errorf("split: %s", got)
	}
	if got := column(t, split, "held_by"); got[2] != "galewatch-watcher-1, writer-2" {
		t.Errorf("held by: %v", got)
	}
}

func TestShippedLostEventOnTheTeaShop(t *testing.T) {
	dir, data := seededFixture(t, 400)
	e := open(t, dir)
	res := runShipped(t, e, "did-kafka-lose-my-event")
	tr := data.Truth
	mine := cellByTitle(t, res, "Every record of the key")
	if got := column(t, mine, "event_name"); !reflect.DeepEqual(got, []string{"app_open", "view_menu", "add_to_cart", "order_placed"}) {
		t.Errorf("Mia's records: %v", got)
	}
	for _, p := range column(t, mine, "partition") {
		if p != fmt.Sprint(tr.MiaPartition) {
			t.Errorf("Mia on partition %s, want %d", p, tr.MiaPartition)
		}
	}
	if got := column(t, cellByTitle(t, res, "The partition around the key's last record"), "hole"); strings.Contains(strings.Join(got, ""), "HOLE") {
		t.Errorf("a hole next to Mia: %v", got)
	}
	for _, m := range column(t, cellByTitle(t, res, "Missing offsets per partition"), "unexplained") {
		if m != "0" {
			t.Errorf("missing offsets %s", m)
		}
	}
	copies := cellByTitle(t, res, "How many copies")
	if got := column(t, copies, "extra_copies")[0]; got != fmt.Sprint(tr.ExtraCopies) {
		t.Errorf("extra copies %s, want %d", got, tr.ExtraCopies)
	}
	if c := cellByTitle(t, res, "Event ids stored more than once"); c.RowCount != int64(tr.DuplicateIDs) {
		t.Errorf("%d duplicate ids, want %d", c.RowCount, tr.DuplicateIDs)
	}
	missing := cellByTitle(t, res, "Orders with no order_completed event")
	plat, n := column(t, missing, "platform"), column(t, missing, "missing_completed")
	total := 0
	for i := range plat {
		if n[i] != fmt.Sprint(tr.MissingByPlatform[plat[i]]) {
			t.Errorf("%s: %s missing, want %d", plat[i], n[i], tr.MissingByPlatform[plat[i]])
		}
		fmt.Sscan(n[i], new(int))
		var k int
		fmt.Sscan(n[i], &k)
		total += k
	}
	if total != tr.OrdersMissingCompleted || plat[0] != "ios" {
		t.Errorf("missing %d (first %s), want %d led by ios", total, plat[0], tr.OrdersMissingCompleted)
	}
}

func TestProseHTML(t *testing.T) {
	cases := []struct{ md, want string }{
		{"# Title *x*", `<h1 id="title-x">Title <em>x</em></h1>`},
		{"a snake_case_name and __init__ stay", "<p>a snake_case_name and <strong>init</strong> stay</p>"},
		{"**bold** _it_ `a<b>` \\*lit\\*", "<p><strong>bold</strong> <em>it</em> <code>a&lt;b&gt;</code> *lit*</p>"},
		{"<b>raw & html</b>", "<p>&lt;b&gt;raw &amp; html&lt;/b&gt;</p>"},
		{"[ok](https://x.test/?a=1&b=\"2\") [no](javascript:alert(1)) [rel](other.md#top)",
			`<p><a href="https://x.test/?a=1&amp;b=%222%22">ok</a> <a href="">no</a> <a href="other.md#top">rel</a></p>`},
		{"- one\n- two\n  - nested\n- three", "<ul>\n<li>one</li>\n<li>two\n<ul>\n<li>nested</li>\n</ul>\n</li>\n<li>three</li>\n</ul>"},
		{"3. c\n4. d", "<ol start=\"3\">\n<li>c</li>\n<li>d</li>\n</ol>"},
		{"> quoted\n> more", "<blockquote>\n<p>quoted\nmore</p>\n</blockquote>"},
		{"| a | b |\n|---|--:|\n| `x\\|y` | 2 |", "<table class=\"md\">\n<thead>\n<tr>\n<th>a</th>\n<th class=\"right\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td><code>x|y</code></td>\n<td class=\"right\">2</td>\n</tr>\n</tbody>\n</table>"},
		{"<script>alert(1)</script>\n\ntext <img src=x onerror=alert(1)>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n<p>text &lt;img src=x onerror=alert(1)&gt;</p>"},
		{"![x](javascript:alert(1)) [d](data:text/html,x)", `<p><img src="" alt="x"> <a href="">d</a></p>`},
		{"```text\n<script>\n```", "<pre><code class=\"language-text\">&lt;script&gt;\n</code></pre>"},
		{"para\n\n---\n", "<p>para</p>\n<hr>"},
		{"para\n---\n", "<h2 id=\"para\">para</h2>"},
		{"an *unclosed emphasis and 2 * 3", "<p>an *unclosed emphasis and 2 * 3</p>"},
	}
	for _, c := range cases {
		if got := strings.TrimSpace(string(proseHTML(c.md))); got != c.want {
			t.Errorf("%q\n got %s\nwant %s", c.md, got, c.want)
		}
	}
}

// TestListStaysInside: List and ReadFile read only regular files inside
// the folder, of at most MaxFileBytes; a link to /dev/zero, a link out of
// the folder and a pipe are left out without being read (none blocks).
func TestListStaysInside(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.md")
	write := func(path, src string) {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "# Outside\n```sql\nSELECT 1\n```\n")
	write(filepath.Join(dir, "a.md"), "# Ay\n```sql\nSELECT 1\n```\n")
	write(filepath.Join(dir, "big.md"), "# Big\n```sql\nSELECT 1\n```\n"+strings.Repeat("x", MaxFileBytes))
	for name, target := range map[string]string{"zero.md": "/dev/zero", "out.md": outside, "up.md": "../" + filepath.Base(dir) + "/a.md", "in.md": "a.md"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var got []Entry
	var err error
	go func() {
		defer close(done)
		got, err = List(dir)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("List did not return: it is reading something that does not end")
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if want := []string{"a", "in"}; !reflect.DeepEqual(names, want) {
		t.Errorf("listed %v, want %v", names, want)
	}
	cases := []struct {
		name string
		want error // nil: read
	}{
		{"a.md", nil},
		{"in.md", nil},
		{"zero.md", nil}, // some error: the link leads out
		{"out.md", nil},
		{"up.md", nil},
		{"pipe.md", ErrNotRegular},
		{"big.md", ErrTooLarge},
		{"../" + filepath.Base(outside), nil},
	}
	for _, c := range cases {
		b, err := ReadFile(dir, c.name)
		switch {
		case c.name == "a.md" || c.name == "in.md":
			if err != nil || !strings.Contains(string(b), "# Ay") {
				t.Errorf("ReadFile %s: %v", c.name, err)
			}
		case c.want != nil:
			if !errors.Is(err, c.want) {
				t.Errorf("ReadFile %s: %v, want %v", c.name, err, c.want)
			}
		default:
			if err == nil {
				t.Errorf("ReadFile %s: read %d bytes, want an error", c.name, len(b))
			}
		}
	}
}

// TestListerReadsOnlyChanged: a Lister reads a file again only when it
// changed.
func TestListerReadsOnlyChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.md")
	if err := os.WriteFile(path, []byte("# One\n```sql\nSELECT 1\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var l Lister
	first, err := l.List(dir)
	if err != nil || len(first) != 1 || first[0].Title != "One" {
		t.Fatalf("%+v %v", first, err)
	}
	// Change the text but not the size, the time or the inode: a listing
	// that does not read the file again still says One.
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# Uno\n```sql\nSELECT 1\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if again, _ := l.List(dir); len(again) != 1 || again[0].Title != "One" {
		t.Errorf("unchanged file read again: %+v", again)
	}
	// Listing another folder in between does not make it forget.
	l.List(t.TempDir())
	if again, _ := l.List(dir); len(again) != 1 || again[0].Title != "One" {
		t.Errorf("unchanged file read again after listing another folder: %+v", again)
	}
	if err := os.WriteFile(path, []byte("# Two, longer\n```sql\nSELECT 1\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, _ := l.List(dir)
	if len(changed) != 1 || changed[0].Title != "Two, longer" {
		t.Errorf("changed file: %+v", changed)
	}
}

// TestShippedGroupNotebookOnTheIncident: the wind farm notebook, on the
// incident folder `demo --scenario windfarm` writes, runs green with its
// defaults and gives check reset's answer: the same records by the same
// members.
func TestShippedGroupNotebookOnTheIncident(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1); err != nil {
		t.Fatal(err)
	}
	e := open(t, dir)
	res := runShipped(t, e, "the-group-that-ate-six-partitions")
	r, err := e.RunCheck(context.Background(), "reset", queries.CheckOptions{Topic: "readings", Group: seeds.IncidentGroup,
		ToTime: seeds.DayResetTo, Partitions: seeds.DayWatchedPartitions})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, row := range r.Rows {
		if row.Get("kind") == "member" {
			want = append(want, fmt.Sprintf("%v=%v", row.Get("client_id"), row.Get("records")))
		}
	}
	cell := cellByTitle(t, res, "Re-read records by the member that had committed them")
	who, n := column(t, cell, "committed_by"), column(t, cell, "records")
	var got []string
	for i := range who {
		got = append(got, who[i]+"="+n[i])
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != 4 {
		t.Fatalf("notebook %v, check reset %v", got, want)
	}
	held := column(t, cellByTitle(t, res, "Members that held the reset partitions, and for how long"), "client_id")
	if strings.Join(held, " ") != "galewatch-writer-1 galewatch-writer-2 galewatch-watcher-1 galewatch-watcher-2" {
		t.Fatalf("members that held 0-5: %v", held)
	}
}

// A cell shows a header's value as its text when it is UTF-8 (the pages
// and the CLI's text formats agree), \xHH escapes when it is not, and
// NULL as NULL.
func TestFormatValueHeaders(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{[]any{map[string]any{"key": "content-type", "value": []byte("application/json")}}, `[{"key":"content-type","value":"application/json"}]`},
		{[]any{map[string]any{"key": "raw", "value": []byte{0xff, 0}}}, `[{"key":"raw","value":"\\xFF\\x00"}]`},
		{map[string]any{"key": "k", "value": nil}, `{"key":"k","value":null}`},
		{nil, "NULL"},
		{[]byte("é"), `\xC3\xA9`},
	}
	for _, c := range cases {
		if got := display.Text(c.v); got != c.want {
			t.Errorf("display.Text(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// TestLoadRefusesWhatIsNotANotebookFile: `notebook run FILE` reads FILE
// as List does, bounded and without waiting. Load read it whole with
// os.ReadFile: a FIFO hung the command (deaf to Ctrl-C), /dev/zero (or a
// notebook.md linked to it in a folder handed over) grew until the
// process died of memory.
func TestLoadRefusesWhatIsNotANotebookFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.md")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.md")
	if err := os.WriteFile(big, []byte("```sql\nSELECT 1\n```\n"+strings.Repeat("x", MaxFileBytes)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want error
	}{{fifo, ErrNotRegular}, {zero, ErrNotRegular}, {big, ErrTooLarge}} {
		done := make(chan error, 1)
		go func() { _, err := Load(c.path); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, c.want) {
				t.Errorf("Load(%s) = %v; want %v", filepath.Base(c.path), err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Load(%s) blocked", filepath.Base(c.path))
		}
	}
	ok := filepath.Join(dir, "ok.md")
	if err := os.WriteFile(ok, []byte("# ok\n\n```sql\nSELECT 1\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if nb, err := Load(ok); err != nil || len(nb.Cells()) != 1 {
		t.Fatalf("Load(ok.md) = %v; want one cell", err)
	}
}

// TestCellUUID: a UUID in a cell is its text, as in sql and on the
// server; it showed as \xHH escapes (the 16 bytes duckdb-go scans), and
// the Markdown and HTML renderings with them.
func TestCellUUID(t *testing.T) {
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	e := open(t, fixture(t))
	res := Run(context.Background(), e, mustParse(t, "# u\n\n```sql\nSELECT UUID '"+u+"' AS u\n```\n"), nil)
	if c := res.Cells[0]; c.Err != "" || cellText(c, 0, 0) != u {
		t.Fatalf("cell: %q %q", c.Err, cellText(c, 0, 0))
	}
	var md, html bytes.Buffer
	if err := RenderMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if err := RenderHTML(&html, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), u) || !strings.Contains(html.String(), u) {
		t.Errorf("no %s in the rendering:\n%s", u, md.String())
	}
}

// TestCellTyped: a cell reads a value as every surface does
// (display.Typed at any depth): a TIME was 0001-01-01 12:00:00Z, a TIMETZ
// lost its offset, 'infinity'::TIMESTAMP was 294247-01-10, a UUID inside
// a LIST or STRUCT was 16 bytes, a TIMESTAMP_NS lost its nanoseconds.
func TestCellTyped(t *testing.T) {
	const u = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	e := open(t, fixture(t))
	cases := []struct{ expr, want string }{
		{"TIME '12:00'", "12:00:00"},
		{"TIMETZ '12:00:00+01'", "12:00:00+01"},
		{"'infinity'::TIMESTAMP", "infinity"},
		{"DATE '2026-12-07'", "2026-12-07"}, // was 2026-12-07 00:00:00Z
		{"{'d': DATE '2026-12-07'}", `{"d":"2026-12-07"}`},
		{"TIMESTAMP_NS '2020-01-01 00:00:00.123456789'", "2020-01-01 00:00:00.123456789Z"},
		{"[UUID '" + u + "']", `["` + u + `"]`},
		{"{'id': UUID '" + u + "'}", `{"id":"` + u + `"}`},
		{"MAP {'a': 'nan'::DOUBLE}", `{"a":"NaN"}`},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			res := Run(context.Background(), e, mustParse(t, "# t\n\n```sql\nSELECT "+c.expr+" AS v\n```\n"), nil)
			cell := res.Cells[0]
			if cell.Err != "" || cellText(cell, 0, 0) != c.want {
				t.Fatalf("cell: %q %q, want %q", cell.Err, cellText(cell, 0, 0), c.want)
			}
			var html bytes.Buffer
			if err := RenderHTML(&html, res); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(html.String(), "0001-01-01") {
				t.Errorf("a time of day read as a date in the page")
			}
		})
	}
}

// TestProseIsBounded: prose nested past the bounds is shown as text, at
// once. goldmark took 25 s on quotes nested 200,000 deep and 54 s on
// lists nested 2,000 deep (a notebook under the 4 MiB cap), with no way to
// stop it: `notebook run --out x.html` and the server's notebook page
// stalled on a folder's notebook.
func TestProseIsBounded(t *testing.T) {
	var list strings.Builder
	for i := range 2000 {
		list.WriteString(strings.Repeat("  ", i) + "- x\n")
	}
	cases := []struct{ name, md, why string }{
		{"quotes", strings.Repeat(">", 200_000) + " <x>", "quote and list markers"},
		{"lists", list.String(), "quote and list markers"},
		{"brackets", strings.Repeat("[", 2_000_000), "more than 10000 ["},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			got := string(proseHTML(c.md))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s", d)
			}
			if !strings.Contains(got, "shown as text") || !strings.Contains(got, c.why) || strings.Contains(got, "<blockquote>") || strings.Contains(got, "<x>") {
				t.Errorf("%.300s", got)
			}
		})
	}
	// Ordinary nesting still renders.
	if got := string(proseHTML(strings.Repeat("> ", 20) + "deep enough\n\n" + "- a\n  - b\n    - c")); !strings.Contains(got, "<blockquote>") || !strings.Contains(got, "<li>c</li>") {
		t.Errorf("ordinary nesting: %s", got)
	}
}
