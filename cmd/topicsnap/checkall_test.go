package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// TestCheckAllSaysWhatItSkipped: check all runs every check; one that lacks
// the options it needs is listed as skipped with what it needs, and runs
// when they are given.
func TestCheckAllSaysWhatItSkipped(t *testing.T) {
	dir := smallFolder(t)
	statuses := func(args ...string) map[string]string {
		code, stdout, stderr := cli(t, append([]string{"check", "all", "--dir", dir, "--topic", "events", "--format", "json"}, args...)...)
		if code > 1 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var docs []struct{ Check, Status, Message string }
		if err := json.Unmarshal([]byte(stdout), &docs); err != nil {
			t.Fatalf("%v: %s", err, stdout)
		}
		out := map[string]string{}
		for _, d := range docs {
			out[d.Check] = d.Status
			if d.Status == "skipped" {
				out[d.Check+" message"] = d.Message
			}
		}
		return out
	}
	got := statuses()
	if len(got) != len(queries.CheckNames)+3 || got["missing"] != "skipped" || got["missing message"] != "not run: needs --match and --against or --against-topic" ||
		got["reset"] != "skipped" || got["reset message"] != "not run: needs --group and --to-time" ||
		got["members"] != "skipped" || got["members message"] != "not run: needs --group" {
		t.Errorf("without options: %v", got)
	}
	got = statuses("--match", "value.id", "--against-topic", "events", "--against-match", "value.id")
	if got["missing"] != "ok" {
		t.Errorf("with options, missing is %q", got["missing"])
	}
}

