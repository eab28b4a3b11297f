package main

import (
	"slices"
	"testing"
)

func TestTopicsNamed(t *testing.T) {
	names := []string{"orders", "app-events", "Mixed", "t$x"}
	tests := []struct {
		q    string
		want []string
	}{
		{`SELECT count(*) FROM orders`, []string{"orders"}},
		{`SELECT * FROM "app-events" a JOIN orders o USING (key)`, []string{"app-events", "orders"}},
		{`SELECT * FROM "app-events$all"`, []string{"app-events"}},
		{`SELECT * FROM orders$superseded`, []string{"orders"}},
		{`SELECT * FROM MIXED`, []string{"Mixed"}},
		{`SELECT 'orders' AS s`, nil},            // a string names no table
		{`SELECT 1 -- FROM orders`, nil},         // nor a comment
		{`SELECT count(*) FROM files`, nil},      // a catalog table: every topic
		{`SELECT * FROM orders, snapshots`, nil}, // one folder-wide name is enough
		{`SELECT * FROM topic_state('orders', now())`, nil},
		{`SELECT * FROM lag_at('g', now())`, nil},
		{`SELECT * FROM query_table('orders')`, nil},
		{`SELECT * FROM duckdb_views()`, nil},
		{`SELECT * FROM information_schema.tables`, nil},
		{`SHOW TABLES`, nil},
		{`SELECT * FROM read_parquet('x')`, nil},
		{`SELECT * FROM "unterminated`, nil},
		{`SELECT 1`, nil},
	}
	for _, tc := range tests {
		if got := topicsNamed(tc.q, names); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.q, got, tc.want)
		}
	}
}
