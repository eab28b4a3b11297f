package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// TestSmallThingsSaidRight: Ctrl-C is "interrupted" (exit 130), not Go's
// "context canceled"; notebook ls takes --dir and prints a command with it;
// the REPL counts one topic in the singular.
func TestSmallThingsSaidRight(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as Ctrl-C does, through signal.NotifyContext
	var out, errb bytes.Buffer
	code := run(ctx, []string{"check", "gaps", "--dir", dir, "--topic", "app_events"}, strings.NewReader(""), &out, &errb)
	// A query that stopped has nothing to resume: no "run it again" hint
	// (a dump's, an import's, a restore's, a compaction's and a copy's say
	// what they kept).
	if code != exitInterrupted || errb.String() != "interrupted\n" {
		t.Errorf("interrupted: exit %d, stderr %q; want %d and only \"interrupted\"", code, errb.String(), exitInterrupted)
	}
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"catalog", "compact", "--dir", dir, "--min-age", "0s"}, "Try: run the same command again: merged runs are committed"},
		{[]string{"catalog", "copy", dir, filepath.Join(t.TempDir(), "copy")}, "Try: run the same command again: the files already copied whole are kept"},
	} {
		errb.Reset()
		code := run(ctx, c.args, strings.NewReader(""), &out, &errb)
		if code != exitInterrupted || !strings.HasPrefix(errb.String(), "interrupted\n"+c.hint) {
			t.Errorf("%s interrupted: exit %d, stderr %q; want %d and %q", c.args[:2], code, errb.String(), exitInterrupted, c.hint)
		}
	}
	code, ls, errs := cli(t, "notebook", "ls", "--dir", dir)
	if code != 0 || !strings.Contains(ls, "run one: topicsnap notebook run NAME.md --dir "+dir+"\n") {
		t.Errorf("notebook ls --dir: exit %d, %s %s", code, ls, errs)
	}
	t.Setenv("HOME", t.TempDir())
	out.Reset()
	errb.Reset()
	a := newApp(strings.NewReader(".quit\n"), &out, &errb)
	eng, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := a.repl(context.Background(), &sqlSession{a: a, eng: eng, format: "table", out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), ": 1 topic. ") {
		t.Errorf("REPL: stdout %q, stderr %q; want \"1 topic.\"", out.String(), errb.String())
	}
}
