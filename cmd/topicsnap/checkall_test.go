package main

import (
	"encoding/json"
	"strings"
	"testing"

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
	if len(got) != len(queries.CheckNames)+1 || got["missing"] != "skipped" || got["missing message"] != "not run: needs --match and --against or --against-topic" {
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
		{[]string{"freshness", "--silence", "0"}, 2, `--silence "0": must be more than 0 seconds`},
		{[]string{"freshness", "--silence", "soon"}, 2, "--silence \"soon\": is a duration"},
		{[]string{"skew", "--hot", "-1"}, 2, `--hot "-1": must be between 1 and 1e+06`},
		{[]string{"skew", "--what-if-key", "key", "--partitions", "10001"}, 2, `--partitions "10001": must be between 1 and 10000`},
		{[]string{"freshness", "--silence", "90s"}, 0, "OK freshness"},
		{[]string{"missing", "--match", "value.id", "--against-topic", "events", "--against-match", "value.id", "--reverse"}, 0, "unexpected=0"},
		{[]string{"nosuch"}, 2, `unknown check "nosuch"`},
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
