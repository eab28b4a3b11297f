package notebooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/queries/hostile"
)

// A parameter the notebook neither declares nor uses is refused, naming
// those it takes: a misspelt --param must not run the defaults silently.
func TestCheckParams(t *testing.T) {
	nb, err := Parse("lost.md", []byte("---\ntopic: app_events\nkey: u000001\n---\n\n```sql\nSELECT * FROM {{topic}} WHERE key = {{key}} AND at > {{since}}\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	none, err := Parse("plain.md", []byte("```sql\nSELECT 1\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		nb     *Notebook
		params map[string]string
		text   string // "" when accepted
	}{
		{"declared", nb, map[string]string{"key": "u2", "topic": "t"}, ""},
		{"used in a cell, not declared", nb, map[string]string{"since": "2026-01-01"}, ""},
		{"unknown", nb, map[string]string{"unknown": "1"}, "unknown parameter unknown: this notebook takes key, since, topic"},
		{"two unknown", nb, map[string]string{"ky": "1", "topc": "x"}, "unknown parameters ky, topc: this notebook takes key, since, topic"},
		{"dir", nb, map[string]string{"dir": "/tmp"}, "dir is reserved"},
		{"a notebook without parameters", none, map[string]string{"key": "1"}, "this notebook takes no parameters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.nb.CheckParams(c.params)
			if c.text == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnknownParam) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("got %v, want ErrUnknownParam saying %q", err, c.text)
			}
		})
	}
}

// A placeholder inside any kind of quote or comment (as DuckDB reads them:
// internal/sqllex) is left as written; one beside it is filled. What is
// left open runs to the end of the cell and is left alone too, for DuckDB
// to name when the cell runs.
func TestSubstituteReadsQuotesAsDuckDB(t *testing.T) {
	params := map[string]string{"p": "v"}
	for _, q := range hostile.Quoted {
		t.Run(q.Name, func(t *testing.T) {
			sql := "SELECT {{p}}, " + q.Text + "\n, {{p}}"
			want := "SELECT 'v', " + q.Text + "\n, 'v'"
			got, err := Substitute(sql, params)
			if err != nil || got != want {
				t.Fatalf("Substitute(%q) = %q, %v; want %q", sql, got, err, want)
			}
		})
	}
	for _, c := range []struct{ sql, want string }{
		{"SELECT {{p}}, 'open {{p}}", "SELECT 'v', 'open {{p}}"},
		{"SELECT {{p}} /* open {{p}}", "SELECT 'v' /* open {{p}}"},
		{"SELECT {{p}}, $t$ open {{p}} $u$", "SELECT 'v', $t$ open {{p}} $u$"},
		{"SELECT a$$ {{p}}", "SELECT a$$ 'v'"}, // a$$ is a name, not a dollar quote
	} {
		got, err := Substitute(c.sql, params)
		if err != nil || got != c.want {
			t.Errorf("Substitute(%q) = %q, %v; want %q", c.sql, got, err, c.want)
		}
	}
}
