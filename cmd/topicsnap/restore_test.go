package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRestoreCommand runs topicsnap restore as a user does: its refusals
// with their exit codes, a dry run, a restore and the same again, each
// ending with one line on stdout or an Error: and a Try: on stderr.
func TestRestoreCommand(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): transactions")
	}
	bs := brokers(t)
	b := strings.Join(bs, ",")
	ctx := context.Background()
	conn := kafkaconn.Conn{Brokers: bs}
	stamp := time.Now().UnixNano() % 1e9
	src := fmt.Sprintf("restore-cmd-src-%d", stamp)
	small := fmt.Sprintf("restore-cmd-small-%d", stamp)
	target := fmt.Sprintf("restore-cmd-target-%d", stamp)
	if err := dump.CreateTopic(ctx, conn, src, 4, nil); err != nil {
		t.Fatal(err)
	}
	if err := dump.CreateTopic(ctx, conn, small, 2, nil); err != nil {
		t.Fatal(err)
	}
	var recs []dump.Record
	for i := 0; i < 400; i++ {
		recs = append(recs, dump.Record{Topic: src, Partition: int32(i % 4), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errs := cli(t, "dump", "--brokers", b, "--topic", src, "--dir", dir); code != 0 {
		t.Fatalf("dump: %d %s", code, errs)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // a line stdout starts with (the last one)
		stderr []string
	}{
		{"no topic", []string{"restore", "--brokers", b, "--dir", dir}, exitError, "", []string{"Error: name the topic to restore", "Try: topicsnap restore --help"}},
		{"not in the folder", []string{"restore", "--brokers", b, "--dir", dir, "--topic", "nope"}, exitUnknownTopic, "", []string{"holds no snapshot of topic \"nope\"", "Try: topicsnap ls --dir " + dir}},
		{"bad partitions", []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--partitions", "7"}, exitError, "", []string{"holds no partition 7"}},
		{"fewer partitions", []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--to-topic", small}, exitTarget, "", []string{"has 2 partitions, the source had 4", "nothing was produced", "Try: restore into a new topic with --to-topic"}},
		{"dry run", []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--to-topic", target, "--dry-run"}, exitOK, "dry run: would restore 400 records", nil},
		{"restore", []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--to-topic", target}, exitOK, "restored 400 records", nil},
		{"again", []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--to-topic", target}, exitOK, "restored 0 records", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := cli(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != tc.code || !strings.HasPrefix(lines[len(lines)-1], tc.stdout) || (tc.stdout == "" && out != "") {
				t.Fatalf("exit %d (want %d)\nstdout %q\nstderr %q", code, tc.code, out, errs)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(errs, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errs)
				}
			}
			if tc.name == "again" && !strings.Contains(out, "everything was already restored (the progress group topicsnap-restore-"+target+" ") {
				t.Errorf("a second restore does not say why it restored nothing: %q", out)
			}
			if tc.name == "dry run" && !strings.Contains(out, "new topic "+target+" (4 partitions") {
				t.Errorf("dry run does not say it would create the target: %q", out)
			}
		})
	}
}
