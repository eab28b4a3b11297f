package main

// Issue 13, "right on messy topics": what a command line can get wrong, and
// what topicsnap must say (and not write) when it does. These run on kfake
// with -short, and against the real broker when TOPICSNAP_TEST_BROKERS is set.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// tree lists every path under dir, to tell that a command left it as it was.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error {
		out = append(out, p)
		return nil
	})
	return strings.Join(out, "\n")
}

// lastLines returns stderr's Error: and Try: lines.
func errorLines(stderr string) (errLine, tryLine string) {
	for _, l := range strings.Split(stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "Error: "):
			errLine = l
		case strings.HasPrefix(l, "Try: "):
			tryLine = l
		}
	}
	return errLine, tryLine
}

func TestDumpOptionsRefusedBeforeAnythingIsWritten(t *testing.T) {
	bs := brokers(t)
	b := strings.Join(bs, ",")
	topic := topicWith(t, bs, 3, "a", "b", "c")
	cases := []struct {
		name string
		args []string
		text []string
	}{
		{"negative --from", []string{"--from", "-5"}, []string{"--from -5", "0 or more"}},
		{"negative --until", []string{"--until", "-1"}, []string{"--until -1"}},
		{"--from past --until", []string{"--from", "9", "--until", "5"}, []string{"--from 9", "--until 5"}},
		{"--partitions the topic lacks", []string{"--partitions", "0,7"}, []string{"--partitions 0,7", "no partition 7", "0-2"}},
		{"--follow --until now", []string{"--follow", "--until", "now"}, []string{"--follow", "--until"}},
		{"--follow --until an offset", []string{"--follow", "--until", "100"}, []string{"--follow", "--until 100"}},
		{"--compact-target without --follow", []string{"--compact-target", "128MiB"}, []string{"--compact-target", "--follow", "catalog compact"}},
		{"--compact-every without a target", []string{"--follow", "--compact-every", "1m"}, []string{"--compact-every", "--compact-target SIZE"}},
		{"--compact-target not a size", []string{"--follow", "--compact-target", "big"}, []string{`--compact-target "big"`, "128MiB"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "snaps")
			before := tree(t, root)
			code, out, errs := cli(t, append([]string{"dump", "--brokers", b, "--topic", topic, "--dir", dir}, c.args...)...)
			if code != exitError {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, exitError, out, errs)
			}
			e, try := errorLines(errs)
			for _, s := range c.text {
				if !strings.Contains(e, s) {
					t.Errorf("%q does not say %q", e, s)
				}
			}
			if strings.Contains(e, "bad option") {
				t.Errorf("internal prefix shown: %q", e)
			}
			if try != "Try: topicsnap dump --help" {
				t.Errorf("hint %q, want the command's --help", try)
			}
			if out != "" {
				t.Errorf("a refused dump printed %q", out)
			}
			if after := tree(t, root); after != before {
				t.Errorf("a refused dump wrote to the disk:\n%s", after)
			}
		})
	}
}

