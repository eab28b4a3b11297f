package queries

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/topicsnap/topicsnap/internal/display"
)

// Formats a result can be written in.
var Formats = []string{"table", "csv", "json", "jsonl", "markdown", "line"}

// WriteOptions shape a written result.
type WriteOptions struct {
	Format   string
	Width    int // terminal width for table; 0 is unlimited
	MaxRows  int // table and markdown: rows shown; 0 is 1000. Streaming formats write all.
	MaxCell  int // table: longest cell before it is cut visibly; 0 is 60
	Duration time.Duration
}

// Stats of a written result.
type Stats struct {
	Rows    int64
	Columns []string
}

// WriteRows writes rows in the chosen format, streaming where the format
// allows (csv, json, jsonl, line), and closes rows.
func WriteRows(ctx context.Context, w io.Writer, rows *sql.Rows, o WriteOptions) (Stats, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Stats{}, err
	}
	types := make([]string, len(cols))
	if cts, err := rows.ColumnTypes(); err == nil {
		for i, ct := range cts {
			types[i] = ct.DatabaseTypeName()
		}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return writeResult(w, cols, vals, func() (bool, error) {
		if !rows.Next() {
			return false, rows.Err()
		}
		if err := rows.Scan(ptrs...); err != nil {
			return false, err
		}
		for i := range vals {
			vals[i] = display.Typed(types[i], vals[i])
		}
		return true, nil
	}, o)
}

// WriteValues writes rows already read (a remote engine's result, see
// Engine.QueryRemote) as WriteRows writes DuckDB's.
func WriteValues(w io.Writer, cols []string, rows [][]any, o WriteOptions) (Stats, error) {
	vals := make([]any, len(cols))
	i := 0
	return writeResult(w, cols, vals, func() (bool, error) {
		if i >= len(rows) {
			return false, nil
		}
		copy(vals, rows[i])
		i++
		return true, nil
	}, o)
}

// writeResult writes the rows read, each into vals, in o's format.
func writeResult(w io.Writer, cols []string, vals []any, read func() (bool, error), o WriteOptions) (Stats, error) {
	st := Stats{Columns: cols}
	// Column names are a statement's text: shown as a value is, so an
	// escape sequence in an alias is not a terminal's instruction.
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = display.String(c)
	}
	next := func() (bool, error) {
		ok, err := read()
		if err != nil || !ok {
			return false, err
		}
		st.Rows++
		return true, nil
	}
	switch o.Format {
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write(cols)
		rec := make([]string, len(cols))
		for {
			ok, err := next()
			if err != nil || !ok {
				cw.Flush()
				return st, firstErr(err, cw.Error())
			}
			for i, v := range vals {
				rec[i] = display.Field(v)
			}
			cw.Write(rec)
		}
	case "json", "jsonl":
		if o.Format == "json" {
			io.WriteString(w, "[")
		}
		for {
			ok, err := next()
			if err != nil {
				return st, err
			}
			if !ok {
				break
			}
			obj := display.Object{Keys: cols, Vals: make([]any, len(cols))}
			for i, v := range vals {
				obj.Vals[i] = display.JSON(v)
			}
			b, err := json.Marshal(obj)
			if err != nil {
				return st, err
			}
			if o.Format == "json" {
				if st.Rows > 1 {
					io.WriteString(w, ",\n")
				} else {
					io.WriteString(w, "\n")
				}
				w.Write(b)
			} else {
				w.Write(append(b, '\n'))
			}
		}
		if o.Format == "json" {
			io.WriteString(w, "\n]\n")
		}
		return st, nil
	case "line":
		width := 0
		for _, c := range names {
			width = max(width, len(c))
		}
		for {
			ok, err := next()
			if err != nil || !ok {
				return st, err
			}
			if st.Rows > 1 {
				io.WriteString(w, "\n")
			}
			for i, v := range vals {
				// NULL is shown as NULL: a null key and an empty key differ.
				fmt.Fprintf(w, "%*s = %s\n", width, names[i], display.Text(v))
			}
		}
	case "table", "markdown", "":
		limit := o.MaxRows
		if limit <= 0 {
			limit = 1000
		}
		var cells [][]string
		for {
			ok, err := next()
			if err != nil {
				return st, err
			}
			if !ok {
				break
			}
			if len(cells) < limit {
				row := make([]string, len(cols))
				for i, v := range vals {
					row[i] = display.Text(v)
				}
				cells = append(cells, row)
			}
		}
		shown := len(cols)
		if o.Format == "markdown" {
			writeMarkdown(w, names, cells)
		} else {
			shown = writeTable(w, names, cells, o)
		}
		footer := fmt.Sprintf("%d rows", st.Rows)
		if st.Rows == 1 {
			footer = "1 row"
		}
		if int64(len(cells)) < st.Rows {
			footer += fmt.Sprintf(" (%d shown)", len(cells))
		}
		if shown < len(cols) {
			footer += fmt.Sprintf(", %d columns (%d shown)", len(cols), shown)
		}
		if o.Duration > 0 {
			footer += fmt.Sprintf(" in %s", o.Duration.Round(time.Millisecond))
		}
		if o.Format != "markdown" {
			fmt.Fprintln(w, footer)
		}
		return st, nil
	}
	return st, fmt.Errorf("unknown format %q: use one of %s", o.Format, strings.Join(Formats, ", "))
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// cut makes s one line at most n columns wide on a terminal (a wide
// character takes two, go-runewidth says which), marked with … when cut.
func cut(s string, n int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\n", "\\n"), "\t", " ")
	if runewidth.StringWidth(s) <= n {
		return s
	}
	return runewidth.Truncate(s, max(n, 1), "…")
}

