package queries

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"regexp"
	"strings"

	"github.com/topicsnap/topicsnap/internal/sqllex"
)

// Rows is a running query's result. Close releases its connection.
type Rows struct {
	*sql.Rows
	// Notes are what a caller must show beside the result: today, what a
	// topic_state call cannot know at its time (topicstate.go).
	Notes  []string
	conn   *sql.Conn
	cancel context.CancelFunc
	reset  func()
}

// Close ends the query and frees its connection.
func (r *Rows) Close() error {
	err := r.Rows.Close()
	r.reset()
	r.cancel()
	r.conn.Close()
	return err
}

// ErrNoArrow says this topicsnap was built without the tag duckdb_arrow,
// which duckdb-go's Arrow interface needs: QueryArrow cannot run.
var ErrNoArrow = errors.New("this topicsnap was built without Arrow: build it with go build -tags duckdb_arrow (make build does)")

// ErrTimeout marks a query that ran past the engine's timeout.
var ErrTimeout = errors.New("query ran past its timeout")

// Query runs one query on its own connection. On a locked engine the query
// is checked first (CheckReadOnly) and bounded by the timeout.
func (e *Engine) Query(ctx context.Context, q string, args ...any) (*Rows, error) {
	notes, err := e.topicStateNotes(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The query itself says what is wrong with it, if anything.
		notes = []string{"could not tell what topic_state cannot know at that time: " + CleanError(err).Error()}
	}
	qctx, conn, doc, cancel, err := e.begin(ctx, q)
	if err != nil {
		return nil, err
	}
	rows, reset, err := queryLazy(e, qctx, conn, q, doc, sqlQuery, args...)
	if err != nil {
		err = e.queryError(qctx, err)
		cancel()
		conn.Close()
		return nil, err
	}
	return &Rows{Rows: rows, Notes: notes, conn: conn, cancel: cancel, reset: reset}, nil
}

// begin pins a connection for q, under the timeout on a locked engine, and
// parses q when the guard or the lazy build needs its syntax tree (doc);
// on a locked engine, q must pass the guard. On error, nothing is left
// open.
func (e *Engine) begin(ctx context.Context, q string) (qctx context.Context, conn *sql.Conn, doc *sqlDoc, cancel context.CancelFunc, err error) {
	qctx, cancel = context.WithCancel(ctx)
	if e.opts.Locked && e.opts.Timeout > 0 {
		qctx, cancel = context.WithTimeout(ctx, e.opts.Timeout)
	}
	conn, err = e.db.Conn(qctx)
	if err != nil {
		cancel()
		return nil, nil, nil, nil, fmt.Errorf("connect duckdb: %w", err)
	}
	if e.opts.Locked {
		doc, err = parseSQL(qctx, conn, q)
		if err == nil {
			err = e.guard(qctx, conn, doc)
		}
		if err != nil && doc != nil && doc.Error && doc.Type == "parser" && hasBareOffset(q) {
			err = fmt.Errorf("%w; %s", err, OffsetHint) // the parser's own message has no hint
		}
		if err != nil {
			cancel()
			conn.Close()
			return nil, nil, nil, nil, err
		}
	}
	if e.opts.Lazy && doc == nil {
		doc, _ = parseSQL(qctx, conn, q) // nil builds everything
	}
	return qctx, conn, doc, cancel, nil
}

// A runner runs a statement on a pinned connection and returns its result
// in one form: sql.Rows (sqlQuery), or Arrow record batches (arrow.go).
type runner[T any] func(ctx context.Context, conn *sql.Conn, q string, args ...any) (T, error)

func sqlQuery(ctx context.Context, conn *sql.Conn, q string, args ...any) (*sql.Rows, error) {
	return conn.QueryContext(ctx, q, args...)
}

// queryLazy runs q on conn as queryOn does; a lazy engine first builds what doc
// (the syntax tree of the SELECT that q runs) names, and when q still meets a
// catalog error, everything, and runs q again.
func queryLazy[T any](e *Engine, ctx context.Context, conn *sql.Conn, q string, doc *sqlDoc, run runner[T], args ...any) (T, func(), error) {
	var zero T
	if err := e.ensureFor(ctx, conn, doc); err != nil {
		return zero, func() {}, err
	}
	rows, reset, err := queryOn(e, ctx, conn, q, doc, run, args...)
	if e.opts.Lazy && isCatalogError(err) && !e.isAllBuilt() {
		// The query reached a table its syntax tree did not name.
		if err = e.ensure(ctx, conn, want{all: true}); err == nil {
			rows, reset, err = queryOn(e, ctx, conn, q, doc, run, args...)
		}
	}
	return rows, reset, err
}

