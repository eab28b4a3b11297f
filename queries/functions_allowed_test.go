package queries

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestAllowedFunctionsFile: allowed_functions.txt is exactly this DuckDB's
// functions (and topicsnap's own) less notAllowed; -update rewrites it.
func TestAllowedFunctionsFile(t *testing.T) {
	e, err := Open(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, err := e.DB().QueryContext(context.Background(), `SELECT DISTINCT lower(function_name) FROM duckdb_functions()
WHERE function_type IN ('scalar', 'aggregate', 'macro') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	seen := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		seen[n] = true
		if _, no := notAllowed[n]; !no {
			names = append(names, n)
		}
	}
	for n := range notAllowed {
		if seen[n] && allowedFunctions[n] {
			t.Errorf("%s is both allowed and not", n)
		}
	}
	want := "# The functions untrusted SQL may call (see functions_allowed.go).\n" +
		"# Generated: go test ./queries -run TestAllowedFunctionsFile -update\n" + strings.Join(names, "\n") + "\n"
	if *update {
		if err := os.WriteFile("allowed_functions.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != allowedFunctionsText {
		var added []string
		for _, n := range names {
			if !allowedFunctions[n] {
				added = append(added, n)
			}
		}
		t.Fatalf("allowed_functions.txt is not this DuckDB's list (new here: %v); review and run with -update", added)
	}
	if !slices.IsSorted(names) || len(names) < 500 {
		t.Fatalf("%d names", len(names))
	}
}