// writeTable draws cells as a box table and returns how many columns it
// showed. With a width, it fits it as the DuckDB CLI does: wide columns
// are cut (visibly, with …) down to minCol characters when that makes all
// fit; else columns are dropped from the middle, a … column marking where,
// and the footer says how many are shown.
func writeTable(w io.Writer, cols []string, cells [][]string, o WriteOptions) int {
	maxCell := o.MaxCell
	if maxCell <= 0 {
		maxCell = 60
	}
	widths := make([]int, len(cols))
	for i, c := range cols {
		widths[i] = runewidth.StringWidth(c)
	}
	for _, r := range cells {
		for i := range r {
			r[i] = cut(r[i], maxCell)
			widths[i] = max(widths[i], runewidth.StringWidth(r[i]))
		}
	}
	show := fitColumns(widths, o.Width)
	var shownW []int
	for _, i := range show {
		if i < 0 {
			shownW = append(shownW, 1)
		} else {
			shownW = append(shownW, widths[i])
		}
	}
	line := func(l, m, r string) {
		var b strings.Builder
		b.WriteString(l)
		for i, wd := range shownW {
			if i > 0 {
				b.WriteString(m)
			}
			b.WriteString(strings.Repeat("─", wd+2))
		}
		b.WriteString(r + "\n")
		io.WriteString(w, b.String())
	}
	row := func(vals []string) {
		var b strings.Builder
		b.WriteString("│")
		for k, i := range show {
			v := "…"
			if i >= 0 {
				v = cut(vals[i], widths[i])
			}
			b.WriteString(" " + v + strings.Repeat(" ", shownW[k]-runewidth.StringWidth(v)) + " │")
		}
		b.WriteString("\n")
		io.WriteString(w, b.String())
	}
	line("┌", "┬", "┐")
	row(cols)
	line("├", "┼", "┤")
	for _, r := range cells {
		row(r)
	}
	line("└", "┴", "┘")
	n := 0
	for _, i := range show {
		if i >= 0 {
			n++
		}
	}
	return n
}

// minCol is the narrowest a column is cut to before columns are dropped.
const minCol = 16

// fitColumns chooses the columns of a table width characters wide (0: all)
// and narrows widths in place: the indexes shown, in order, with -1 for
// the … column standing for those dropped from the middle.
func fitColumns(widths []int, width int) []int {
	all := make([]int, len(widths))
	for i := range all {
		all[i] = i
	}
	if width <= 0 || total(widths) <= width {
		return all
	}
	// Cut the widest columns, down to minCol each, if that makes all fit;
	// if not, columns are dropped and those shown keep their widths.
	natural := slices.Clone(widths)
	for total(widths) > width {
		wi := 0
		for i := range widths {
			if widths[i] > widths[wi] {
				wi = i
			}
		}
		if widths[wi] <= minCol {
			break
		}
		widths[wi]--
	}
	if total(widths) <= width {
		return all
	}
	copy(widths, natural)
	// Drop columns from the middle until the rest and the … column fit;
	// the first and the last stay longest.
	kept := all
	for len(kept) > 1 {
		mid := len(kept) / 2
		kept = append(kept[:mid:mid], kept[mid+1:]...)
		if shownTotal(widths, kept)+4 <= width {
			break
		}
	}
	// The … column goes where the dropped columns were.
	gap := len(kept)
	for k := range kept {
		if kept[k] != k {
			gap = k
			break
		}
	}
	out := append(append(append([]int{}, kept[:gap]...), -1), kept[gap:]...)
	// One column left and still too wide: cut it to fit.
	if over := shownTotal(widths, kept) + 4 - width; over > 0 && len(kept) == 1 {
		widths[kept[0]] = max(widths[kept[0]]-over, 1)
	}
	return out
}

func total(widths []int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

func shownTotal(widths []int, idx []int) int {
	n := 1
	for _, i := range idx {
		n += widths[i] + 3
	}
	return n
}

func writeMarkdown(w io.Writer, cols []string, cells [][]string) {
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	fmt.Fprintf(w, "| %s |\n", strings.Join(mapStr(cols, esc), " | "))
	seps := make([]string, len(cols))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
	for _, r := range cells {
		fmt.Fprintf(w, "| %s |\n", strings.Join(mapStr(r, esc), " | "))
	}
}

func mapStr(xs []string, f func(string) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
