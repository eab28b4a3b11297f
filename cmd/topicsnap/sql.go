package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).sqlCmd) }

type sqlOptions struct {
	dir    string
	query  string
	file   string
	format string
}

func (a *app) sqlCmd() *cobra.Command {
	o := &sqlOptions{}
	cmd := &cobra.Command{
		Use:   "sql [--dir DIR] [-c SQL | -f FILE | < FILE]",
		Short: "Query snapshots with SQL: a REPL, or one statement with -c",
		Long: `sql opens the snapshot folder as an in-memory DuckDB: every topic is a view named
after it ("shop.events-v2"), with "<topic>$all" holding control markers and aborted
records too, and the catalog tables ` + strings.Join(queries.CatalogTables(), ", ") + `.

Without -c or -f, and with a terminal, it opens a REPL (.help lists its commands).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("command") && cmd.Flags().Changed("file") {
				return usagef("-c and -f both give the SQL to run: use one of them")
			}
			if !contains(append(queries.Formats, "parquet"), o.format) {
				return usagef("--format %q: use one of %s, parquet", o.format, strings.Join(queries.Formats, ", "))
			}
			return a.runSQL(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	cmd.Flags().StringVarP(&o.query, "command", "c", "", "run this SQL and exit")
	cmd.Flags().StringVarP(&o.file, "file", "f", "", "run the SQL in this file and exit")
	cmd.Flags().StringVar(&o.format, "format", "table", "output: table, csv, json, jsonl, markdown, line, parquet")
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
		b, err := os.ReadFile(o.file)
		if err != nil {
			return usagef("read -f %s: %v", o.file, err)
		}
		text = string(b)
	case text == "" && !isTerminal(a.stdout) || text == "" && !isTerminalReader(a.stdin):
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		text = string(b)
	}
	// One-shot SQL builds only the views and tables it names (the start-up
	// is most of a short query's time); the REPL builds all, for .tables,
	// .schema and completion.
	local, err := a.localDir(ctx, o.dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	eng, err := queries.Open(ctx, local, queries.Options{Lazy: text != ""})
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	defer eng.Close()
	a.warnProblems(eng)
	if text == "" {
		return a.repl(ctx, eng, o)
	}
	for _, stmt := range splitStatements(text) {
		if err := a.runOne(ctx, eng, stmt, o.format, a.stdout, false); err != nil {
			return err
		}
	}
	return nil
}

func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// splitStatements splits SQL on semicolons outside quotes and comments.
func splitStatements(s string) []string {
	var out []string
	var cur strings.Builder
	inS, inD, inLine, inBlock := false, false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case inLine:
			if c == '\n' {
				inLine = false
			}
		case inBlock:
			if c == '*' && next == '/' {
				inBlock = false
				cur.WriteByte(c)
				i++
				c = next
			}
		case inS:
			if c == '\'' {
				inS = false
			}
		case inD:
			if c == '"' {
				inD = false
			}
		case c == '\'':
			inS = true
		case c == '"':
			inD = true
		case c == '-' && next == '-':
			inLine = true
		case c == '/' && next == '*':
			inBlock = true
		case c == ';':
			if st := strings.TrimSpace(cur.String()); st != "" {
				out = append(out, st)
			}
			cur.Reset()
			continue
		}
		cur.WriteByte(c)
	}
	if st := strings.TrimSpace(cur.String()); st != "" && !onlyComments(st) {
		out = append(out, st)
	}
	return out
}

func onlyComments(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "--") {
			return false
		}
	}
	return true
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
			return fmt.Errorf("run query: %w", err)
		}
		return nil
	}
	rows, err := eng.Query(ctx, stmt)
	if err != nil {
		return fmt.Errorf("run query: %w", err)
	}
	defer rows.Close()
	width := 0
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		width, _, _ = term.GetSize(int(f.Fd()))
	}
	wo := queries.WriteOptions{Format: format, Width: width}
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
		return fmt.Errorf("run query: %w", queries.CleanError(err))
	}
	return nil
}

const replHelp = `.tables               list views and tables
.schema [NAME]        show columns of NAME (or of every view)
.mode FORMAT          table, csv, json, jsonl, markdown, line
.timer on|off         show how long each statement took
.output [FILE]        write results to FILE (no FILE: back to the terminal)
.read FILE            run the statements in FILE
.refresh              pick up new snapshots
.help                 this text
.quit                 leave (or Ctrl-D)
Statements end with ';'. Ctrl-C cancels a running query.`

func (a *app) repl(ctx context.Context, eng *queries.Engine, o *sqlOptions) error {
	// Ctrl-C during a query reaches main's context too; the session must
	// outlive it: each query gets its own interrupt (replRun), the session
	// ends with Ctrl-D or .quit.
	ctx = context.WithoutCancel(ctx)
	home, _ := os.UserHomeDir()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          "topicsnap> ",
		HistoryFile:     filepath.Join(home, ".topicsnap_history"),
		AutoComplete:    &completer{ctx: ctx, eng: eng},
		InterruptPrompt: "^C",
		EOFPrompt:       ".quit",
		Stdin:           io.NopCloser(a.stdin),
		Stdout:          a.stdout,
		Stderr:          a.stderr,
	})
	if err != nil {
		return fmt.Errorf("start the REPL: %w", err)
	}
	defer rl.Close()
	fmt.Fprintf(a.stdout, "topicsnap sql on %s: %d topics. .help for commands, Ctrl-D to leave.\n", eng.Dir(), len(eng.Topics()))
	format, timer := "table", true
	var out io.Writer = a.stdout
	var outFile *os.File
	defer func() {
		if outFile != nil {
			outFile.Close()
		}
	}()
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
		trimmed := strings.TrimSpace(line)
		if buf.Len() == 0 && strings.HasPrefix(trimmed, ".") {
			fields := strings.Fields(trimmed)
			arg := strings.TrimSpace(strings.TrimPrefix(trimmed, fields[0]))
			switch fields[0] {
			case ".quit", ".exit":
				return nil
			case ".help":
				fmt.Fprintln(a.stdout, replHelp)
			case ".tables":
				a.replRun(ctx, eng, `SELECT table_name AS name, table_type AS kind FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1`, "table", out, false)
			case ".schema":
				q := `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`
				if arg != "" {
					q = fmt.Sprintf(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_name = '%s' ORDER BY ordinal_position`, strings.ReplaceAll(arg, "'", "''"))
				}
				a.replRun(ctx, eng, q, "table", out, false)
			case ".mode":
				if !contains(queries.Formats, arg) {
					fmt.Fprintf(a.stderr, "Error: .mode %q: use one of %s\n", arg, strings.Join(queries.Formats, ", "))
					continue
				}
				format = arg
			case ".timer":
				timer = arg != "off"
			case ".output":
				if outFile != nil {
					outFile.Close()
					outFile = nil
				}
				out = a.stdout
				if arg != "" {
					f, err := os.Create(arg)
					if err != nil {
						fmt.Fprintf(a.stderr, "Error: %v\n", err)
						continue
					}
					outFile, out = f, f
				}
			case ".read":
				b, err := os.ReadFile(arg)
				if err != nil {
					fmt.Fprintf(a.stderr, "Error: %v\n", err)
					continue
				}
				for _, st := range splitStatements(string(b)) {
					a.replRun(ctx, eng, st, format, out, timer)
				}
			case ".refresh":
				changed, err := eng.Refresh(ctx)
				if err != nil {
					fmt.Fprintf(a.stderr, "Error: %v\n", err)
				} else if changed {
					fmt.Fprintln(a.stdout, "refreshed: new snapshots are visible")
				} else {
					fmt.Fprintln(a.stdout, "nothing new")
				}
			default:
				fmt.Fprintf(a.stderr, "Error: unknown command %s (.help lists them)\n", fields[0])
			}
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		stmts := splitStatements(buf.String())
		if !strings.HasSuffix(strings.TrimSpace(buf.String()), ";") {
			continue
		}
		buf.Reset()
		for _, st := range stmts {
			a.replRun(ctx, eng, st, format, out, timer)
		}
	}
}

// replRun runs a statement so that Ctrl-C cancels it and keeps the session.
func (a *app) replRun(ctx context.Context, eng *queries.Engine, stmt, format string, out io.Writer, timer bool) {
	qctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if err := a.runOne(qctx, eng, stmt, format, out, timer); err != nil {
		if qctx.Err() != nil && ctx.Err() == nil {
			fmt.Fprintln(a.stderr, "cancelled")
			return
		}
		fmt.Fprintf(a.stderr, "Error: %s\n", message(err))
	}
}

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

// warnProblems tells the user, on stderr, what the engine had to skip.
func (a *app) warnProblems(eng *queries.Engine) {
	for _, p := range eng.Problems() {
		fmt.Fprintf(a.stderr, "warning: %s (run: topicsnap catalog verify)\n", p)
	}
}