// TestCheckFlagsComeFromTheRegistry: every option of every check is a flag
// parsed by the option itself; an option the check does not take, or out
// of its bounds, is a usage error naming the flag.
func TestCheckFlagsComeFromTheRegistry(t *testing.T) {
	dir := smallFolder(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"gaps", "--id", "key"}, 2, "--id: check gaps does not take it (it takes --limit)"},
		{[]string{"freshness", "--silence", "0s"}, 2, `--silence "0s": must be between 1ms and 277777h`},
		// A bare number has no unit (5 seconds? 5 minutes?): refused, never guessed.
		{[]string{"freshness", "--silence", "5"}, 2, `--silence "5": has no unit: write the duration with one, such as 5s, 5m or 5h`},
		{[]string{"freshness", "--stale", "3600"}, 2, `--stale "3600": has no unit`},
		{[]string{"freshness", "--late", "0.5"}, 2, `--late "0.5": has no unit`},
		{[]string{"freshness", "--silence", "soon"}, 2, "--silence \"soon\": must be a duration"},
		{[]string{"skew", "--hot", "-1"}, 2, `--hot "-1": must be between 1 and 1000000`},
		{[]string{"skew", "--what-if-key", "key", "--partitions", "10001"}, 2, `--partitions "10001": must be between 1 and 10000`},
		{[]string{"freshness", "--silence", "90s"}, 0, "OK freshness"},
		{[]string{"missing", "--match", "value.id", "--against-topic", "events", "--against-match", "value.id", "--reverse"}, 0, "unexpected=0"},
		{[]string{"nosuch"}, 2, `unknown check "nosuch"`},
		// --partitions is skew's what-if count and reset's partition list.
		{[]string{"skew", "--what-if-key", "key", "--partitions", "0,3-5"}, 2, `--partitions "0,3-5": must be a whole number between 1 and 10000`},
		{[]string{"reset", "--group", "g", "--to-time", "2026-07-16T11:00:00Z", "--partitions", "3-1"}, 2, `--partitions "3-1": must be a list of partitions`},
		{[]string{"reset", "--group", "g", "--to-time", "2026-07-16T11:00:00Z", "--partitions", "0-2000000000"}, 2, `--partitions "0-2000000000": must be a list of partitions such as 0,3-5 (at most 100000)`},
		{[]string{"reset", "--group", "g", "--to-time", "11:00"}, 2, `--to-time "11:00": must be a time such as 2026-07-16T11:00:00Z`},
		// The zero time is how an unset option reads: taken, it became no
		// time at all (checks.json's, or "needs --to-time"). Before 1970
		// means nothing to Kafka.
		{[]string{"reset", "--group", "g", "--to-time", "0001-01-01T00:00:00Z"}, 2, `--to-time "0001-01-01T00:00:00Z": is before 1970-01-01T00:00:00Z`},
		{[]string{"reset", "--group", "g", "--to-time", "1969-12-31T23:59:59.999Z"}, 2, `is before 1970-01-01T00:00:00Z`},
		{[]string{"reset", "--to-time", "2026-07-16T11:00:00Z"}, 2, "--group"},
		// The folder's cut recorded no group: g is unknown (exit 4), not "nothing to judge".
		{[]string{"reset", "--group", "g", "--to-time", "2026-07-16T11:00:00Z", "--partitions", "0"}, 4, `group "g" is in no snapshot`},
		{[]string{"gaps", "--plan", "x.csv"}, 2, "--plan: only check reset writes a plan"},
	} {
		code, stdout, stderr := cli(t, append(append([]string{"check"}, c.args...), "--dir", dir, "--topic", "events")...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("check %v: exit %d, want %d with %q:\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
	code, stdout, _ := cli(t, "check", "--list")
	if code != 0 {
		t.Fatalf("check --list: exit %d", code)
	}
	for _, name := range queries.CheckNames {
		if !strings.Contains(stdout, name) {
			t.Errorf("check --list lacks %s", name)
		}
	}
}

// TestCheckResetWritesThePlan: check reset on the wind farm's incident
// folder prints the verdict and the kafka-consumer-groups.sh command, and
// --plan writes the CSV --from-file reads, one line per partition.
func TestCheckResetWritesThePlan(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), dir, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(t.TempDir(), "plan.csv")
	code, stdout, stderr := cli(t, "check", "reset", "--dir", dir, "--topic", "readings", "--group", seeds.IncidentGroup,
		"--to-time", "2026-07-16T11:00:00Z", "--partitions", "18-20,23", "--plan", plan)
	if code != 0 || !strings.Contains(stdout, "WARN reset on readings") || !strings.Contains(stdout, "galewatch-watcher-1") ||
		!strings.Contains(stdout, "--topic readings:18,19,20,23 --reset-offsets --to-datetime 2026-07-16T11:00:00.000Z --dry-run") {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
	// Hosts as people read them, not the client's "/10.20.3.40" in a list.
	if strings.Contains(stdout, `"/10.`) || !strings.Contains(stdout, " 10.20.3.40") {
		t.Errorf("hosts:\n%s", stdout)
	}
	// Counts in the WARN line with thousands separators.
	if !strings.Contains(stdout, "would re-read 10,079 records on 4 partitions: 5,040 by galewatch-watcher-1") {
		t.Errorf("WARN line:\n%s", stdout)
	}
	b, err := os.ReadFile(plan)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "readings,18,0\nreadings,19,0\nreadings,20,0\nreadings,23,0\n" {
		t.Fatalf("plan:\n%s", got)
	}
}

// TestCheckTakesTheOnlyTopic: on a folder of one topic, check needs no
// --topic (the server's /api/checks/NAME takes its only topic too) and says
// which it took; a folder of none still asks for it.
func TestCheckTakesTheOnlyTopic(t *testing.T) {
	dir := smallFolder(t)
	_, withTopic, _ := cli(t, "check", "gaps", "--dir", dir, "--topic", "events", "--format", "json")
	code, stdout, stderr := cli(t, "check", "gaps", "--dir", dir, "--format", "json")
	if code != 0 || stdout != withTopic || !strings.Contains(stderr, "check on events, the folder's only topic") {
		t.Fatalf("exit %d\n%s%s\nwant the same as with --topic events:\n%s", code, stdout, stderr, withTopic)
	}
}
