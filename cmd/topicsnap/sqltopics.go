package main

import (
	"regexp"
	"strings"

	"github.com/topicsnap/topicsnap/internal/sqllex"
	"github.com/topicsnap/topicsnap/queries"
)

// word is an unquoted identifier as DuckDB reads one (a $ inside it
// included: "t$all" may be written t$all).
var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*`)

// folderWide are the words after which a one-shot query may read any
// topic, or every topic, without naming it: the folder-wide tables and
// macros, and the ways to list or reach tables by name.
var folderWide = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range queries.FolderWideNames() {
		m[n] = true
	}
	for _, n := range []string{"show", "describe", "summarize", "information_schema", "pg_catalog", "sqlite_master",
		"query", "query_table", "pragma", "attach", "use", "export", "import", "copy"} {
		m[n] = true
	}
	return m
}()

// topicsNamed returns the topics of names a one-shot query text reads by
// naming them, so that the engine reads only their manifests
// (Options.Topics); nil, for every topic, when it names none, when it
// names anything that reads the folder as a whole (a catalog table, a
// table macro, SHOW, information_schema, duckdb_* functions, query_table),
// or when the text does not lex. A name that is not a table (a column, an
// alias) only adds a topic to read: never wrong, at most slower.
func topicsNamed(text string, names []string) []string {
	toks, err := sqllex.Tokens(text)
	if err != nil {
		return nil
	}
	byLower := map[string][]string{}
	for _, n := range names {
		byLower[strings.ToLower(n)] = append(byLower[strings.ToLower(n)], n)
	}
	seen := map[string]bool{}
	var out []string
	add := func(ident string) bool {
		l := strings.ToLower(ident)
		if folderWide[l] || strings.HasPrefix(l, "duckdb_") || strings.HasPrefix(l, "read_") {
			return false
		}
		for _, suffix := range []string{"$all", "$superseded"} {
			l = strings.TrimSuffix(l, suffix)
		}
		for _, n := range byLower[l] {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		return true
	}
	for _, t := range toks {
		switch t.Kind {
		case sqllex.Code:
			for _, w := range word.FindAllString(t.Text, -1) {
				if !add(w) {
					return nil
				}
			}
		case sqllex.QuotedIdent:
			if !add(strings.ReplaceAll(t.Text[1:len(t.Text)-1], `""`, `"`)) {
				return nil
			}
		}
	}
	return out
}
