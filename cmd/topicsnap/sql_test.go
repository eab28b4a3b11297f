package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/queries/hostile"
)

var teaOnce struct {
	sync.Once
	dir string
	err error
}

// teaFolder is the tea shop's snapshot folder, written once by code for
// the tests that only read it.
func teaFolder(t *testing.T) string {
	t.Helper()
	teaOnce.Do(func() {
		d, err := os.MkdirTemp("", "topicsnap-sql-test-")
		if err == nil {
			_, err = seeds.WriteTeaShopFolder(t.Context(), d, seeds.TeaShopConfig{Users: 100, Seed: 7})
		}
		teaOnce.dir, teaOnce.err = d, err
	})
	if teaOnce.err != nil {
		t.Fatal(teaOnce.err)
	}
	return teaOnce.dir
}

func TestMain(m *testing.M) {
	if code, ok := serveWorker(context.Background()); ok { // serve's tests start this binary as a worker
		os.Exit(code)
	}
	code := m.Run()
	if teaOnce.dir != "" {
		os.RemoveAll(teaOnce.dir)
	}
	os.Exit(code)
}

// Dot commands work in -c, -f and on stdin as in the REPL, on lines of
// their own between statements; .mode without an argument says the mode;
// .schema gives a STRUCT's whole type.
func TestSQLDotCommandsOutsideTheREPL(t *testing.T) {
	dir := teaFolder(t)
	// The value's whole type, as DuckDB has it.
	code, whole, errs := cli(t, "sql", "--dir", dir, "-c", `SELECT data_type FROM information_schema.columns WHERE table_name = 'app_events' AND column_name = 'value'`, "--format", "csv")
	whole = strings.TrimSpace(strings.TrimPrefix(whole, "data_type\n"))
	whole = strings.Trim(whole, `"`)
	whole = strings.ReplaceAll(whole, `""`, `"`)
	if code != 0 || !strings.HasPrefix(whole, "STRUCT(") || len(whole) < 80 {
		t.Fatalf("value's type: %d %q %q", code, whole, errs)
	}
	file := filepath.Join(t.TempDir(), "q.sql")
	os.WriteFile(file, []byte(".mode line\nSELECT 1 AS one;\n.mode\n"), 0o644)
	cases := []struct {
		name  string
		args  []string
		stdin string
		want  []string
		not   []string
	}{
		{"-c .mode line", []string{"-c", ".mode line\nSELECT 1 AS one, NULL AS nothing"}, "", []string{"    one = 1\nnothing = NULL\n"}, []string{"┌"}},
		{"-c .mode alone says the mode", []string{"-c", ".mode", "--format", "csv"}, "", []string{"csv"}, nil},
		{"-f with dot commands", []string{"-f", file}, "", []string{"one = 1", "line"}, []string{"┌"}},
		{"stdin .schema", nil, ".schema app_events\n", []string{"value", whole}, []string{"…"}},
		{"stdin .tables then a statement", nil, ".tables\nSELECT\n  42 AS answer;\n", []string{"app_events", "answer", "42"}, nil},
		{"a dot inside a statement is SQL", []string{"-c", "SELECT\n.5 AS half;", "--format", "csv"}, "", []string{"half\n0.5"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"sql", "--dir", dir}, c.args...), strings.NewReader(c.stdin), &out, &errb)
			if code != 0 {
				t.Fatalf("exit %d: %q %q", code, out.String(), errb.String())
			}
			for _, s := range c.want {
				if !strings.Contains(out.String(), s) {
					t.Errorf("no %q in\n%s", s, out.String())
				}
			}
			for _, s := range c.not {
				if strings.Contains(out.String(), s) {
					t.Errorf("%q in\n%s", s, out.String())
				}
			}
		})
	}
	// A dot command that fails fails the script, with the usual Error/Try.
	code, out, errs := cli(t, "sql", "--dir", dir, "-c", ".mode xml\nSELECT 1")
	if code != exitError || !strings.Contains(errs, ".mode") || strings.Contains(out, "1") {
		t.Fatalf(".mode xml: %d %q %q", code, out, errs)
	}
	errorAndTry(t, errs)
}

// An unquoted offset column gets a hint to quote it.
func TestSQLOffsetHint(t *testing.T) {
	dir := teaFolder(t)
	code, _, errs := cli(t, "sql", "--dir", dir, "-c", `SELECT "partition", offset FROM app_events LIMIT 1`)
	if code != exitError || !strings.Contains(errs, "Try: "+queries.OffsetHint) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if code, out, errs := cli(t, "sql", "--dir", dir, "-c", `SELECT "offset" FROM app_events ORDER BY 1 LIMIT 1 OFFSET 0`, "--format", "csv"); code != 0 || out != "offset\n0\n" {
		t.Fatalf("quoted: %d %q %q", code, out, errs)
	}
}