func TestReadingCommandsRefuseWhatIsNotASnapshotFolder(t *testing.T) {
	root := t.TempDir()
	missing := filepath.Join(root, "nope")
	foreign := filepath.Join(root, "home")
	os.MkdirAll(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	nb := filepath.Join(root, "nb.md")
	os.WriteFile(nb, []byte("```sql\nSELECT 1\n```\n"), 0o644)
	// A FIFO as the folder: opening it waited for a writer, so every
	// command hung, deaf to Ctrl-C.
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	// A loop of symbolic links (ln -s l1 l2; ln -s l2 l1), as the folder
	// or on the way to it: exit 2 with "stat l1: too many levels of
	// symbolic links", not named as a loop nor as what is not a folder.
	loop := filepath.Join(root, "l1")
	if err := errors.Join(os.Symlink(filepath.Join(root, "l1"), filepath.Join(root, "l2")), os.Symlink(filepath.Join(root, "l2"), loop)); err != nil {
		t.Fatal(err)
	}
	underLoop := filepath.Join(loop, "snapshots")
	commands := [][]string{
		{"ls"},
		{"catalog", "ls"},
		{"catalog", "verify"},
		{"sql", "-c", "SELECT 1"},
		{"check", "gaps", "--topic", "t"},
		{"notebook", "run", nb},
		{"serve", "--addr", "127.0.0.1:0"},
	}
	for _, dir := range []string{missing, foreign, fifo, loop, underLoop} {
		for _, args := range commands {
			t.Run(filepath.Base(dir)+" "+strings.Join(args[:1], " "), func(t *testing.T) {
				before := tree(t, root)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var out, errb bytes.Buffer
				done := make(chan int, 1)
				go func() { done <- run(ctx, append(args, "--dir", dir), strings.NewReader(""), &out, &errb) }()
				var code int
				select {
				case code = <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%v --dir %s did not return", args, dir)
				}
				e, try := errorLines(errb.String())
				if code != exitNoCatalog || !strings.Contains(e, dir) || !strings.Contains(try, "topicsnap dump --brokers HOST:PORT --topic NAME --dir") {
					t.Fatalf("%v: exit %d, stdout %q, stderr %q; want %d naming %s and the dump that makes one", args, code, out.String(), errb.String(), exitNoCatalog, dir)
				}
				if (dir == loop || dir == underLoop) && !strings.Contains(e, "loop of symbolic links") {
					t.Fatalf("%v --dir %s: %q does not name the loop", args, dir, e)
				}
				if dir == loop && !strings.Contains(e, loop+" -> "+filepath.Join(root, "l2")+" -> "+loop) {
					t.Fatalf("%v --dir %s: %q does not name the links of the loop", args, dir, e)
				}
				if after := tree(t, root); after != before {
					t.Errorf("%v wrote to the disk", args)
				}
			})
		}
	}
	// Without --dir, ./snapshots: a query is not answered as if it were empty.
	t.Chdir(root)
	code, out, errs := cli(t, "sql", "-c", "SELECT * FROM pg_depend_x")
	if code != exitNoCatalog || !strings.Contains(errs, "snapshots does not exist") || strings.Contains(errs, "Did you mean") {
		t.Fatalf("default folder: exit %d %q %q", code, out, errs)
	}
}

// writePartitions commits partitions of topic, each a data file of 3 records.
func writePartitions(t *testing.T, d *catalog.Dir, topic string, parts ...int32) {
	t.Helper()
	for _, p := range parts {
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		rows := []catalog.Row{{Partition: p, Offset: 0, Timestamp: 1700000000000, Value: []byte("a")},
			{Partition: p, Offset: 1, Timestamp: 1700000000001, Value: []byte("b")},
			{Partition: p, Offset: 2, Timestamp: 1700000000002, Value: []byte("c")}}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: topic, Partition: p, NextOffset: 3, Files: []catalog.FileEntry{fe}}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLsAndVerifyNameADamagedPartitionAndListTheRest(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	writePartitions(t, d, "orders", 0, 1, 2)
	bad := filepath.Join(d.PartitionDir(catalog.TopicPartition{Topic: "orders", Partition: 1}), "manifest.json")
	os.WriteFile(bad, []byte(`{"topic":"orders",`), 0o644)

	code, out, errs := cli(t, "ls", "--dir", dir)
	if code != exitOK {
		t.Fatalf("ls: exit %d %q %q", code, out, errs)
	}
	var listed []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "orders" {
			listed = append(listed, f[1])
		}
	}
	if strings.Join(listed, ",") != "0,2" {
		t.Errorf("ls listed partitions %v of orders, want 0,2:\n%s", listed, out)
	}
	want := "warning: topic orders partition 1: manifest damaged: topic=orders/partition=1/manifest.json: "
	if !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, "; run topicsnap catalog verify --dir "+dir+"\n") || strings.Count(errs, "\n") != 1 {
		t.Errorf("ls stderr %q, want one line %q...", errs, want)
	}

	code, out, errs = cli(t, "catalog", "verify", "--dir", dir)
	if code != exitBadFolder || !strings.Contains(out, bad+": topic orders partition 1: manifest damaged") || !strings.Contains(out, "2 data files and 0 cluster snapshots checked; 1 manifest damaged") {
		t.Errorf("verify: exit %d %q %q", code, out, errs)
	}
}

