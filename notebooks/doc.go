// Package notebooks runs investigation notebooks against a snapshot folder
// and renders what they found as a standalone HTML page or as Markdown.
//
// A notebook is a Markdown file. Its prose tells the story of an
// investigation; its ```sql blocks are cells, run in order against the
// DuckDB views of one snapshot folder (see package queries). This comment is
// the reference for the format.
//
// # A notebook
//
//	---
//	title: Did Kafka lose my event?
//	topic: app_events
//	key: u000001
//	---
//
//	# Did Kafka lose my event?
//
//	Every record of the key, in the order they arrived:
//
//	```sql limit=50
//	SELECT "partition", "offset", value.event_name AS event_name, "timestamp"
//	FROM {{topic}}
//	WHERE "key" = {{key}}
//	ORDER BY "timestamp"
//	```
//
//	Records per partition:
//
//	```sql chart=bar x=partition y=records
//	SELECT "partition", count(*) AS records FROM {{topic}} GROUP BY 1 ORDER BY 1
//	```
//
// # Front matter
//
// An optional block between two lines of exactly "---" at the very top of
// the file. Each line is "name: value" (a value may be wrapped in double or
// single quotes, which are removed; blank lines and lines starting with #
// are skipped; nothing is nested). The name title is the notebook's title;
// every other name declares a parameter with its default value. Names are
// letters, digits and underscores, not starting with a digit. Without a
// title, the first "# heading" of the prose is the title, or else the file
// name.
//
// Parameters are overridden at run time by the map given to [Run]. The
// parameter dir is reserved: [Run]
// always sets it to the snapshot folder's absolute path, so a cell can read
// a file shipped beside the dump, as in read_csv({{dir}} || '/orders.csv').
//
// # Parameters in cells
//
// A cell names a parameter as {{name}} (prose is shown as written: only
// cells are substituted). Parameters are never pasted into the
// SQL as raw text; each becomes one complete, quoted SQL token:
//
//   - {{topic}}, and any parameter whose name ends in _topic, becomes a
//     quoted identifier: "app_events" (a " in the value is doubled), so it
//     can only ever name a view.
//   - {{topic$all}} becomes the quoted identifier of the topic's $all view
//     (control markers and aborted records included): "app_events$all".
//   - Every other parameter becomes a string literal: 'u000001' (a ' in the
//     value is doubled). Cast it where a type is needed:
//     "timestamp" >= {{at}}::TIMESTAMPTZ.
//   - {{name|ident}} and {{name|literal}} force either form, e.g.
//     WHERE topic = {{topic|literal}} against the catalog tables.
//
// So do not put quotes around a placeholder yourself: '{{key}}' is a
// placeholder inside a string literal, and placeholders are replaced only
// in SQL code, never inside string literals, quoted identifiers, dollar
// quotes or comments (read as DuckDB reads them, E'...' escapes and nested
// /* */ included: internal/sqllex), where they stay as written; a quote
// or comment left open runs to the end of the cell, and DuckDB names it
// when the cell runs. A placeholder may not
// touch a word or a quote (E{{key}}, {{key}}'x'): put a space or an
// operator between them. A placeholder naming a parameter that has no
// value, or a malformed one ({{ key }), is an error shown in that cell.
//
// # Cells and their options
//
// A cell is a fenced code block whose info string starts with sql (``` or
// ~~~, three or more, closed by the same fence at least as long). Other
// fenced blocks are prose and shown as code. Options follow sql as
// name=value words (a value with spaces in double quotes):
//
//   - limit=N: rows shown in the result table (default 200). The row count
//     still counts every row.
//   - chart=bar x=COL y=COL [series=COL]: an inline SVG bar chart of the
//     numeric column y for each value of x, in the order of the rows; with
//     series, grouped bars, one colour per series value. Rows with the same
//     x (and series) are added up.
//   - chart=line x=COL y=COL [series=COL]: an inline SVG line chart; x may be
//     a time or a number (a true scale) or anything else (evenly spaced in
//     row order); series draws one line per value.
//   - title="...": a caption for the cell.
//
// A chart keeps its data: the HTML page puts the table under the chart in a
// "show data" element, and the Markdown output shows the table. An unknown
// option, a chart without x or y, or x, y or series without chart is a
// parse error naming the line. A chart whose columns are missing from the
// result, or whose y is not a number, shows that error and the table.
//
// # Running and rendering
//
// [Parse] reads a notebook (errors name the file and line). [Run] runs its
// cells in order on an engine: each cell gets its columns, its first rows,
// its row count and its duration, or its error message, shown in place of
// the result; the cells after a failed one still run. Values are written
// by internal/display (as the command line's tables write them) and charts
// drawn by internal/chart's XY (as the server's pages draw theirs).
// [RenderHTML] writes
// one standalone page (CSS embedded, no JavaScript, everything escaped by
// html/template; prose is CommonMark with GitHub's tables, rendered by
// goldmark with raw HTML shown as text and dangerous links dropped, see
// markdown.go).
// [RenderMarkdown] writes the notebook back with each cell followed by a
// Markdown table of its result or its error. [List] finds the notebooks
// (*.md files with at least one sql cell) in folders.
//
// Two notebooks ship with topicsnap, in this folder and embedded as
// [Shipped]: did-kafka-lose-my-event.md and
// the-group-that-ate-six-partitions.md.
package notebooks