// The REPL keeps a statement of several lines as one history entry, and
// a dot command as its own.
func TestREPLHistoryKeepsAStatementWhole(t *testing.T) {
	dir := teaFolder(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	in := ".mode csv\nSELECT 1 AS a, -- the first\n  'x  y;' AS b\n  ;\nSELECT 2 AS c;\n"
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(in), &out, &errb)
	eng, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s := &sqlSession{a: a, eng: eng, format: "table", out: &out}
	if err := a.repl(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "a,b\n1,x  y;\n") || errb.Len() > 0 {
		t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
	}
	b, err := os.ReadFile(filepath.Join(home, ".topicsnap_history"))
	if err != nil {
		t.Fatal(err)
	}
	want := ".mode csv\nSELECT 1 AS a, 'x  y;' AS b ;\nSELECT 2 AS c;\n"
	if string(b) != want {
		t.Fatalf("history %q, want %q", b, want)
	}
}

// A ';' inside any kind of quote or comment does not end a statement, in
// -c as in the REPL (both split with internal/sqllex, as DuckDB reads the
// text); text left open is an error that names it, after the statements
// before it ran and before anything after it could.
func TestSQLSplitsAsDuckDBReads(t *testing.T) {
	dir := teaFolder(t)
	for _, q := range hostile.Quoted {
		t.Run(q.Name, func(t *testing.T) {
			var stmt string
			switch q.Kind {
			case "identifier":
				stmt = "SELECT 1 AS " + q.Text
			case "line comment", "block comment":
				stmt = "SELECT 1 AS b " + q.Text + "\n"
			default:
				stmt = "SELECT " + q.Text + " AS b"
			}
			code, out, errs := cli(t, "sql", "--dir", dir, "--format", "csv", "-c", stmt+"; SELECT 2 AS c")
			if code != 0 || strings.Count(out, "\n") != 4 || !strings.HasSuffix(out, "\nc\n2\n") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
	for _, c := range []struct{ name, sql, open string }{
		{"string", "SELECT 'x; SELECT 2 AS c", "string opened with '"},
		{"escape string", `SELECT E'x\'; SELECT 2 AS c`, "string opened with E'"},
		{"identifier", `SELECT "x; SELECT 2 AS c`, `identifier opened with "`},
		{"dollar quote", "SELECT $t$x; SELECT 2 AS c", "dollar-quoted string opened with $t$"},
		{"comment", "SELECT /* /* */ 1; SELECT 2 AS c", "comment opened with /*"},
	} {
		t.Run("open "+c.name, func(t *testing.T) {
			code, out, errs := cli(t, "sql", "--dir", dir, "--format", "csv", "-c", "SELECT 1 AS a;\n"+c.sql)
			if code != exitError || out != "a\n1\n" || !strings.Contains(errs, c.open+" at line 2, column 8 is never closed") || !strings.Contains(errs, "Try: ") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
		})
	}
}

// The REPL waits for more lines while a quote or comment is open, and a
// dot command after a line of only a block comment is a dot command.
func TestREPLReadsQuotesAsDuckDB(t *testing.T) {
	dir := teaFolder(t)
	t.Setenv("HOME", t.TempDir())
	in := "SELECT $$a;\nb$$ AS x;\n/* note */\n.mode csv\nSELECT E'it\\'s;' AS y;\n"
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(in), &out, &errb)
	eng, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s := &sqlSession{a: a, eng: eng, format: "table", out: &out}
	if err := a.repl(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `a;\nb`) || !strings.Contains(out.String(), "y\nit's;\n") || errb.Len() > 0 {
		t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
	}
}

func TestHistoryEntry(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1 -- one\n  , 2;", "SELECT 1 , 2;"},
		{"SELECT 'a  b'  ,\n\t\"x  y\";", `SELECT 'a  b' , "x  y";`},
		{"SELECT $$a -- b\n  c$$;", "SELECT $$a -- b   c$$;"},
		{"SELECT /* x -- y */ 1;", "SELECT /* x -- y */ 1;"},
		{"SELECT E'\\'--' AS a -- c\n;", `SELECT E'\'--' AS a ;`},
	} {
		if got := historyEntry(c.in); got != c.want {
			t.Errorf("historyEntry(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
