package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/catalog"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/ergochat/readline"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/internal/sqllex"
	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).sqlCmd) }

type sqlOptions struct {
	dir    string
	query  string
	file   string
	format string
	engine engineOptions
	// command: -c was given (its text may be empty).
	command bool
}

func (a *app) sqlCmd() *cobra.Command {
	o := &sqlOptions{}
	cmd := &cobra.Command{
		Use:   "sql [--dir DIR] [-c SQL | -f FILE | < FILE]",
		Short: "Query snapshots with SQL: a REPL, or one statement with -c",
		Long: `sql opens the snapshot folder as an in-memory DuckDB: every topic is a view named
after it ("shop.events-v2"), with "<topic>$all" holding control markers and aborted
records too, and the catalog tables ` + strings.Join(queries.CatalogTables(), ", ") + `.
A folder holding a dump of __consumer_offsets also has the views ` + strings.Join(queries.LogViews(), ", ") + `.

Without -c or -f, and with a terminal, it opens a REPL (.help lists its commands).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("command") && cmd.Flags().Changed("file") {
				return usagef("-c and -f both give the SQL to run: use one of them")
			}
			if !contains(append(queries.Formats, "parquet"), o.format) {
				return usagef("--format %q: use one of %s, parquet", o.format, strings.Join(queries.Formats, ", "))
			}
			o.command = cmd.Flags().Changed("command")
			return a.runSQL(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	cmd.Flags().StringVarP(&o.query, "command", "c", "", "run this SQL and exit")
	cmd.Flags().StringVarP(&o.file, "file", "f", "", "run the SQL in this file and exit")
	cmd.Flags().StringVar(&o.format, "format", "table", "output: table, csv, json, jsonl, markdown, line, parquet")
	addEngineFlags(cmd.Flags(), &o.engine)
	return cmd
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (a *app) runSQL(ctx context.Context, o *sqlOptions) error {
	text := o.query
	switch {
	case o.file != "":
		b, err := safefile.ReadNamed(ctx, o.file, safefile.MaxText)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("read -f %s: %w", o.file, err)
			}
			return usagef("read -f %s: %v", o.file, err)
		}
		text = string(b)
	case o.command:
	case !isTerminal(a.stdout) || !isTerminalReader(a.stdin):
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	// The REPL is for a terminal without -c or -f. SQL given that holds
	// nothing (-c "$EMPTY", an empty file or pipe) opened it instead: its
	// banner on stdout, exit 0, as if a query had run.
	if o.command || o.file != "" || !isTerminal(a.stdout) || !isTerminalReader(a.stdin) {
		if strings.TrimSpace(text) == "" {
			switch {
			case o.command:
				return usagef("-c is empty: give the SQL to run (or no -c, on a terminal, for the REPL)")
			case o.file != "":
				return usagef("-f %s holds no SQL", o.file)
			}
			return usagef("no SQL to run: stdin held none (give it with -c, -f or on stdin; on a terminal, no SQL opens the REPL)")
		}
	}
	// One-shot SQL builds only the views and tables it names (the start-up
	// is most of a short query's time); the REPL, and a script with dot
	// commands, build all, for .tables, .schema and completion.
	remote, err := o.engine.open(ctx)
	if err != nil {
		return err
	}
	if remote != nil {
		defer remote.Close()
		if text == "" {
			return usagef("--engine spark runs one statement: give it with -c, -f or on stdin (the REPL is DuckDB's)")
		}
		if o.format == "parquet" {
			return usagef("--engine spark: --format parquet is DuckDB's; use csv, json, jsonl, table, markdown or line")
		}
	}
	local, err := a.localDir(ctx, o.dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	rdir, err := a.remoteDir(ctx, remote, o.dir)
	if err != nil {
		return fmt.Errorf("open %s on spark: %w", o.dir, err)
	}
	lazy := text != "" && remote == nil && !hasDotCommand(text)
	var topics []string
	if lazy {
		// A one-shot query about one topic of a folder of thousands reads
		// that topic's manifests only (topicsNamed).
		if d, err := catalog.OpenAt(ctx, local, catalog.S3Config{}); err == nil {
			if names, err := d.Topics(ctx); err == nil {
				topics = topicsNamed(text, names)
			}
		}
	}
	eng, err := queries.Open(ctx, local, queries.Options{FolderName: o.dir, Lazy: lazy, Topics: topics, Remote: remote, RemoteDir: rdir})
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	defer eng.Close()
	a.warnProblems(eng)
	if remote != nil {
		stmts, serr := splitStatements(text, 1)
		for _, stmt := range stmts {
			cols, rows, err := eng.QueryRemote(ctx, stmt)
			if err != nil {
				return fmt.Errorf("run query on spark: %w", err)
			}
			bw := bufio.NewWriterSize(a.stdout, 1<<16)
			_, err = queries.WriteValues(bw, cols, rows, queries.WriteOptions{Format: o.format})
			if ferr := bw.Flush(); err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
		}
		return serr
	}
	s := &sqlSession{a: a, eng: eng, format: o.format, out: a.stdout}
	defer s.closeOutput()
	if text == "" {
		s.timer = true
		return a.repl(ctx, s)
	}
	err = s.script(ctx, text)
	a.warnProblems(eng)
	return err
}

// sqlSession is what the REPL and a script share: the output format and
// file, the timer, and the dot commands that set them.
type sqlSession struct {
	a       *app
	eng     *queries.Engine
	format  string
	timer   bool
	out     io.Writer
	outFile *os.File
	repl    bool // run statements so that Ctrl-C cancels only them
}

func (s *sqlSession) closeOutput() {
	if s.outFile != nil {
		s.outFile.Close()
		s.outFile = nil
	}
	s.out = s.a.stdout
}

// script runs text as the REPL would read it, line by line: a line that
// starts with a dot between statements is a dot command, the rest are
// statements ending with ';' (the last one may lack it). It stops at the
// first error.
func (s *sqlSession) script(ctx context.Context, text string) error {
	var buf strings.Builder
	first := 1 // the line buf starts at
	for i, line := range strings.Split(text, "\n") {
		if isDotCommand(buf.String(), line) {
			quit, err := s.dot(ctx, line)
			if err != nil || quit {
				return err
			}
			first = i + 2
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if sqllex.Complete(buf.String()) {
			if err := s.runAll(ctx, buf.String(), first); err != nil {
				return err
			}
			buf.Reset()
			first = i + 2
		}
	}
	return s.runAll(ctx, buf.String(), first)
}

// runAll runs the statements of text, which starts at line first.
func (s *sqlSession) runAll(ctx context.Context, text string, first int) error {
	stmts, serr := splitStatements(text, first)
	for _, st := range stmts {
		if err := s.run(ctx, st); err != nil {
			return err
		}
	}
	return serr
}

// run runs one statement; in the REPL, so that Ctrl-C cancels it and keeps
// the session.
func (s *sqlSession) run(ctx context.Context, stmt string) error {
	if !s.repl {
		return s.a.runOne(ctx, s.eng, stmt, s.format, s.out, s.timer)
	}
	qctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	err := s.a.runOne(qctx, s.eng, stmt, s.format, s.out, s.timer)
	if err != nil && qctx.Err() != nil && ctx.Err() == nil {
		return errCancelled
	}
	return err
}

var errCancelled = errors.New("cancelled")

// isDotCommand reports whether line, read after the text pending, is a dot
// command: it starts with a dot and no statement is under way.
func isDotCommand(pending, line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), ".") && sqllex.OnlyComments(pending)
}

func hasDotCommand(text string) bool {
	var buf strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if isDotCommand(buf.String(), line) {
			return true
		}
		buf.WriteString(line + "\n")
		if sqllex.Complete(buf.String()) {
			buf.Reset()
		}
	}
	return false
}

// dot runs a dot command; quit reports .quit.
func (s *sqlSession) dot(ctx context.Context, line string) (quit bool, err error) {
	trimmed := strings.TrimSpace(line)
	fields := strings.Fields(trimmed)
	arg := strings.TrimSpace(strings.TrimPrefix(trimmed, fields[0]))
	w := s.a.stdout
	switch fields[0] {
	case ".quit", ".exit":
		return true, nil
	case ".help":
		fmt.Fprintln(w, replHelp)
	case ".tables":
		return false, s.a.runOne(ctx, s.eng, `SELECT table_name AS name, table_type AS kind FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1`, "table", s.out, false)
	case ".schema":
		return false, s.schema(ctx, arg)
	case ".mode":
		if arg == "" {
			fmt.Fprintf(s.out, "current output mode: %s\n", s.format)
			return false, nil
		}
		if !contains(queries.Formats, arg) {
			return false, usagef(".mode %q: use one of %s", arg, strings.Join(queries.Formats, ", "))
		}
		s.format = arg
	case ".timer":
		switch arg {
		case "on", "off":
			s.timer = arg == "on"
		case "":
			fmt.Fprintf(s.out, "timer: %s\n", map[bool]string{true: "on", false: "off"}[s.timer])
		default:
			return false, usagef(".timer %q: use on or off", arg)
		}
	case ".output":
		s.closeOutput()
		if arg != "" {
			f, err := os.Create(arg)
			if err != nil {
				return false, usagef(".output: %v", err)
			}
			s.outFile, s.out = f, f
		}
	case ".read":
		b, err := safefile.ReadNamed(ctx, arg, safefile.MaxText)
		if err != nil {
			if ctx.Err() != nil {
				return false, fmt.Errorf(".read %s: %w", arg, err)
			}
			return false, usagef(".read: %v", err)
		}
		return false, s.script(ctx, string(b))
	case ".refresh":
		changed, err := s.eng.Refresh(ctx)
		if err != nil {
			return false, err
		}
		if changed {
			fmt.Fprintln(w, "refreshed: new snapshots are visible")
		} else {
			fmt.Fprintln(w, "nothing new")
		}
	default:
		return false, usagef("unknown command %s (.help lists them)", fields[0])
	}
	return false, nil
}

// schema writes the columns of one view or table (or of all) with their
// whole types, a STRUCT's every field included: one line each, never cut.
func (s *sqlSession) schema(ctx context.Context, name string) error {
	q := `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = 'main' AND (? = '' OR table_name = ?) ORDER BY table_name, ordinal_position`
	rows, err := s.eng.DB().QueryContext(ctx, q, name, name)
	if err != nil {
		return fmt.Errorf("read the schema: %w", queries.CleanError(err))
	}
	defer rows.Close()
	type col struct{ table, name, typ string }
	var cols []col
	width := 0
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.table, &c.name, &c.typ); err != nil {
			return fmt.Errorf("read the schema: %w", err)
		}
		cols = append(cols, c)
		width = max(width, len(c.name))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the schema: %w", queries.CleanError(err))
	}
	if len(cols) == 0 && name != "" {
		return usagef(".schema %s: no view or table of that name (.tables lists them)", name)
	}
	bw := bufio.NewWriter(s.out)
	for i, c := range cols {
		if name == "" && (i == 0 || cols[i-1].table != c.table) {
			if i > 0 {
				bw.WriteString("\n")
			}
			fmt.Fprintf(bw, "%s\n", c.table)
		}
		indent := ""
		if name == "" {
			indent = "  "
		}
		fmt.Fprintf(bw, "%s%-*s  %s\n", indent, width, c.name, c.typ)
	}
	return bw.Flush()
}

func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// splitStatements splits SQL into statements as DuckDB reads it
// (internal/sqllex); line is the number of text's first line in what the
// user gave. Text that leaves a string, identifier, dollar quote or comment
// open returns the statements before it and an error naming what is open
// and where, so nothing after it is run as a statement of its own.
func splitStatements(text string, line int) ([]string, error) {
	stmts, err := sqllex.Split(text)
	var ue *sqllex.UnterminatedError
	if errors.As(err, &ue) {
		ue.Line += line - 1
		return stmts, &queries.SQLError{Msg: ue.Error(), Fix: "close it: a quote inside a string is written twice ('it''s'), a comment /* ... */ ends with */"}
	}
	return stmts, err
}

// runOne runs one statement and writes its result.
func (a *app) runOne(ctx context.Context, eng *queries.Engine, stmt, format string, w io.Writer, timer bool) error {
	start := time.Now()
	if format == "parquet" {
		f, ok := w.(*os.File)
		if !ok {
			return usagef("--format parquet writes to a file: redirect stdout")
		}
		// DuckDB writes the file itself, to the same descriptor.
		if err := eng.CopyParquet(ctx, stmt, fmt.Sprintf("/dev/fd/%d", f.Fd())); err != nil {
			return err
		}
		return nil
	}
	rows, err := eng.Query(ctx, stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	wo := queries.WriteOptions{Format: format, Width: tableWidth(w)}
	if timer {
		wo.Duration = time.Since(start)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	_, err = queries.WriteRows(ctx, bw, rows.Rows, wo)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return queries.CleanError(err)
	}
	for _, n := range rows.Notes {
		fmt.Fprintf(a.stderr, "warning: %s\n", n)
	}
	return nil
}

// tableWidth is the width tables fit: the terminal's when w is one (80
// when it does not say its size); a pipe or a file has no width, and gets
// every column (0), nothing cut but cells over WriteOptions.MaxCell.
func tableWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
		return 80
	}
	return 0
}

const replHelp = `.tables               list views and tables
.schema [NAME]        show columns of NAME (or of every view)
.mode [FORMAT]        table, csv, json, jsonl, markdown, line (none: show it)
.timer [on|off]       show how long each statement took
.output [FILE]        write results to FILE (no FILE: back to the terminal)
.read FILE            run the statements in FILE
.refresh              pick up new snapshots
.help                 this text
.quit                 leave (or Ctrl-D)
Statements end with ';'. Ctrl-C cancels a running query.
Dot commands work in -c, -f and stdin too, on lines of their own.`

func (a *app) repl(ctx context.Context, s *sqlSession) error {
	// Ctrl-C during a query reaches main's context too; the session must
	// outlive it: each query gets its own interrupt (sqlSession.run), the
	// session ends with Ctrl-D or .quit.
	ctx = context.WithoutCancel(ctx)
	s.repl = true
	home, _ := os.UserHomeDir()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          "topicsnap> ",
		HistoryFile:     filepath.Join(home, ".topicsnap_history"),
		AutoComplete:    &completer{ctx: ctx, eng: s.eng},
		InterruptPrompt: "^C",
		EOFPrompt:       ".quit",
		// A statement of several lines is one history entry (historyEntry),
		// saved when it is complete, not each of its lines.
		DisableAutoSaveHistory: true,
		Stdin:                  io.NopCloser(a.stdin),
		Stdout:                 a.stdout,
		Stderr:                 a.stderr,
	})
	if err != nil {
		return fmt.Errorf("start the REPL: %w", err)
	}
	defer rl.Close()
	topics := "topics"
	if len(s.eng.Topics()) == 1 {
		topics = "topic"
	}
	fmt.Fprintf(a.stdout, "topicsnap sql on %s: %d %s. .help for commands, Ctrl-D to leave.\n", s.eng.Dir(), len(s.eng.Topics()), topics)
	report := func(err error) {
		var se *queries.SQLError
		switch {
		case err == nil:
		case errors.Is(err, errCancelled):
			fmt.Fprintln(a.stderr, "cancelled")
		case errors.As(err, &se) && se.Fix != "":
			fmt.Fprintf(a.stderr, "Error: %s\nTry: %s\n", message(err), se.Fix)
		default:
			// The kind's hint, as the one-shot prints it (the limit of
			// open files, a damaged file): the session goes on.
			fmt.Fprintf(a.stderr, "Error: %s\n", message(err))
			if _, hint := exit.Of(err); hint != "" && hint != exit.HelpHint {
				fmt.Fprintf(a.stderr, "Try: %s\n", hint)
			}
		}
	}
	var buf strings.Builder
	for {
		if buf.Len() > 0 {
			rl.SetPrompt("      ...> ")
		} else {
			rl.SetPrompt("topicsnap> ")
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			continue
		}
		if err != nil { // io.EOF: Ctrl-D
			return nil
		}
		if isDotCommand(buf.String(), line) {
			rl.SaveToHistory(strings.TrimSpace(line))
			quit, err := s.dot(ctx, line)
			if quit {
				return nil
			}
			report(err)
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !sqllex.Complete(buf.String()) {
			continue
		}
		text := buf.String()
		buf.Reset()
		rl.SaveToHistory(historyEntry(text))
		// A complete text leaves nothing open: splitting cannot fail.
		stmts, _ := splitStatements(text, 1)
		for _, st := range stmts {
			if err := s.run(ctx, st); err != nil {
				report(err)
				break
			}
		}
	}
}

// historyEntry is a statement as one history line: the history file holds
// one entry a line, so line breaks become spaces (inside strings too),
// runs of blanks outside strings one space, and -- comments, which would
// swallow what follows them, are dropped.
func historyEntry(text string) string {
	toks, _ := sqllex.Tokens(text)
	var b strings.Builder
	for _, t := range toks {
		switch {
		case t.Kind == sqllex.LineComment:
		case t.Kind == sqllex.Space:
			if !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
		default:
			b.WriteString(oneLine.Replace(t.Text))
		}
	}
	return strings.TrimSpace(b.String())
}

var oneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// completer offers DuckDB's own completions (sql_auto_complete).
type completer struct {
	ctx context.Context
	eng *queries.Engine
}

func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	prefix := string(line[:pos])
	rows, err := c.eng.DB().QueryContext(c.ctx, "SELECT suggestion, suggestion_start FROM sql_auto_complete(?) LIMIT 50", prefix)
	if err != nil {
		return nil, 0
	}
	defer rows.Close()
	var out [][]rune
	length := 0
	for rows.Next() {
		var s string
		var start int
		if rows.Scan(&s, &start) != nil {
			continue
		}
		typed := []rune(prefix[min(start, len(prefix)):])
		length = len(typed)
		if strings.HasPrefix(strings.ToLower(s), strings.ToLower(string(typed))) {
			out = append(out, []rune(s[len(string(typed)):]))
		}
	}
	return out, length
}

// warnProblems tells the user, on stderr, what the engine had to skip;
// each says the command to run, naming the folder as the user gave it
// (queries.Options.FolderName). Each is told once: a lazy engine finds
// more while it builds the views a statement names (a field whose type
// differs between a topic's schemas), so it is called again after the
// statements run.
func (a *app) warnProblems(eng *queries.Engine) {
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	for _, p := range eng.Problems() {
		if !a.warned[p] {
			a.warned[p] = true
			fmt.Fprintf(a.stderr, "warning: %s\n", p)
		}
	}
}
