package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/queries"
)

// shellSplit splits a command line the demo printed: words separated by
// spaces, single quotes taken literally, '\” an escaped quote.
func shellSplit(s string) []string {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// TestDemoPrintsTheCommandOfEachVerdict: both scenarios print every
// verdict with the command line that gives it, and running that command
// gives the same verdict.
func TestDemoPrintsTheCommandOfEachVerdict(t *testing.T) {
	for _, c := range []struct {
		scenario string
		args     []string
		want     []string
	}{
		{"teashop", []string{"--users", "200"}, []string{"missing", "duplicates", "--silence 30m"}},
		{"windfarm", nil, []string{"members", "reset", "lag", "skew", "58,800 by galewatch-watcher-1", "92,400 by galewatch-watcher-2",
			"58,800 by galewatch-writer-1", "16,800 by galewatch-writer-2", "what did the routing table say last Tuesday", `ardnave-point on ["pg-07","pg-08"] (now ["pg-07","pg-08","pg-19"])`,
			"skipped missing    not run: needs --match and --against or --against-topic, which this scenario does not have"}},
	} {
		dir := filepath.Join(t.TempDir(), "snaps")
		code, stdout, stderr := cli(t, append([]string{"demo", "--scenario", c.scenario, "--dir", dir, "--serve=false"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.scenario, code, stdout, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: no %q in\n%s", c.scenario, w, stdout)
			}
		}
		lines := strings.Split(stdout, "\n")
		verdicts := 0
		said := map[string]bool{} // the checks the output runs or names
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 1 && slices.Contains([]string{notRun, queries.StatusOK, queries.StatusWarn, queries.StatusFail, queries.StatusSkipped}, f[0]) {
				said[f[1]] = true
			}
		}
		for _, n := range queries.CheckNames {
			if !said[n] {
				t.Errorf("%s: check %s of the registry is neither run nor named:\n%s", c.scenario, n, stdout)
			}
		}
		for i := 0; i+1 < len(lines); i++ {
			cmdline, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "$ topicsnap ")
			if !ok {
				continue
			}
			args := shellSplit(cmdline)
			if args[0] == "sql" {
				// The routing question: it runs as printed.
				code, out, errs := cli(t, args...)
				if code != 0 || !strings.Contains(out, "ardnave-point") {
					t.Errorf("%s: %q exit %d:\n%s%s", c.scenario, cmdline, code, out, errs)
				}
				continue
			}
			status := strings.Fields(lines[i])[0]
			code, out, errs := cli(t, args...)
			if status == notRun {
				// Named, not run: the command runs as printed and gives a verdict.
				if (code != exitOK && code != exitCheckFailed) || !regexp.MustCompile(`^(OK|WARN|FAIL) `+args[1]+` `).MatchString(out) {
					t.Errorf("%s: the named %q: exit %d:\n%s%s", c.scenario, cmdline, code, out, errs)
				}
				continue
			}
			verdicts++
			if !strings.HasPrefix(out, strings.ToUpper(status)+" "+args[1]+" ") {
				t.Errorf("%s: %q printed %s, the command says:\n%s%s", c.scenario, cmdline, status, out, errs)
			}
		}
		if verdicts < 4 {
			t.Errorf("%s: %d verdicts with a command:\n%s", c.scenario, verdicts, stdout)
		}
		// The folder keeps the checks the demo ran, in its order, for
		// check all and the overview: the wind farm's leads with members.
		kept, err := queries.ReadChecksFile(dir)
		if err != nil || len(kept) != verdicts {
			t.Errorf("%s: checks.json holds %d checks (%v), the demo ran %d", c.scenario, len(kept), err, verdicts)
		} else if c.scenario == "windfarm" && (kept[0].Check != "members" || kept[1].Check != "reset" || kept[1].Options["partitions"] != "0,1,2,3,4,5") {
			t.Errorf("windfarm: checks.json %+v", kept)
		}
		if c.scenario == "windfarm" {
			// With the file, check reset needs no options and says the same.
			_, out, _ := cli(t, "check", "reset", "--dir", dir, "--topic", "readings")
			if !strings.Contains(out, "226,800 records on 6 partitions: 58,800 by galewatch-watcher-1, 92,400 by galewatch-watcher-2") {
				t.Errorf("check reset from checks.json:\n%s", out)
			}
		}
	}
	if code, _, stderr := cli(t, "demo", "--scenario", "moon", "--dir", t.TempDir(), "--serve=false"); code != 2 || !strings.Contains(stderr, `--scenario "moon": use teashop or windfarm`) {
		t.Errorf("unknown scenario: exit %d: %s", code, stderr)
	}
}

// TestDemoScenariosCoverTheRegistry: the demo's checks are derived from the
// registry. The tea shop runs every check in the registry's order; the wind
// farm runs its story's checks first, then names every other one; and every
// check is run (with the options it needs) by at least one of them.
func TestDemoScenariosCoverTheRegistry(t *testing.T) {
	names := func(cs []demoCheck) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.name)
		}
		return out
	}
	run := map[string]bool{}
	tea := demoChecks("DIR")
	if got := names(tea); !slices.Equal(got, queries.CheckNames) {
		t.Errorf("the tea shop runs %v, the registry holds %v", got, queries.CheckNames)
	}
	for _, c := range tea {
		if c.named {
			t.Errorf("the tea shop only names %s: it runs every check", c.name)
		}
		if len(queries.Needs(c.name, c.opts)) == 0 {
			run[c.name] = true
		}
	}
	wind := windFarmChecks()
	story := windFarmStory()
	if got := names(wind); !slices.Equal(got[:len(story)], names(story)) {
		t.Errorf("the wind farm does not begin with its story: %v", got)
	}
	seen := map[string]int{}
	for i, c := range wind {
		seen[c.name]++
		if c.named != (i >= len(story)) {
			t.Errorf("the wind farm's %s: named %v at %d (its story has %d checks)", c.name, c.named, i, len(story))
		}
		if !c.named && len(queries.Needs(c.name, c.opts)) == 0 {
			run[c.name] = true
		}
	}
	for _, n := range queries.CheckNames {
		if seen[n] != 1 {
			t.Errorf("the wind farm runs or names %s %d times, want once", n, seen[n])
		}
		if !run[n] {
			t.Errorf("no scenario runs %s with the options it needs", n)
		}
	}
	if len(wind) != len(queries.CheckNames) {
		t.Errorf("the wind farm has %d checks, the registry %d: %v", len(wind), len(queries.CheckNames), names(wind))
	}
}
