package queries

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// TestFolderWideNamesAreComplete: every view, table and table macro an
// engine builds is a topic's view or one of FolderWideNames. The list is
// kept by hand (sql -c limits an engine to the topics a query names unless
// it names one of these), so a new catalog table, view or macro that is not
// added to it fails here, not in a user's one-shot query that quietly read
// only some topics' rows.
func TestFolderWideNamesAreComplete(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(dir, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.HasCommitLog() {
		t.Fatal("the wind farm's day holds no commit log: the log views are not tried")
	}
	rows, err := e.DB().QueryContext(ctx, `SELECT DISTINCT n FROM (
		SELECT view_name AS n FROM duckdb_views() WHERE NOT internal AND NOT temporary
		UNION ALL SELECT table_name FROM duckdb_tables() WHERE NOT temporary
		UNION ALL SELECT function_name FROM duckdb_functions() WHERE function_type = 'table_macro' AND NOT internal) ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	wide := FolderWideNames()
	var topics []string
	for _, tp := range e.Topics() {
		topics = append(topics, tp.Name)
	}
	seen := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		base, _, _ := strings.Cut(n, "$")
		if slices.Contains(topics, base) {
			continue
		}
		seen[n] = true
		if !slices.Contains(wide, n) {
			t.Errorf("%s is neither a topic's view nor in FolderWideNames: add it there (queries/grouplog.go)", n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, n := range wide {
		if !seen[n] {
			t.Errorf("FolderWideNames lists %s, which this engine did not build", n)
		}
	}
}
