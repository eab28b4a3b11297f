package queries

import (
	"context"
	"errors"
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

// TestSparkFunctionsOnSparkOnly: a statement for the remote Spark engine
// may call Spark's read-only functions of sparkFunctions; reflect and
// java_method (any Java method) stay refused, and on DuckDB the Spark
// functions are refused too.
func TestSparkFunctionsOnSparkOnly(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	conn, err := e.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, c := range []struct {
		q             string
		spark, duckdb bool // allowed on each
	}{
		{`SELECT input_file_name() AS f, count(*) FROM "shop.events-v2" GROUP BY 1`, true, false},
		{`SELECT get_json_object(decode(value_raw), '$.a') FROM "shop.events-v2"`, true, false},
		{`SELECT reflect('java.lang.Thread', 'sleep', 100000) FROM "shop.events-v2"`, false, false},
		{`SELECT java_method('java.lang.System', 'exit', 1)`, false, false},
		{`SELECT json_structure(decode(value_raw)) FROM "shop.events-v2"`, false, false},
		{`SELECT count(*) FROM "shop.events-v2"`, true, true},
	} {
		doc, err := parseSQL(ctx, conn, c.q)
		if err != nil {
			t.Fatal(err)
		}
		for _, spark := range []bool{true, false} {
			err := e.guardFor(ctx, conn, doc, spark)
			want := c.duckdb
			if spark {
				want = c.spark
			}
			if (err == nil) != want || err != nil && !errors.Is(err, ErrRefused) {
				t.Errorf("%s on spark=%v: %v, want allowed %v", c.q, spark, err, want)
			}
		}
	}
}
