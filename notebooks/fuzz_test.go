package notebooks

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: any Markdown either parses or is refused with a ParseError
// naming a line; never a panic.
func FuzzParse(f *testing.F) {
	f.Add("---\ntitle: t\ntopic: app_events\n---\n# T\n\n```sql chart=bar x=a y=b\nSELECT 1 AS a, 2 AS b\n```\n")
	f.Add("```sql\nSELECT {{topic}}\n")
	f.Add("---\nkey: 'u\"1'\n---\n```sql limit=5\nSELECT {{key}}\n```\n")
	f.Add("```sql title=\"x\" chart=line x=a y=b series=c\n```")
	f.Fuzz(func(t *testing.T, src string) {
		nb, err := Parse("fuzz.md", []byte(src))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a ParseError: %v", err)
			}
			return
		}
		for _, c := range nb.Cells() {
			Substitute(c.Text, nb.Params)
		}
	})
}

// FuzzSubstituteQuotes: a parameter's value always lands as one quoted
// literal, whatever it holds.
func FuzzSubstituteQuotes(f *testing.F) {
	for _, s := range []string{"u000001", "'; DROP TABLE files; --", `"`, "''", "\\", "{{key}}", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out, err := Substitute("SELECT {{key}} AS k", map[string]string{"key": v})
		if err != nil {
			return
		}
		want := "SELECT '" + strings.ReplaceAll(v, "'", "''") + "' AS k"
		if out != want {
			t.Fatalf("value %q became %q, want %q", v, out, want)
		}
	})
}
