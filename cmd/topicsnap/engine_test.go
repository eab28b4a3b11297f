package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// TestEngineFlagErrors: --engine spark without a usable --spark-remote
// says what to give (exit 2), and a server that does not answer is exit 3
// with how to start one.
func TestEngineFlagErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "teashop")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOPICSNAP_SPARK_REMOTE", "")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no remote", []string{"--engine", "spark"}, 2, "--engine spark needs --spark-remote"},
		{"not sc://", []string{"--engine", "spark", "--spark-remote", "http://127.0.0.1:1"}, 2, "use sc://HOST:PORT"},
		{"unknown engine", []string{"--engine", "presto"}, 2, `--engine "presto": use duckdb or spark`},
		{"unreachable", []string{"--engine", "spark", "--spark-remote", "sc://127.0.0.1:1"}, 3, "spark connect server unreachable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"check", "gaps", "--topic", seeds.TopicAppEvents}, {"sql", "-c", "SELECT 1"}} {
				args := append(append(cmd, "--dir", dir), tt.args...)
				code, _, stderr := cli(t, args...)
				if code != tt.code || !strings.Contains(stderr, tt.want) {
					t.Errorf("%v: exit %d, %q; want exit %d and %q", args, code, stderr, tt.code, tt.want)
				}
			}
		})
	}
}

// TestSQLOnSpark: sql --engine spark answers a query over a topic view and
// a catalog table as sql on DuckDB does, and the guard refuses on Spark
// what it refuses on DuckDB.
func TestSQLOnSpark(t *testing.T) {
	remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE")
	if remote == "" {
		t.Skip("TOPICSNAP_TEST_SPARK_REMOTE not set (make test starts Spark Connect with scripts/spark.sh)")
	}
	dir := filepath.Join(t.TempDir(), "teashop")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 50, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	// kafka_partition is a function the engine makes on Spark: a user's
	// statement that names one finds it there.
	q := `SELECT "partition", count(*) AS records, max("offset") AS last_offset, (SELECT count(*) FROM files) AS files,
  count(*) FILTER (WHERE kafka_partition(key_raw, 6) = "partition") AS murmur2_placed
FROM app_events GROUP BY 1 ORDER BY 1`
	_, duck, stderr := cli(t, "sql", "--dir", dir, "--format", "csv", "-c", q)
	if stderr != "" {
		t.Fatal(stderr)
	}
	code, sp, stderr := cli(t, "sql", "--dir", dir, "--format", "csv", "--engine", "spark", "--spark-remote", remote, "-c", q)
	if code != 0 || sp != duck {
		t.Fatalf("on spark: exit %d %s\n%s\nwant\n%s", code, stderr, sp, duck)
	}
	code, _, stderr = cli(t, "sql", "--dir", dir, "--engine", "spark", "--spark-remote", remote, "-c", "SELECT * FROM read_parquet('/etc/passwd')")
	if code != 2 || !strings.Contains(stderr, "not allowed") {
		t.Fatalf("a file read on spark: exit %d %s", code, stderr)
	}
}
