package queries

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

//go:embed sql/*.sql
var sqlFS embed.FS

// sqlTemplates are DuckDB's statements, each file parsed the first time
// it is rendered: a one-shot command renders a few of the 70 files, and
// parsing them all cost every process's start-up ~2 ms.
var sqlTemplates = newTemplateCache(func(name string) (string, error) {
	if strings.Count(name, ".") > 1 {
		return "", fs.ErrNotExist // NAME.DIALECT.sql: another engine's variant (remote.go)
	}
	b, err := sqlFS.ReadFile("sql/" + name)
	if err != nil {
		return "", err
	}
	return stripComments(string(b)), nil
})

// templateCache parses a statement's template once, when first asked.
type templateCache struct {
	text   func(name string) (string, error)
	mu     sync.Mutex
	parsed map[string]*template.Template
}

func newTemplateCache(text func(name string) (string, error)) *templateCache {
	return &templateCache{text: text, parsed: map[string]*template.Template{}}
}

// lookup is the parsed template of file name (NAME.sql), nil when there
// is none. A file that does not parse is a bug of this package's: it
// panics, and TestEverySQLFileParses fails first.
func (c *templateCache) lookup(name string) *template.Template {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.parsed[name]; ok {
		return t
	}
	text, err := c.text(name)
	if errors.Is(err, fs.ErrNotExist) {
		c.parsed[name] = nil
		return nil
	}
	if err != nil {
		panic(err)
	}
	t := template.Must(template.New(name).Option("missingkey=error").Parse(text))
	c.parsed[name] = t
	return t
}

// sqlData fills a check's SQL template. Every field is either a quoted
// identifier or DuckDB's own rendering of a parsed expression (Engine.Expr).
type sqlData struct {
	T, All string
	// Alias is the topic's bare quoted name, for a subquery the user's
	// expressions read as the topic (T is schema-qualified on DuckDB).
	Alias                         string
	ID, By, Expr, Time, EventTime string
	// NoTimestamp: the dialect's test of a record timestamp of -1
	// (Kafka's "no timestamp"), for order_keys.sql.
	NoTimestamp            string
	Match, Where, Expected string
	// OpenFiles and MarkerFiles are read_parquet's lists of the files that
	// hold records of transactions left open in them and of those that
	// hold markers (open_txn_files.sql).
	OpenFiles, MarkerFiles string
	Args                   []string // a remote dialect's literals of $1, $2...
	// RowID: ID is the default id of duplicates, the key and value bytes
	// together (a row of two BLOBs), which a dialect may show its own way.
	RowID bool
	// IDType: on a remote, DuckDB's type name of ID (exprType), for a
	// statement that shows the id as DuckDB's text of it.
	IDType string
	// ByText, MatchText, ExprText: on a remote, its expression of
	// DuckDB's text of By, Match, Expr (remoteText).
	ByText, MatchText, ExprText string
	// Records: every stored row of every topic (lag_at.sql); Log: the
	// folder holds __consumer_offsets.
	Records string
	Log     bool
	// Parts: how many shuffle partitions a remote's statement spreads
	// every record of the topic over to sort them (sortParts).
	Parts int
	// Topic is the topic T and All are the views of; CommittedRecords, a
	// remote's relation of the records at the offsets a group committed
	// (remoteCommittedRecords), set by runRemote.
	Topic, CommittedRecords string
}

// recordsPerSortPart is how many records a remote's sort task takes
// (order.spark.sql, duplicates.spark.sql): ~40 MB of rows of a short key, well inside the
// ~200 MiB a task gets of a 1 GiB Spark driver, so no task spills.
const recordsPerSortPart = 500_000

// sortParts is the shuffle partitions for sorting every record of a topic
// on a remote: one per recordsPerSortPart records, at least one.
func sortParts(records int64) int {
	return int(max(1, (records+recordsPerSortPart-1)/recordsPerSortPart))
}

