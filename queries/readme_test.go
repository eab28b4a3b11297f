package queries

import (
	"os"
	"strings"
	"testing"
)

// checksTable is the README's table of checks, made from the registry.
func checksTable() string {
	metavar := map[OptionKind]string{KindExpr: " EXPR", KindText: " NAME", KindFile: " FILE", KindNumber: " N", KindInt: " N", KindSeconds: " DURATION", KindTime: " TIME", KindList: " LIST"}
	var b strings.Builder
	b.WriteString("| check | answers | options |\n| --- | --- | --- |\n")
	for _, c := range Checks() {
		var opts []string
		for _, n := range c.Options {
			op := CheckOptionSet[n]
			s := "`--" + op.FlagName() + metavar[op.Kind] + "`"
			if op.Default != "" {
				s += " (" + op.Default + ")"
			}
			opts = append(opts, s)
		}
		b.WriteString("| `" + c.Name + "` | " + strings.ReplaceAll(c.Summary, "|", `\|`) + " | " + strings.Join(opts, ", ") + " |\n")
	}
	return b.String()
}

// TestREADMEChecksTable fails when the README's table of checks is not the
// registry's; go test ./queries -run README -update rewrites it.
func TestREADMEChecksTable(t *testing.T) {
	const begin, end = "<!-- checks table: made by go test ./queries -run README -update -->\n", "<!-- end of checks table -->"
	path := "../README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no checks table between %q and %q", strings.TrimSpace(begin), end)
	}
	want := checksTable()
	if got := s[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's checks table is stale; run: go test ./queries -run README -update\n--- README\n%s--- registry\n%s", got, want)
	}
}
