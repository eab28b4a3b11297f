package notebooks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/internal/sqllex"
	"github.com/topicsnap/topicsnap/queries"
)

// countCap is how far a cell counts rows past those it keeps.
const countCap = 1_000_000

// Result is a notebook run against one snapshot folder.
type Result struct {
	Notebook *Notebook
	// Params are the values the cells saw: the front matter's defaults,
	// the overrides, and dir.
	Params   map[string]string
	Dir      string
	Started  time.Time
	Duration time.Duration
	// Cells holds one result per sql cell, in order.
	Cells []*Cell
}

// Cell is the result of one sql cell.
type Cell struct {
	// Block is the cell's index in Notebook.Blocks.
	Block int
	// SQL is the statement as run, placeholders substituted.
	SQL     string
	Columns []string
	Types   []string // DuckDB's type names
	// Rows are the first rows: up to the cell's limit, or up to
	// ChartMaxRows for a chart.
	Rows [][]any
	// RowCount counts every row of the result, up to a million; past that
	// CountCapped is set and RowCount is a lower bound.
	RowCount    int64
	CountCapped bool
	Duration    time.Duration
	// Err is the error shown in place of the result; empty on success.
	Err string
	// ErrKind says what kind of error Err is (ErrTimeout, ErrCancelled,
	// ErrRefused, ErrParams, ErrSQL), so callers need not read its text.
	ErrKind ErrKind
	// ChartErr is why the chart could not be drawn (the table is shown).
	ChartErr string
	// Notes are what must be read with the result (queries.Rows.Notes:
	// what a topic_state call cannot know at its time).
	Notes []string
}

// Failed counts the cells that ended in an error.
func (r *Result) Failed() int {
	n := 0
	for _, c := range r.Cells {
		if c.Err != "" {
			n++
		}
	}
	return n
}

// cellAt returns the result of the cell at block index b.
func (r *Result) cellAt(b int) *Cell {
	for _, c := range r.Cells {
		if c.Block == b {
			return c
		}
	}
	return nil
}

// Run runs the notebook's cells in order. params override the front
// matter's defaults; dir is always the engine's snapshot folder. A failing
// cell records its error and the next cells still run.
func Run(ctx context.Context, eng *queries.Engine, nb *Notebook, params map[string]string) *Result {
	res := &Result{Notebook: nb, Params: map[string]string{}, Dir: eng.Dir(), Started: time.Now()}
	for k, v := range nb.Params {
		res.Params[k] = v
	}
	for k, v := range params {
		res.Params[k] = v
	}
	res.Params["dir"] = eng.Dir()
	for bi, b := range nb.Blocks {
		if b.Kind != SQL {
			continue
		}
		c := &Cell{Block: bi}
		res.Cells = append(res.Cells, c)
		if err := ctx.Err(); err != nil {
			c.Err, c.ErrKind = "not run: "+err.Error(), kindOf(err)
			continue
		}
		q, err := Substitute(b.Text, res.Params)
		if err != nil {
			if se, ok := err.(*SubstError); ok {
				c.Err = fmt.Sprintf("line %d: %s", b.Line+se.Line, se.Msg)
			} else {
				c.Err, c.ErrKind = err.Error(), kindOf(err)
			}
			c.ErrKind = ErrParams
			continue
		}
		c.SQL = q
		if sqllex.OnlyComments(q) {
			c.Err, c.ErrKind = "the cell is empty", ErrSQL
			continue
		}
		runCell(ctx, eng, c, b.Options)
	}
	res.Duration = time.Since(res.Started)
	return res
}

func runCell(ctx context.Context, eng *queries.Engine, c *Cell, o CellOptions) {
	start := time.Now()
	defer func() { c.Duration = time.Since(start) }()
	rows, err := eng.Query(ctx, c.SQL)
	if err != nil {
		c.fail(err, err)
		return
	}
	defer rows.Close()
	c.Notes = rows.Notes
	cols, err := rows.Columns()
	if err != nil {
		c.fail(err, err)
		return
	}
	c.Columns = cols
	if cts, err := rows.ColumnTypes(); err == nil {
		for _, ct := range cts {
			c.Types = append(c.Types, ct.DatabaseTypeName())
		}
	}
	keep := o.RowsShown()
	if o.Chart != "" {
		keep = max(keep, ChartMaxRows)
	}
	for rows.Next() {
		if c.RowCount >= int64(keep)+countCap {
			c.CountCapped = true
			break
		}
		c.RowCount++
		if len(c.Rows) >= keep {
			continue
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			c.fail(err, queries.CleanError(err))
			return
		}
		for i := range vals {
			if i < len(c.Types) {
				vals[i] = display.Typed(c.Types[i], vals[i])
			}
		}
		c.Rows = append(c.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		c.fail(err, queries.CleanError(err))
		return
	}
	if o.Chart != "" {
		if _, err := buildChart(c, o); err != nil {
			c.ChartErr = err.Error()
		}
	}
}

// fail sets the cell's error: its text, with the fix the CLI gives where
// the user can act on it (a query out of memory: make it smaller), and its
// kind. shown is err as said (queries.CleanError of a driver's error, or
// err itself): the kind is err's (a timeout, a cancel) or else shown's.
func (c *Cell) fail(err, shown error) {
	c.Err, c.ErrKind = shown.Error(), kindOf(err)
	if c.ErrKind == ErrSQL {
		c.ErrKind = kindOf(shown)
	}
	if c.ErrKind == ErrMemory {
		c.Err += ": " + queries.ErrOutOfMemory.Hint()
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrKind is the kind of a cell's error.
type ErrKind string

// The kinds of cell error.
const (
	ErrTimeout   ErrKind = "timeout"   // the cell or the notebook ran past its time
	ErrCancelled ErrKind = "cancelled" // the run was stopped
	ErrRefused   ErrKind = "refused"   // a locked engine would not run the statement
	ErrParams    ErrKind = "params"    // a placeholder could not be filled
	ErrSQL       ErrKind = "sql"       // DuckDB's own error: the cell's SQL
	ErrMemory    ErrKind = "memory"    // the query ran out of memory (queries.ErrOutOfMemory)
)

// kindOf tells an error's kind from its type, never its text.
func kindOf(err error) ErrKind {
	switch {
	case errors.Is(err, queries.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return ErrTimeout
	case errors.Is(err, context.Canceled):
		return ErrCancelled
	case errors.Is(err, queries.ErrRefused):
		return ErrRefused
	case errors.Is(err, queries.ErrOutOfMemory):
		return ErrMemory
	}
	return ErrSQL
}

// Transient tells whether the cell failed for want of time, which a later
// run may not repeat.
func (c *Cell) Transient() bool { return c.ErrKind == ErrTimeout || c.ErrKind == ErrCancelled }
