// Package hostile holds what the security tests of queries, server and the
// command line share: texts that try to turn a check option into a
// statement, a file read or write, a disclosure or a stall, and a hash of
// a folder to prove that nothing in it changed.
package hostile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// FolderHash hashes the name, mode and bytes of every file under dir: equal
// before and after means nothing in the folder was written, added, removed
// or renamed.
func FolderHash(t testing.TB, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := ""
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			h = hex.EncodeToString(s[:])
		}
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, fmt.Sprintf("%s %v %s", rel, info.Mode(), h))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Expressions are attempts to turn a check option into a statement,
// a file read or write, a disclosure or a stall. DIR stands for the
// snapshot folder. Every one must be refused (as an option error, or by
// DuckDB when it binds the check's statement); none may change anything.
// The report's own payload is not refused: its comment hides the COPY from
// the parser too, so what DuckDB reads is the constant 1, and 1 is what is
// embedded (TestExpressionsAreEmbeddedAsDuckDBRendersThem).
func Expressions(dir string) []string {
	x := []string{
		// The report's payload, with a subquery after the comment.
		"1 /*\nCOPY (SELECT 42 AS x) TO 'DIR/pwned.csv'; --'*/ + (SELECT 1)",
		// Closing the template's parenthesis.
		"1) AS x FROM \"shop.events-v2\"; COPY (SELECT 1) TO 'DIR/p.csv'; SELECT (1",
		"key) FROM \"shop.events-v2\" WHERE (1",
		"key), (value",
		"1; COPY files TO 'DIR/x.csv'",
		"1 -- \n) FROM files; DROP VIEW \"shop.events-v2\"; SELECT (1",
		"'x'; ATTACH 'DIR/x.db' AS x; --",
		"$$x$$; ATTACH 'DIR/x.db'",
		"$tag$ ' $tag$; INSTALL httpfs",
		"E'\\''); COPY (SELECT 1) TO 'DIR/e.csv'; --",
		"key::VARCHAR; INSTALL httpfs",
		"(COPY (SELECT 1) TO 'DIR/n.csv')",
		// Reads and disclosure.
		"(SELECT content FROM read_text('DIR/topicsnap.json'))",
		"error((SELECT string_agg(file, ',') FROM glob('DIR/*')))",
		"(FROM 'DIR/topicsnap.json')",
		"(SELECT 1 FROM files)",
		"EXISTS (SELECT 1 FROM files)",
		"key IN (SELECT file FROM files)",
		"[x FOR x IN (SELECT 1)]",
		"'a' || (SELECT value FROM duckdb_settings() LIMIT 1)",
		"current_setting('allowed_directories')",
		"CURRENT_SETTING('temp_directory')",
		"pg_catalog.current_setting('temp_directory')",
		"getvariable('x')",
		"pg_get_viewdef('shop.events-v2')",
		"write_log('x')",
		"pg_sleep(100)",
		"getenv('HOME')",
		// Functions that kill or swamp the process on a deep value.
		"json_structure(decode(value_raw))",
		"length(json_group_structure('{}'::JSON)::VARCHAR)",
		"json_structure('" + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "')",
		"json_merge_patch(decode(value_raw), '{}')",
		"length(json_pretty(decode(value_raw)))",
		// Broken quoting and unicode tricks.
		"'",
		"\"",
		"key /*",
		"1 \u2028; COPY files TO 'DIR/u.csv'",
		"1 \uff1b COPY files TO 'DIR/w.csv'",
		"1 \x00; COPY files TO 'DIR/z.csv'",
		"1 AS x FROM files --",
		"*",
		"$1",
		"?",
		strings.Repeat("(", 3000) + "1" + strings.Repeat(")", 3000),
		"   ",
	}
	for i := range x {
		x[i] = strings.ReplaceAll(x[i], "DIR", dir)
	}
	return x
}

// Quoted holds, for each kind of quote and comment DuckDB reads, a piece of
// SQL with a ';', a {{placeholder}} and a ':param' inside it: a lexer that
// ends a statement or fills a placeholder there is wrong. Kind is what
// DuckDB reads the piece as: string, identifier, dollar, line comment or
// block comment. A line comment's piece needs a line break after it.
var Quoted = []struct{ Name, Text, Kind string }{
	{"string", `'a;{{p}}:p'`, "string"},
	{"string with a doubled quote", `'it''s; {{p}} :p'`, "string"},
	{"string ending in a backslash", `'C:\dir\'`, "string"},
	{"escape string", `E'it\'s; {{p}} :p'`, "string"},
	{"escape string, lower case", `e'a\\;'`, "string"},
	{"escape string with a doubled quote", `E'a''; {{p}}'`, "string"},
	{"quoted identifier", `"a;{{p}}:p"`, "identifier"},
	{"quoted identifier with a doubled quote", `"a"";{{p}}"`, "identifier"},
	{"dollar quote", `$$a;{{p}}:p'"--/*$$`, "dollar"},
	{"tagged dollar quote", `$tag$a$$;{{p}}$ta$$tag$`, "dollar"},
	{"dollar tag with a digit and an underscore", `$_t1$;$_t1$`, "dollar"},
	{"dollar tag in UTF-8", `$é$;{{p}}$é$`, "dollar"},
	{"line comment", "-- a;{{p}} :p '\"$$ /*", "line comment"},
	{"block comment", `/* a;{{p}} :p ' " $$ -- */`, "block comment"},
	{"nested block comment", `/* a /* b; */ {{p}}; */`, "block comment"},
	{"block comment of stars", `/***;***/`, "block comment"},
}
