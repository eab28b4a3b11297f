package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// printedCommand finds the commands a hint prints for a user to run:
// topicsnap's own and Kafka's scripts, each word up to a parenthesis, a
// semicolon or the end.
var printedCommand = regexp.MustCompile(`(?:topicsnap|kafka-[a-z-]+\.sh)(?: [^ ();]+)+`)

// shellWords splits a printed topicsnap command line as a POSIX shell
// would for the quoting ShellQuote does (single quotes).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	// The line's words, expanded by the shell itself.
	words, err := exec.Command("sh", "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(words), "\x00"), "\x00")
}

// TestPrintedTopicsnapCommandsRun: every topicsnap command a Try: line
// prints runs as printed (the folder's own path in it, no DIR left) and
// answers the question the hint says it answers.
func TestPrintedTopicsnapCommandsRun(t *testing.T) {
	tea := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), tea, seeds.TeaShopConfig{Users: 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	wind := t.TempDir()
	if _, err := seeds.WriteWindFarmFolder(t.Context(), wind, seeds.WindFarmConfig{Farms: 4, TurbinesPerFarm: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // a line the printed command's stdout holds
	}{
		{[]string{"check", "gaps", "--dir", tea, "--topic", "app_event"}, "app_events"},
		{[]string{"sql", "--dir", tea, "-c", "SELECT count(*) FROM app_event"}, "app_events"},
		{[]string{"check", "lag", "--dir", wind, "--topic", "readings", "--group", "galewatch-writer"}, "galewatch-writers"},
	} {
		_, _, errs := cli(t, c.args...)
		_, try := errorLines(errs)
		cmds := printedCommand.FindAllString(try, -1)
		if len(cmds) == 0 {
			t.Errorf("%v: no command in %q", c.args, try)
			continue
		}
		for _, line := range cmds {
			if strings.Contains(line, "DIR") || strings.Contains(line, "HOST:PORT") {
				t.Errorf("%v: a placeholder in the printed command %q", c.args, line)
				continue
			}
			words := shellWords(t, line)
			code, out, errs := cli(t, words[1:]...)
			if (code != exitOK && code != exitCheckFailed) || !strings.Contains(out, c.want) {
				t.Errorf("%v: the printed %q: exit %d, stdout %q, stderr %q; want it to run and name %s", c.args, line, code, out, errs, c.want)
			}
		}
	}
}

// TestPrintedKafkaCommandRuns: restore into a topic with fewer partitions
// prints the kafka-topics.sh command that adds them; run as printed, with
// Kafka's commands on PATH (scripts/kafka.sh install writes them), it
// succeeds, and the same restore then goes through.
func TestPrintedKafkaCommandRuns(t *testing.T) {
	bin := os.Getenv("TOPICSNAP_TEST_KAFKA_BIN")
	if os.Getenv("TOPICSNAP_TEST_BROKERS") == "" || bin == "" {
		t.Skip("needs the real broker and Kafka's commands (make test sets TOPICSNAP_TEST_BROKERS and TOPICSNAP_TEST_KAFKA_BIN)")
	}
	bs := brokers(t)
	b := strings.Join(bs, ",")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	stamp := time.Now().UnixNano() % 1e9
	src, small := fmt.Sprintf("printed-src-%d", stamp), fmt.Sprintf("printed-small-%d", stamp)
	if err := dump.CreateTopic(ctx, conn, src, 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := dump.CreateTopic(ctx, conn, small, 1, nil); err != nil {
		t.Fatal(err)
	}
	var recs []dump.Record
	for i := 0; i < 30; i++ {
		recs = append(recs, dump.Record{Topic: src, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i))})
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, _, errs := cli(t, "dump", "--brokers", b, "--topic", src, "--dir", dir); code != 0 {
		t.Fatalf("dump: %d %s", code, errs)
	}
	restore := []string{"restore", "--brokers", b, "--dir", dir, "--topic", src, "--to-topic", small}
	code, _, errs := cli(t, restore...)
	_, try := errorLines(errs)
	if code != exitTarget {
		t.Fatalf("restore into 1 partition: exit %d, %s", code, errs)
	}
	var printed string
	for _, c := range printedCommand.FindAllString(try, -1) {
		if strings.HasPrefix(c, "kafka-topics.sh ") {
			printed = c
		}
	}
	if printed == "" || strings.Contains(printed, "HOST:PORT") {
		t.Fatalf("no runnable kafka-topics.sh command in %q", try)
	}
	sh := exec.CommandContext(ctx, "sh", "-c", printed)
	sh.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("the printed %s: %v\n%s", printed, err, out)
	}
	if code, out, errs := cli(t, restore...); code != exitOK || !strings.Contains(out, "restored 30 records") {
		t.Fatalf("restore after the printed command: exit %d, %s %s", code, out, errs)
	}
	t.Logf("ran as printed: %s", printed)
}
