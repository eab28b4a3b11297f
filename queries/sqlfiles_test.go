package queries

import (
	"strings"
	"testing"
)

// TestEverySQLFileParses: the statements are parsed when first rendered,
// not at start-up, so this parses every file for DuckDB and for each
// remote dialect (what a broken file would otherwise only show when its
// check ran).
func TestEverySQLFileParses(t *testing.T) {
	files, err := sqlFS.ReadDir("sql")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		name := f.Name()
		if strings.Count(name, ".") > 1 {
			if sqlTemplates.lookup(name) != nil {
				t.Errorf("%s, a dialect's variant, was parsed as DuckDB's", name)
			}
			continue
		}
		n++
		if sqlTemplates.lookup(name) == nil {
			t.Errorf("%s: not found", name)
		}
		for d, c := range dialectTemplates {
			if c.lookup(name) == nil {
				t.Errorf("%s in %s: not found", name, d)
			}
		}
	}
	if n < 40 {
		t.Errorf("%d statements; the embedded folder lost its files", n)
	}
	if sqlTemplates.lookup("no_such_statement.sql") != nil {
		t.Error("a statement that is not there was found")
	}
}