// TestUnknownGroupIsExitFourWithDidYouMean: a --group no cut of the folder
// saw is exit 4, named, with the near spelling or the topic's groups, and a
// Try: that lists the groups, as an unknown topic is; not a quiet warning.
func TestUnknownGroupIsExitFourWithDidYouMean(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmFolder(t.Context(), dir, seeds.WindFarmConfig{Farms: 4, TurbinesPerFarm: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	try := "Try: topicsnap check lag --dir " + dir + " --topic readings (lists the groups"
	cases := []struct {
		args []string
		err  string // a substring of the Error: line
	}{
		{[]string{"check", "reset", "--dir", dir, "--topic", "readings", "--group", "galewatch-writer", "--to-time", "2026-07-16T11:00:00Z"},
			`group "galewatch-writer" is in no snapshot in ` + dir + ` (did you mean "galewatch-writers"?)`},
		{[]string{"check", "reset", "--dir", dir, "--topic", "readings", "--group", "billing", "--to-time", "2026-07-16T11:00:00Z", "--format", "json"},
			`group "billing" is in no snapshot in ` + dir + ` (the snapshots of readings saw galewatch-writers)`},
		{[]string{"check", "lag", "--dir", dir, "--topic", "readings", "--group", "galewatch-writer"},
			`group "galewatch-writer" is in no snapshot in ` + dir + ` (did you mean "galewatch-writers"?)`},
		{[]string{"check", "all", "--dir", dir, "--topic", "readings", "--group", "galewatch-writer", "--to-time", "2026-07-16T11:00:00Z"},
			`(did you mean "galewatch-writers"?)`},
	}
	for _, c := range cases {
		code, _, errs := cli(t, c.args...)
		e, tl := errorLines(errs)
		if code != exitUnknownTopic || !strings.Contains(e, c.err) || !strings.HasPrefix(tl, try) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q and %q", c.args, code, errs, exitUnknownTopic, c.err, try)
		}
	}
	// The group it names is judged (exit 0 or 1, never 4).
	if code, _, errs := cli(t, "check", "reset", "--dir", dir, "--topic", "readings", "--group", "galewatch-writers", "--to-time", "2026-07-16T11:00:00Z"); code == exitUnknownTopic || code == exitError {
		t.Errorf("known group: exit %d, stderr %q", code, errs)
	}
}

// TestUnknownTopicIsExitFourWithDidYouMean: a topic the folder does not
// hold is exit 4 on check, sql and check all, named, with the near spelling
// or the topics it holds, and a Try: that lists them.
func TestUnknownTopicIsExitFourWithDidYouMean(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args     []string
		err, try string // substrings of the Error: and Try: lines
	}{
		{[]string{"check", "gaps", "--dir", dir, "--topic", "app_event"}, `topic "app_event" has no snapshot in ` + dir + ` (did you mean "app_events"?)`, "topicsnap ls --dir " + dir},
		{[]string{"check", "all", "--dir", dir, "--topic", "App_Events"}, `(did you mean "app_events"?)`, "topicsnap ls --dir " + dir},
		{[]string{"check", "gaps", "--dir", dir, "--topic", "payments"}, `topic "payments" has no snapshot in ` + dir + ` (it holds app_events)`, "topicsnap ls --dir " + dir},
		{[]string{"sql", "--dir", dir, "-c", "SELECT count(*) FROM app_event"}, `Did you mean "app_events"`, "topicsnap ls --dir " + dir + " (lists the topics)"},
		{[]string{"sql", "--dir", dir, "-c", "SELECT 1; SELECT * FROM nope"}, `Table with name nope does not exist`, "topicsnap ls --dir " + dir + " (lists the topics)"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, c.args...)
		e, try := errorLines(errs)
		if code != exitUnknownTopic || e == "" || !strings.Contains(errs, c.err) || !strings.Contains(try, c.try) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q and Try: %q", c.args, code, errs, exitUnknownTopic, c.err, c.try)
		}
	}
	// Not every catalog error is an unknown topic: a function is not.
	code, _, errs := cli(t, "sql", "--dir", dir, "-c", "SELECT nosuchfn(1)")
	if code != exitError || strings.Contains(errs, "topicsnap ls") {
		t.Errorf("unknown function: exit %d, stderr %q; want %d without the topic hint", code, errs, exitError)
	}
}

