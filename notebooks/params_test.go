package notebooks

import (
	"errors"
	"strings"
	"testing"
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
