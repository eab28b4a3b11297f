package queries

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestParquetPartitionColumnIsTheFolders: in every Parquet file of the tea
// shop's and the wind farm's folders, the partition column equals the N of
// the partition=N folder the file is in. Spark, reading a topic's folder
// as a Hive layout, takes the folder's value where the two meet (it logs
// COLUMN_ALREADY_EXISTS); this is why it gets the same answer. On Spark
// the test also reads each topic's folder as a Spark user would and finds
// the records per partition of the topic's $all view.
func TestParquetPartitionColumnIsTheFolders(t *testing.T) {
	ctx := context.Background()
	for _, f := range agreementFolders(t) {
		e, err := Open(ctx, f.dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		glob := QuoteString(filepath.Join(f.dir, "topic=*", "partition=*", "*.parquet"))
		var files, badFiles int64
		err = e.db.QueryRowContext(ctx, `SELECT count(*) AS files, count(*) FILTER (WHERE bad > 0) AS bad_files FROM (
  SELECT filename, count(*) FILTER (WHERE "partition" <> CAST(regexp_extract(filename, 'partition=([0-9]+)/[^/]*$', 1) AS INTEGER)) AS bad
  FROM read_parquet(`+glob+`, filename = true, hive_partitioning = false) GROUP BY filename)`).Scan(&files, &badFiles)
		if err != nil {
			t.Fatal(err)
		}
		if files == 0 {
			t.Fatalf("%s: no Parquet file found", f.name)
		}
		if badFiles != 0 {
			t.Errorf("%s: %d of %d files hold a partition column other than their folder's", f.name, badFiles, files)
		}
	}
}

// TestSparkReadsTheFolderAsHive: a Spark user who reads a topic's folder
// directly (spark.read.option("pathGlobFilter", "*.parquet").parquet(
// ".../topic=T")) gets partition from the
// folder names, and the same records per partition as the engine's $all
// view, since the file's column and the folder's name agree.
func TestSparkReadsTheFolderAsHive(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	for i, f := range agreementFolders(t) {
		if f.superseded {
			continue // a raw read holds the superseded records the views leave out
		}
		e, err := Open(ctx, f.dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		want, err := e.queryRows(ctx, fmt.Sprintf(`SELECT "partition", count(*) AS n FROM %s GROUP BY 1 ORDER BY 1`, quoteIdent(f.topic+"$all")))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			// A topic without records has no Parquet file for Spark to
			// infer a schema from: nothing to read as Hive.
			continue
		}
		// As a Spark user would: the topic's folder, its Parquet files only
		// (the manifests beside them are JSON).
		view := fmt.Sprintf("hive_%d", i) // a folder's name may hold a space ("case apart")
		if err := s.Exec(ctx, "CREATE OR REPLACE TEMPORARY VIEW "+view+" USING parquet OPTIONS (path "+QuoteString(filepath.Join(f.dir, "topic="+f.topic))+", pathGlobFilter '*.parquet')"); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		_, got, err := s.Query(ctx, "SELECT `partition`, count(*) AS n FROM "+view+" GROUP BY 1 ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: Spark reads %d partitions from the folder, the views hold %d", f.name, len(got), len(want))
		}
		for i := range want {
			if asInt(got[i][0]) != asInt(want[i].Get("partition")) || asInt(got[i][1]) != asInt(want[i].Get("n")) {
				t.Errorf("%s: Spark's partition %v holds %v records, the view's %v holds %v", f.name, got[i][0], got[i][1], want[i].Get("partition"), want[i].Get("n"))
			}
		}
	}
}
