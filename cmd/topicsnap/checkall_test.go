package main

import (
	"encoding/json"
	"testing"
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
	if len(got) != 9 || got["missing"] != "skipped" || got["missing message"] != "not run: needs --match and --against or --against-topic" {
		t.Errorf("without options: %v", got)
	}
	got = statuses("--match", "value.id", "--against-topic", "events", "--against-match", "value.id")
	if got["missing"] != "ok" {
		t.Errorf("with options, missing is %q", got["missing"])
	}
}
