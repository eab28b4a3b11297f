package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// TestSQLPastTheOpenFilesLimit: at a low limit of open files, sql failed
// where DuckDB could not open a data file with DuckDB's own message and no
// hint (`Error: create the views of __consumer_offsets: IO Error: Cannot
// open file ".../partition=7/...parquet": Too many open files` and the
// views' SQL under it). At every limit it now either answers or says the
// limit was reached, its value, and how to raise it (exit 2), wherever the
// open failed; the test sees DuckDB's open fail at least once.
func TestSQLPastTheOpenFilesLimit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1); err != nil {
		t.Fatal(err)
	}
	inDuckDB := 0
	for headroom := 0; headroom <= 40; headroom += 2 {
		_, restore := catalogtest.LimitOpenFiles(t, headroom)
		code, out, errs := cli(t, "sql", "--dir", dir, "-c", "SELECT count(*) FROM group_log")
		restore()
		if code == 0 {
			continue
		}
		if code != 2 || !strings.Contains(errs, "the limit of open files is reached (this process's, ulimit -n, is ") ||
			!strings.Contains(errs, "\nTry: raise the limit of open files") || strings.Contains(errs, "LINE ") {
			t.Fatalf("headroom %d: exit %d\n%s%s", headroom, code, out, errs)
		}
		if strings.Contains(errs, "Cannot open file") {
			inDuckDB++
		}
	}
	if inDuckDB == 0 {
		t.Fatal("DuckDB never met the limit: the test tests nothing")
	}
}

// TestREPLSaysTheHint: the REPL printed an error's hint only for a
// mistake in the SQL (SQLError); the limit of open files, a damaged file,
// said what failed and not what to do. It prints the kind's hint, as the
// one-shot does, and the session goes on.
func TestREPLSaysTheHint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	eng, err := queries.Open(t.Context(), dir, queries.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	// The group log's views are built by the first statement that reads
	// them, at a limit that leaves DuckDB no file to open.
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader("SELECT count(*) FROM group_log;\n"), &out, &errb)
	s := &sqlSession{a: a, eng: eng, format: "csv", out: &out}
	_, restore := catalogtest.LimitOpenFiles(t, 0)
	err = a.repl(t.Context(), s)
	restore()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "the limit of open files is reached") || !strings.Contains(errb.String(), "\nTry: raise the limit of open files") {
		t.Fatalf("stderr %q", errb.String())
	}
	// And with files to open, the same session answers.
	a.stdin = strings.NewReader("SELECT count(*) > 0 AS any FROM group_log;\n")
	errb.Reset()
	if err := a.repl(t.Context(), s); err != nil || !strings.Contains(out.String(), "any\ntrue\n") {
		t.Fatalf("after: %v %q %q", err, out.String(), errb.String())
	}
}

// TestSQLWithNoSQL: SQL given that holds none (-c "$EMPTY" of a script, an
// empty -f file, an empty pipe) opened the REPL instead: its banner
// ("topicsnap sql on DIR: 1 topic. .help for commands, Ctrl-D to leave.")
// on stdout and exit 0, as if a query had run and printed that. Each is now
// a usage error (exit 2) saying what held no SQL, and prints nothing.
func TestSQLWithNoSQL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.sql")
	if err := os.WriteFile(empty, []byte("\n  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"-c", ""}, "SELECT 1", "-c is empty"},
		{[]string{"-c", " \n "}, "", "-c is empty"},
		{[]string{"-f", empty}, "", "holds no SQL"},
		{nil, "", "stdin held none"},
		{nil, " \n\t", "stdin held none"},
	} {
		var out, errb bytes.Buffer
		code := run(t.Context(), append([]string{"sql", "--dir", dir}, c.args...), strings.NewReader(c.stdin), &out, &errb)
		if code != 2 || out.Len() > 0 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%q with stdin %q: exit %d, stdout %q, stderr %q", c.args, c.stdin, code, out.String(), errb.String())
		}
	}
}