// queryOn runs q on conn with the value structures narrowed to the fields q
// reads (narrow.go); reset undoes that once the rows are closed. doc is q's
// syntax tree if the caller has it, else nil.
func queryOn[T any](e *Engine, ctx context.Context, conn *sql.Conn, q string, doc *sqlDoc, run runner[T], args ...any) (T, func(), error) {
	var zero T
	reset := func() {}
	if n := e.narrow(ctx, conn, q, doc); n != nil {
		r, err := setNarrow(ctx, conn, n)
		if err != nil {
			return zero, reset, err
		}
		reset = r
	}
	rows, err := run(ctx, conn, q, args...)
	if err != nil {
		reset()
		return zero, func() {}, err
	}
	return rows, reset, nil
}

func (e *Engine) queryError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w of %s", ErrTimeout, e.opts.Timeout)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isDamagedData(err) {
		return damagedErr(err, "", e.dir.Path)
	}
	err = CleanError(err)
	var se *SQLError
	if errors.As(err, &se) && se.UnknownTable {
		// A topic whose name differs from another's only in case has no
		// view: DuckDB's "does not exist" (and its nearest name, "Did you
		// mean rewrites?") said nothing of why, where the warning that
		// does is not beside it (a notebook's cell, the server's answer).
		if m := unknownTable.FindStringSubmatchIndex(se.Msg); m != nil {
			name := se.Msg[m[2]:m[3]]
			var twin *Topic
			for _, t := range e.Topics() {
				if t.Apart != "" && strings.EqualFold(t.Name, name) && takenName(t.Name) == "" && (twin == nil || t.Name == name) {
					twin = &t
				}
			}
			if twin != nil {
				se.Msg = se.Msg[:m[1]] + ": " + twin.Apart + se.Msg[m[1]:]
				se.Fix = "check NAME --topic " + twin.Name + " reads it alone; in SQL, read_parquet its files (the files table lists them, by topic)"
			}
		}
	}
	return err
}

// unknownTable finds the name in DuckDB's "Table with name X does not
// exist" (written as the query wrote it, without its quotes).
var unknownTable = regexp.MustCompile(`Table with name (.+?) does not exist!?`)

var driverNoise = regexp.MustCompile(`^(?:duckdb: )?(?:[A-Za-z]+ Error: )?`)

// SQLError is DuckDB's message without the driver's wrapping, and a hint
// when the mistake is a known one (Hint, or "").
type SQLError struct {
	Msg, Fix string
	// UnknownTable: the query names a table (a topic's view) that does not
	// exist; DuckDB's message says so and offers the nearest name.
	UnknownTable bool
}

func (e *SQLError) Error() string { return e.Msg }

// ExitCode is exit.UnknownTopic for a table that does not exist (a topic
// misspelt), exit.Error otherwise.
func (e *SQLError) ExitCode() exit.Code {
	if e.UnknownTable {
		return exit.UnknownTopic
	}
	return exit.Error
}

// Hint is the fix of a known mistake, or "".
func (e *SQLError) Hint() string { return e.Fix }

// UnknownTableHint is the fix for a table that does not exist.
const UnknownTableHint = `topicsnap ls --dir DIR (lists the topics); each is a view named after it, and a name with '-' or '.' is quoted ("app-events")`

// CleanError strips driver noise from a DuckDB error.
func CleanError(err error) error {
	if err == nil {
		return nil
	}
	if limit := duckTooManyFiles(err); errors.Is(limit, catalog.ErrTooManyFiles) {
		return limit // the process's limit, not the query's mistake
	}
	if isDamagedData(err) {
		// The folder's fault, not the query's (exit 9, catalog verify).
		return damagedErr(err, "", "")
	}
	if oom := outOfMemory(err); oom != nil {
		// DuckDB's advice is SETs no surface runs: say what the user can do.
		return oom
	}
	msg := strings.TrimSpace(err.Error())
	msg = strings.TrimPrefix(msg, "duckdb: ")
	// DuckDB advises a SET for some limits ("Use \"SET max_expression_depth
	// TO x\" to increase the maximum depth."): no surface of topicsnap runs
	// a SET (the guard takes one SELECT), so the advice is dropped.
	msg = strings.TrimSpace(setAdvice.ReplaceAllString(msg, ""))
	se := &SQLError{Msg: msg, Fix: sqlHint(err, msg)}
	// DuckDB's catalog errors are one type for every kind of name (tables,
	// functions, types, schemas); its message tells a table apart.
	if isCatalogError(err) && strings.Contains(msg, "Table with name ") {
		se.UnknownTable, se.Fix = true, UnknownTableHint
	}
	return se
}