func TestUsageErrorsNameTheirCommandAndDropInternalPrefixes(t *testing.T) {
	dir := t.TempDir()
	if _, err := catalog.Create(dir); err != nil {
		t.Fatal(err)
	}
	sqlFile := filepath.Join(t.TempDir(), "q.sql")
	os.WriteFile(sqlFile, []byte("SELECT 2"), 0o644)
	nb := filepath.Join(t.TempDir(), "nb.md")
	os.WriteFile(nb, []byte("---\ntopic: app_events\n---\n```sql\nSELECT count(*) FROM {{topic}} WHERE key = {{key}}\n```\n"), 0o644)
	cases := []struct {
		args      []string
		code      int
		err, try  string // prefixes of the Error: and Try: lines ("" try: none)
		notInText string
	}{
		{[]string{"check", "gaps", "--dir", dir}, exitError, "Error: name the topic", "Try: topicsnap check --help", ""},
		{[]string{"check", "nosuch", "--dir", dir, "--topic", "t"}, exitError, `Error: unknown check "nosuch"`, "Try: topicsnap check --help", "bad check"},
		{[]string{"catalog", "verify", "--bogus"}, exitError, "Error: unknown flag: --bogus", "Try: topicsnap catalog verify --help", ""},
		{[]string{"nosuchcommand"}, exitError, `Error: unknown command "nosuchcommand"`, "Try: topicsnap --help", ""},
		{[]string{"catalog", "nosuch"}, exitError, `Error: unknown command "nosuch" for "topicsnap catalog"`, "Try: topicsnap catalog --help", ""},
		{[]string{"notebook", "nosuch"}, exitError, `Error: unknown command "nosuch" for "topicsnap notebook"`, "Try: topicsnap notebook --help", ""},
		{[]string{"sql", "--dir", dir, "-c", "SELEC 1"}, exitError, "Error: Parser Error", "", "run query"},
		{[]string{"sql", "--dir", dir, "-c", "SELECT 1", "-f", sqlFile}, exitError, "Error: -c and -f", "Try: topicsnap sql --help", ""},
		{[]string{"notebook", "run", nb, "--dir", dir, "--param", "unknown=1"}, exitError,
			"Error: unknown parameter unknown: this notebook takes key, topic", "Try: topicsnap notebook run --help", ""},
		{[]string{"notebook", "run", nb, "--dir", dir, "--param", "dir=/etc"}, exitError, "Error: parameter dir is reserved", "Try: topicsnap notebook run --help", ""},
	}
	for _, c := range cases {
		code, out, errs := cli(t, c.args...)
		e, try := errorLines(errs)
		if code != c.code || !strings.HasPrefix(e, c.err) || try != c.try && !(c.try != "" && strings.HasPrefix(try, c.try)) ||
			c.notInText != "" && strings.Contains(errs, c.notInText) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q and %q", c.args, code, out, errs, c.code, c.err, c.try)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, errs := cli(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "topicsnap ") || strings.TrimSpace(out) == "topicsnap" {
		t.Fatalf("--version: exit %d %q %q", code, out, errs)
	}
	version = "v9.9.9-test"
	defer func() { version = "" }()
	if _, out, _ := cli(t, "--version"); !strings.HasPrefix(out, "topicsnap v9.9.9-test") {
		t.Fatalf("-ldflags version not shown: %q", out)
	}
}

func TestFailedDumpPrintsNoSummary(t *testing.T) {
	code, out, errs := cli(t, "dump", "--brokers", "127.0.0.1:1", "--topic", "x", "--dir", filepath.Join(t.TempDir(), "s"), "--timeout", "300ms")
	if code != exitUnreachable || out != "" {
		t.Fatalf("exit %d, stdout %q (stderr %q): want %d and no summary", code, out, errs, exitUnreachable)
	}
}

