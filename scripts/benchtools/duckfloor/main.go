// Command duckfloor is the "what does any Go program embedding DuckDB pay"
// floor for scripts/bench-sql.sh: it opens an in-memory DuckDB through the
// same driver as topicsnap (duckdb-go), runs the one query given as its
// argument, prints the rows as comma-separated text after a header line
// (like the CLI's -csv, unquoted) and closes. No catalog, no
// views, no formatting: timed against the DuckDB CLI on the same SQL, it
// separates what embedding DuckDB in Go costs from what topicsnap adds. It
// is a bench tool, not part of the product.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: duckfloor SQL")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "duckfloor:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, q string) error {
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		return fmt.Errorf("open duckdb: %w", err)
	}
	db := sql.OpenDB(c)
	defer db.Close()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("run query: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("read columns: %w", err)
	}
	fmt.Println(strings.Join(cols, ","))
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	text := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read row: %w", err)
		}
		for i, v := range vals {
			text[i] = fmt.Sprint(v)
		}
		fmt.Println(strings.Join(text, ","))
	}
	return rows.Err()
}
