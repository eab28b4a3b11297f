// Command testreport reads `go test -json` on its standard input and
// prints what a person needs from a whole run: a line per package (ok,
// FAIL, no tests), the full output of every failed test, and a line per
// skipped test with its reason. A skip is allowed only when a line of the
// expected-skips file names it (package and test, each a regular
// expression matched whole, then why); any other skip fails the run, so
// no test that did not run can pass for green.
//
//	go test -json ./... | go run ./scripts/testreport -expect scripts/expected-skips.txt
//
// Exit status: 0 when every test passed or was an expected skip; 1 when
// a test or package failed, a skip was not expected, or the input held
// no test at all.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// event is one line of test2json (go doc test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

// expectation is one line of the expected-skips file.
type expectation struct {
	pkg, test *regexp.Regexp
	why       string
	line      int
	used      bool
}

func main() {
	expect := flag.String("expect", "", "the expected-skips file (package-regexp test-regexp why)")
	flag.Parse()
	var exps []*expectation
	if *expect != "" {
		var err error
		if exps, err = readExpectations(*expect); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
	}
	os.Exit(report(os.Stdin, os.Stdout, exps))
}

func readExpectations(path string) ([]*expectation, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read expected skips: %w", err)
	}
	var out []*expectation
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want `package-regexp test-regexp why`", path, i+1)
		}
		p, err := regexp.Compile("^(?:" + f[0] + ")$")
		if err != nil {
			return nil, fmt.Errorf("%s:%d: package: %w", path, i+1, err)
		}
		t, err := regexp.Compile("^(?:" + f[1] + ")$")
		if err != nil {
			return nil, fmt.Errorf("%s:%d: test: %w", path, i+1, err)
		}
		out = append(out, &expectation{pkg: p, test: t, why: strings.Join(f[2:], " "), line: i + 1})
	}
	return out, nil
}

type key struct{ pkg, test string }

// report reads the stream, prints the summary and returns the exit status.
func report(in io.Reader, out io.Writer, exps []*expectation) int {
	outputs := map[key]*strings.Builder{}
	var passed, failed, skipped, unexpected int
	var failures []string
	var skips []string
	status := 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Action == "" {
			// Not an event (a build error printed by go itself): show it.
			fmt.Fprintln(out, string(line))
			continue
		}
		if ev.Action == "build-output" || ev.Action == "build-fail" {
			if ev.Output != "" {
				fmt.Fprint(out, ev.Output)
			}
			if ev.Action == "build-fail" {
				status = 1
			}
			continue
		}
		k := key{ev.Package, ev.Test}
		switch ev.Action {
		case "output":
			b := outputs[k]
			if b == nil {
				b = &strings.Builder{}
				outputs[k] = b
			}
			if b.Len() < 1<<20 {
				b.WriteString(ev.Output)
			}
		case "pass":
			if ev.Test == "" {
				fmt.Fprintf(out, "ok   %s\t%s\n", ev.Package, dur(ev.Elapsed))
			} else {
				passed++
			}
			delete(outputs, k)
		case "skip":
			if ev.Test == "" {
				fmt.Fprintf(out, "--   %s\t(no tests)\n", ev.Package)
				delete(outputs, k)
				continue
			}
			skipped++
			why := skipReason(outputs[k])
			delete(outputs, k)
			e := match(exps, ev.Package, ev.Test)
			if e == nil {
				unexpected++
				skips = append(skips, fmt.Sprintf("SKIP (not expected) %s %s: %s", ev.Package, ev.Test, why))
			} else {
				e.used = true
				skips = append(skips, fmt.Sprintf("SKIP %s %s: %s", ev.Package, ev.Test, why))
			}
		case "fail":
			status = 1
			if ev.Test == "" {
				fmt.Fprintf(out, "FAIL %s\t%s\n", ev.Package, dur(ev.Elapsed))
				if b := outputs[k]; b != nil {
					fmt.Fprint(out, indent(b.String()))
				}
			} else {
				failed++
				failures = append(failures, ev.Package+" "+ev.Test)
				fmt.Fprintf(out, "--- FAIL: %s %s (%s)\n", ev.Package, ev.Test, dur(ev.Elapsed))
				if b := outputs[k]; b != nil {
					fmt.Fprint(out, indent(b.String()))
				}
			}
			delete(outputs, k)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testreport: read:", err)
		status = 1
	}
	sort.Strings(skips)
	for _, s := range skips {
		fmt.Fprintln(out, s)
	}
	fmt.Fprintf(out, "tests: %d passed, %d failed, %d skipped (%d not expected)\n", passed, failed, skipped, unexpected)
	if len(failures) > 0 {
		fmt.Fprintln(out, "failed:", strings.Join(failures, ", "))
	}
	if unexpected > 0 {
		fmt.Fprintln(out, "FAIL: a skip not listed in the expected-skips file is a test that did not run")
		status = 1
	}
	if passed+failed == 0 {
		fmt.Fprintln(out, "FAIL: no test ran")
		status = 1
	}
	return status
}

func match(exps []*expectation, pkg, test string) *expectation {
	for _, e := range exps {
		if e.pkg.MatchString(pkg) && e.test.MatchString(test) {
			return e
		}
	}
	return nil
}

// skipReason is the test's last output line that is not the framework's
// own "--- SKIP" line: what t.Skip said.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		return l
	}
	return "(no reason given)"
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}

func dur(sec float64) string {
	return (time.Duration(sec * float64(time.Second))).Round(10 * time.Millisecond).String()
}