// stripComments drops the lines of a check's SQL that are only a comment.
func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func render(name string, d sqlData) (string, error) {
	var b bytes.Buffer
	t := sqlTemplates.lookup(name + ".sql")
	if t == nil {
		return "", fmt.Errorf("render %s: no such statement", name)
	}
	if err := t.Execute(&b, d); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// queryRows runs a rendered check statement and returns ordered rows. The
// statement is parsed whole and judged by the guard (guard.go) first, on
// every engine: a check runs one read-only SELECT over the topic views and
// catalog tables, whatever its options said.
func (e *Engine) queryRows(ctx context.Context, q string, args ...any) ([]Row, error) {
	if e.opts.Remote != nil {
		if len(args) > 0 {
			return nil, fmt.Errorf("a statement with arguments on %s: render it from a file (run)", e.opts.Remote.Dialect())
		}
		return e.queryRemote(ctx, q)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	doc, err := parseSQL(ctx, conn, q)
	if err != nil {
		return nil, err
	}
	if err := e.guard(ctx, conn, doc); err != nil {
		return nil, fmt.Errorf("check statement: %w", err)
	}
	rows, reset, err := queryLazy(e, ctx, conn, q, doc, sqlQuery, args...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, CleanError(err)
	}
	defer reset()
	return scanRows(rows)
}

// queryFiles runs a statement of topicsnap's own that reads the folder's
// data files by path (read_parquet of paths the manifests list, quoted):
// no user text is in it, and the guard refuses every table function a
// user's statement could name, so it is not judged by the guard.
func (e *Engine) queryFiles(ctx context.Context, q string) ([]Row, error) {
	rows, err := e.db.QueryContext(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, damagedErr(CleanError(err), "", e.dir.Path)
	}
	return scanRows(rows)
}

// scanRows reads rows into Rows, each value as display.Typed gives it,
// and closes them.
func scanRows(rows *sql.Rows) ([]Row, error) {
	defer rows.Close()
	cols, _ := rows.Columns()
	types := make([]string, len(cols))
	if cts, err := rows.ColumnTypes(); err == nil {
		for i, ct := range cts {
			types[i] = ct.DatabaseTypeName()
		}
	}
	var out []Row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := NewRow()
		for i, c := range cols {
			r.Set(c, display.Typed(types[i], vals[i]))
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

func (e *Engine) run(ctx context.Context, name string, d sqlData, args ...any) ([]Row, error) {
	if e.opts.Remote != nil {
		return e.runRemote(ctx, name, d, args)
	}
	q, err := render(name, d.local())
	if err != nil {
		return nil, err
	}
	return e.queryRows(ctx, q, args...)
}

// A stmt is one statement of a check: its name, data and arguments, as
// Engine.run takes them.
type stmt struct {
	name string
	d    sqlData
	args []any
}

// runAll runs statements of one check that do not depend on each other and
// returns their rows in the order given. On a remote engine (Spark Connect)
// they run together: each is two round trips, a plan and a job of its own
// on the server, mostly waiting, and a check's small statements over the
// catalog tables then cost no more than its largest. The embedded DuckDB
// runs them one after the other, each on every core. The error is the
// first statement's that failed, in the order given; the others are
// stopped.
func (e *Engine) runAll(ctx context.Context, ss ...stmt) ([][]Row, error) {
	out := make([][]Row, len(ss))
	if e.opts.Remote == nil || len(ss) < 2 {
		for i, s := range ss {
			rows, err := e.run(ctx, s.name, s.d, s.args...)
			if err != nil {
				return nil, err
			}
			out[i] = rows
		}
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = e.run(ctx, s.name, s.d, s.args...)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The first failure in the given order, not one the cancel caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// local names the topic's views by their schema (main."d"): a check's
// statement has CTEs of short names (d, s, t, p, cut, parts, ranges, ...),
// and a topic of the same name was read as the CTE, not its view (check
// freshness on a topic named d: 'Referenced column "timestamp" not found').
// Alias keeps the bare name, for a subquery named as the topic.
func (d sqlData) local() sqlData { return d.in("main.") }

// viewSchemas are the prefixes that name a session's views in a remote
// dialect, past any CTE of the same name: Spark's temporary views are
// system.session."d" (a bare "d" in a statement with a CTE d was the CTE:
// check keys on a topic named d failed with key_raw cannot be resolved).
var viewSchemas = map[string]string{"spark": "system.session."}

// in names the topic's views under schema (main., system.session.).
func (d sqlData) in(schema string) sqlData {
	if d.T != "" {
		d.T = schema + d.T
	}
	if d.All != "" {
		d.All = schema + d.All
	}
	return d
}

// noTimestamp is the dialect's test of a record timestamp of -1, Kafka's
// "no timestamp" (the view reads it as 1969-12-31 23:59:59.999): a time no
// check may take for the record's.
func (e *Engine) noTimestamp() string {
	if e.opts.Remote != nil {
		return `unix_millis("timestamp") = -1`
	}
	return `epoch_ms("timestamp") = -1`
}

func views(topic string) sqlData {
	return sqlData{Topic: topic, T: quoteIdent(topic), All: quoteIdent(topic + "$all"), Alias: quoteIdent(topic)}
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	case interface{ Int64() int64 }:
		return x.Int64()
	}
	return 0
}

func asFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case nil:
		return 0
	case interface{ Float64() (float64, error) }:
		f, _ := x.Float64()
		return f
	}
	return float64(asInt(v))
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// duckDBFloatText is DuckDB's text of a DOUBLE (bits 64) or FLOAT (32),
// f::VARCHAR: the shortest digits that read back, written plainly (with
// at least one decimal) for exponents -4 to 15 and as 1.5e+16 or 1e-05
// past them; nan, inf, -inf. Spark's CAST wrote 1.2345678E7 for DuckDB's
// 12345678.0 (TestDuckDBFloatText holds it to DuckDB's own cast).
func duckDBFloatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, bits) // -1.2345e+07
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// humanSeconds says a duration the way a person would.
func humanSeconds(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f seconds", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f minutes", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f hours", s/3600)
	}
	return fmt.Sprintf("%.1f days", s/86400)
}

// plural writes a count with its noun, the count with thousands
// separators (18,000 late records), as the tables write counts.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return display.Number(float64(n)) + " " + many
}

func rowsTable(title string, rows []Row) Table {
	t := Table{Title: title}
	if len(rows) > 0 {
		t.Columns = rows[0].Keys
	}
	for _, r := range rows {
		var vals []any
		for _, k := range t.Columns {
			vals = append(vals, r.Get(k))
		}
		t.Rows = append(t.Rows, vals)
	}
	return t
}

// timeStep chooses the bucket that keeps a chart of the topic's time span
// under 240 points.
func (e *Engine) timeStep(ctx context.Context, d sqlData) (time.Duration, error) {
	const maxPoints = 240
	d.NoTimestamp = e.noTimestamp()
	rows, err := e.run(ctx, "time_span", d)
	if err != nil || len(rows) == 0 {
		return time.Minute, err
	}
	lo, ok1 := rows[0].Get("first_ts").(time.Time)
	hi, ok2 := rows[0].Get("last_ts").(time.Time)
	if !ok1 || !ok2 {
		return time.Minute, nil
	}
	minutes := math.Ceil(hi.Sub(lo).Minutes() / maxPoints)
	for _, step := range []float64{1, 5, 10, 15, 30, 60, 120, 360, 720, 1440, 10080} {
		if minutes <= step {
			return time.Duration(step) * time.Minute, nil
		}
	}
	return time.Duration(minutes) * time.Minute, nil
}

// chart runs a series query (rows of series, t, v) over buckets of step.
func (e *Engine) chart(ctx context.Context, name, sqlName string, d sqlData, step time.Duration) (Chart, error) {
	rows, err := e.run(ctx, sqlName, d, int64(step/time.Second))
	if err != nil {
		return Chart{}, err
	}
	c := Chart{Name: name, Step: step}
	idx := map[string]int{}
	for _, r := range rows {
		n := display.Text(r.Get("series"))
		i, ok := idx[n]
		if !ok {
			i = len(c.Series)
			idx[n] = i
			c.Series = append(c.Series, Series{Name: n})
		}
		t, _ := r.Get("t").(time.Time)
		c.Series[i].Points = append(c.Series[i].Points, Point{T: t, V: asFloat(r.Get("v"))})
	}
	return c, nil
}