// TestEmptyTopicFlag: --topic "" (a script's empty variable) was read as
// no --topic: check ran on the folder's only topic ("check on
// app_events, the folder's only topic", exit 0) and ls listed every
// topic. Both now refuse it (exit 2).
func TestEmptyTopicFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "gaps"}, {"check", "all"}, {"ls"}, {"catalog", "ls"}} {
		code, out, errs := cli(t, append(args, "--dir", dir, "--topic", "")...)
		if code != 2 || out != "" || !strings.Contains(errs, "--topic is empty") {
			t.Errorf("%v --topic '': exit %d\n%s%s", args, code, out, errs)
		}
	}
	// No --topic at all still reads the folder's only topic.
	if code, _, errs := cli(t, "check", "gaps", "--dir", dir); code != 0 || !strings.Contains(errs, "the folder's only topic") {
		t.Errorf("check gaps without --topic: exit %d %s", code, errs)
	}
}

// TestRestoreRefusesDefaultsGiven: values restore's library takes as "the
// default" were taken so when given: --to-topic "" restored into the
// source topic itself (as no --to-topic does), --txn-records 0 or -1 made
// transactions of 500,000 records, --txn-interval 0s or -1s of 1s; each
// went on to connect. They are now refused before anything is opened.
func TestRestoreRefusesDefaultsGiven(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to-topic", ""}, "--to-topic is empty"},
		{[]string{"--txn-records", "0"}, "--txn-records 0: give at least 1"},
		{[]string{"--txn-records", "-1"}, "--txn-records -1: give at least 1"},
		{[]string{"--txn-interval", "0s"}, "--txn-interval 0s: give a duration above 0"},
		{[]string{"--txn-interval", "-1s"}, "--txn-interval -1s: give a duration above 0"},
	} {
		args := append([]string{"restore", "--dir", dir, "--topic", "app_events", "--brokers", "127.0.0.1:1", "--dry-run"}, c.args...)
		code, out, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Contains(errs, "connect") {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errs)
		}
	}
}

// TestNotebookOutFolder: notebook run --out naming a folder (or a file in
// a folder that does not exist) ran every cell, then failed writing:
// "write /tmp: rename /tmp: rename /.tmp-tmp-390288150 /tmp: file exists".
// It is now refused before a cell runs (exit 2).
func TestNotebookOutFolder(t *testing.T) {
	nb := filepath.Join(t.TempDir(), "n.md")
	if err := os.WriteFile(nb, []byte("---\ntitle: t\n---\n\n```sql\nSELECT 1 AS a\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, c := range []struct{ out, want string }{
		{out, "is a folder: give a file in it"},
		{filepath.Join(out, "no", "n.html"), "does not exist"},
	} {
		code, stdout, errs := cli(t, "notebook", "run", nb, "--dir", dir, "--out", c.out)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("--out %s: exit %d\n%s%s", c.out, code, stdout, errs)
		}
	}
}

// TestServeNotebooksNotAFolder: serve --notebooks naming no folder (a
// typo, a file) served without a word, its notebooks missing from the
// list; it is now refused before anything listens (exit 2).
func TestServeNotebooksNotAFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "n.md")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, nb := range []string{filepath.Join(t.TempDir(), "nope"), file} {
		// A server that starts is stopped after a while (it serves until
		// interrupted), and fails the test.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		var out, errb bytes.Buffer
		code := run(ctx, []string{"serve", "--dir", dir, "--addr", "127.0.0.1:0", "--notebooks", nb}, strings.NewReader(""), &out, &errb)
		cancel()
		if code != 2 || !strings.Contains(errb.String(), "not a folder") || strings.Contains(out.String(), "serving") {
			t.Errorf("--notebooks %s: exit %d\n%s%s", nb, code, out.String(), errb.String())
		}
	}
}
