package main

import (
	"regexp"
	"strings"
	"testing"
)

func ev(action, pkg, test, output string) string {
	s := `{"Action":"` + action + `","Package":"` + pkg + `"`
	if test != "" {
		s += `,"Test":"` + test + `"`
	}
	if output != "" {
		s += `,"Output":` + strings.ReplaceAll(`"`+output+`"`, "\n", `\n`)
	}
	return s + "}\n"
}

func TestReport(t *testing.T) {
	exp := []*expectation{{pkg: regexp.MustCompile("^(?:p)$"), test: regexp.MustCompile("^(?:TestHelper)$"), why: "helper"}}
	tests := []struct {
		name   string
		in     string
		status int
		want   []string
	}{
		{"all pass", ev("run", "p", "TestA", "") + ev("pass", "p", "TestA", "") + ev("pass", "p", "", ""), 0,
			[]string{"ok   p", "1 passed, 0 failed, 0 skipped"}},
		{"expected skip", ev("pass", "p", "TestA", "") + ev("output", "p", "TestHelper", "    x_test.go:9: helper process\n") +
			ev("output", "p", "TestHelper", "--- SKIP: TestHelper (0.00s)\n") + ev("skip", "p", "TestHelper", ""), 0,
			[]string{"SKIP p TestHelper: x_test.go:9: helper process", "1 skipped (0 not expected)"}},
		{"unexpected skip fails", ev("pass", "p", "TestA", "") + ev("output", "p", "TestB", "    b_test.go:3: no server\n") +
			ev("skip", "p", "TestB", ""), 1,
			[]string{"SKIP (not expected) p TestB: b_test.go:3: no server", "FAIL: a skip not listed"}},
		{"failure shows its output", ev("output", "p", "TestA", "    a_test.go:1: got 1 want 2\n") + ev("fail", "p", "TestA", "") +
			ev("fail", "p", "", ""), 1,
			[]string{"--- FAIL: p TestA", "a_test.go:1: got 1 want 2", "FAIL p", "failed: p TestA"}},
		{"no test at all fails", ev("skip", "p", "", ""), 1, []string{"FAIL: no test ran"}},
		{"build failure fails", `{"ImportPath":"p","Action":"build-output","Output":"x.go:1: undefined: y\n"}` + "\n" +
			`{"ImportPath":"p","Action":"build-fail"}` + "\n" + ev("pass", "q", "TestA", ""), 1, []string{"undefined: y"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if got := report(strings.NewReader(tc.in), &out, exp); got != tc.status {
				t.Errorf("status %d, want %d\n%s", got, tc.status, out.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