// setAdvice is a sentence of DuckDB's that advises running a SET.
var setAdvice = regexp.MustCompile(`\s*Use "SET [^"]*"[^.\n]*\.?`)

// bareOffset is the column offset written without quotes in the query
// line DuckDB quotes in a parser error: OFFSET is a reserved word there (it
// ends LIMIT n OFFSET m), so `SELECT offset FROM t` is a syntax error.
// OFFSET followed by a number or a parameter is the clause, not the column.
var bareOffset = regexp.MustCompile(`(?i)(^|[^"\w.$])offset\b(\s*($|[^\s\d?$(]))`)

// afterLimit is the text before a LIMIT clause's OFFSET.
var afterLimit = regexp.MustCompile(`(?i)\blimit\s+\S+\s*$`)

// hasBareOffset reports whether q uses offset unquoted, other than as the
// OFFSET of a LIMIT clause.
// Strings, quoted identifiers and comments do not count: they are blanked
// out as DuckDB reads them (internal/sqllex) before the search.
func hasBareOffset(q string) bool {
	toks, _ := sqllex.Tokens(q) // a fragment may leave a quote open: its rest is blanked
	b := []byte(q)
	for _, t := range toks {
		if t.Quoted() || t.Comment() {
			for i := t.Offset; i < t.Offset+len(t.Text); i++ {
				b[i] = ' '
			}
		}
	}
	q = string(b)
	for _, m := range bareOffset.FindAllStringIndex(q, -1) {
		if !afterLimit.MatchString(q[:m[0]+1]) {
			return true
		}
	}
	return false
}

// OffsetHint is the hint of a parser error near an unquoted offset.
const OffsetHint = `offset is a reserved word in DuckDB: write the column in double quotes, "offset" (SELECT "partition", "offset" FROM t)`

// missingField is DuckDB's binder error for a STRUCT field that is not
// there: a JSON topic's value STRUCT holds only the fields its sample of
// values held, so a field outside the sample is one.
var missingField = regexp.MustCompile(`Could not find key "([^"]*)" in struct`)

// fieldHint is the hint of missingField: the name, and the same name in a
// JSON path over the bytes.
const fieldHint = `%s is not a field of the STRUCT: a JSON topic's value holds the fields a sample of its values held (see the candidates); a field outside that sample is still in the bytes: decode(value_raw)->>'$."%s"'`

// sqlHint names the fix of a known mistake: a parser error (DuckDB's
// error type) whose quoted query line uses offset unquoted.
func sqlHint(err error, msg string) string {
	var de *duckdb.Error
	if errors.As(err, &de) && de.Type == duckdb.ErrorTypeBinder {
		if m := missingField.FindStringSubmatch(msg); m != nil {
			return fmt.Sprintf(fieldHint, m[1], strings.ReplaceAll(strings.ReplaceAll(m[1], `"`, `\"`), "'", "''"))
		}
	}
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeParser {
		return ""
	}
	for _, l := range strings.Split(msg, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "LINE "); ok {
			if _, q, ok := strings.Cut(rest, ": "); ok && hasBareOffset(q) {
				return OffsetHint
			}
		}
	}
	return ""
}

// CopyParquet runs the SELECT q and has DuckDB write its result as a
// Parquet file at path. It reads q as Query does (the lazy build, the
// narrowed value), which a COPY statement handed to Query would not: DuckDB's
// serializer knows only SELECT. A locked engine refuses it: COPY writes.
func (e *Engine) CopyParquet(ctx context.Context, q, path string) error {
	if e.opts.Locked {
		return fmt.Errorf("%w: a locked engine does not write files", ErrRefused)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	// What DuckDB cannot serialize (nil, or Error) builds everything and
	// narrows nothing; DuckDB then judges the COPY itself.
	doc, _ := parseSQL(ctx, conn, q)
	// The line break ends a -- comment the statement may end with (sql
	// keeps a statement's comments), which would swallow the parenthesis.
	copySQL := fmt.Sprintf("COPY (%s\n) TO %s (FORMAT parquet, USE_TMP_FILE false)", q, quoteString(path))
	rows, reset, err := queryLazy(e, ctx, conn, copySQL, doc, sqlQuery)
	if err != nil {
		return e.queryError(ctx, err)
	}
	err = rows.Close()
	reset()
	if err != nil {
		return e.queryError(ctx, err)
	}
	return nil
}