func TestConfigErrorsSayWhatToSet(t *testing.T) {
	bs := brokers(t)
	b := strings.Join(bs, ",")
	topic := topicWith(t, bs, 1, "a")
	cases := []struct {
		name   string
		config []string
		code   int
		try    string
	}{
		{"a Java trust store", []string{"security.protocol=SSL", "ssl.truststore.location=/etc/kafka/truststore.jks"}, exitError, "ssl.ca.location"},
		{"a Java key store", []string{"security.protocol=SSL", "ssl.keystore.location=/etc/kafka/keystore.jks"}, exitError, "ssl.certificate.location and ssl.key.location"},
		{"SASL on a listener without it", []string{"security.protocol=SASL_PLAINTEXT", "sasl.mechanism=SCRAM-SHA-256", "sasl.username=u", "sasl.password=hunter2"},
			exitAuth, "security.protocol"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", filepath.Join(root, "s"), "--config", writeConfig(t, c.config...))
			_, try := errorLines(errs)
			if code != c.code || !strings.Contains(try, c.try) || strings.Contains(errs, "hunter2") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and a Try: naming %s", code, out, errs, c.code, c.try)
			}
		})
	}
}

// stopAfterFirst is a dump's progress that stops it, as Ctrl-C would, once
// every partition of the first snapshot is committed.
type stopAfterFirst struct {
	quietProgress
	mu      sync.Mutex
	started int
	cancel  context.CancelFunc
}

func (s *stopAfterFirst) Start(catalog.TopicPartition, int64, int64) {
	s.mu.Lock()
	s.started++
	s.mu.Unlock()
}

func (s *stopAfterFirst) Done(catalog.TopicPartition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started--; s.started == 0 {
		s.cancel()
	}
}

func TestInterruptedFollowIsANormalStop(t *testing.T) {
	bs := brokers(t)
	topic := topicWith(t, bs, 2, "a", "b", "c", "d")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errb)
	a.progress = &stopAfterFirst{quietProgress: quietProgress{&errb}, cancel: cancel}
	code := a.run(ctx, []string{"dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", t.TempDir(), "--follow", "--interval", "1h"})
	if code != exitOK || !strings.HasPrefix(out.String(), "dumped 4 records") || strings.Contains(errb.String(), "Error") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the summary", code, out.String(), errb.String())
	}
}

// dump makes a missing folder, but does not scatter topic folders into
// one that holds other files.
func TestDumpRefusesAFolderOfOtherFiles(t *testing.T) {
	bs := brokers(t)
	topic := topicWith(t, bs, 1, "a")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	before := tree(t, dir)
	code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir)
	e, try := errorLines(errs)
	if code != exitNoCatalog || !strings.Contains(e, dir) || !strings.Contains(e, "notes.txt") || !strings.Contains(try, "new or empty folder") || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %d naming the folder", code, out, errs, exitNoCatalog)
	}
	if tree(t, dir) != before {
		t.Fatalf("the folder was written to:\n%s", tree(t, dir))
	}
	fresh := filepath.Join(t.TempDir(), "new", "snaps")
	if code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", fresh); code != exitOK || !strings.HasPrefix(out, "dumped 1 records") {
		t.Fatalf("a new folder: exit %d %q %q", code, out, errs)
	}
}

// TestCheckFlagsShowTheirKind: --help names what each check option takes
// (a duration, a number, an expression), from the registry.
func TestCheckFlagsShowTheirKind(t *testing.T) {
	var out, errb strings.Builder
	if code := run(t.Context(), []string{"check", "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"--silence duration", "--hot number", "--limit int", "--id expr", "--to-time time", "--group text", "--against file"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check --help lacks %q:\n%s", want, out.String())
		}
	}
	// And the values a number option takes, from its Min and Max: every
	// number option of the registry, in the words its refusal uses.
	for _, c := range queries.Checks() {
		for _, name := range c.Options {
			op := queries.CheckOptionSet[name]
			if b := op.Bounds(); b != "" && !strings.Contains(out.String(), "("+b) {
				t.Errorf("check --help lacks --%s's bounds %q", op.FlagName(), b)
			}
		}
	}
}
