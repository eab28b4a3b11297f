package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rawFloat is a number printed as Go or DuckDB print a float: four or more
// decimals, or a long fraction of one.
var rawFloat = regexp.MustCompile(`(^|[^0-9.:])[0-9]+\.[0-9]{4,}([^0-9]|$)`)

// TestCheckOutputHasNoRawFloats: the README promises figures a person
// reads (shares as percentages, counts with separators): every check's
// text output on the demo's folder, as the demo prints its command, prints
// no raw float.
func TestCheckOutputHasNoRawFloats(t *testing.T) {
	// The demo's own folder: the tea shop's Monday through the embedded
	// Kafka, with the kitchen display's group that members and reset ask
	// about.
	dir := filepath.Join(t.TempDir(), "demo")
	if code, out, errs := cli(t, "demo", "--dir", dir, "--users", "200", "--serve=false"); code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errs)
	}
	for _, c := range demoChecks(dir) {
		// The command line the demo prints for the check, as a shell reads it.
		args := shellSplit(strings.TrimPrefix(c.command(dir), "topicsnap "))
		code, out, errs := cli(t, args...)
		if code != exitOK && code != exitCheckFailed {
			t.Errorf("%v: exit %d: %s", args, code, errs)
			continue
		}
		if m := rawFloat.FindString(out); m != "" {
			t.Errorf("check %s prints a raw float %q:\n%s", c.name, m, out)
		}
	}
}
