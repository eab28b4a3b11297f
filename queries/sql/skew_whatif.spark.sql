-- name: skew_whatif (Spark)
-- summary: as skew_whatif.sql; the key's text is hashed as its UTF-8 bytes
--          (Spark's kafka_partition takes BINARY); the partitions 0..n-1
--          come from sequence (Spark's range is a table); the view has an
--          alias (see missing.spark.sql).
-- params: Expr the key expression; $1 partition count.
WITH k AS (SELECT kafka_partition(encode({{.ExprText}}, 'UTF-8'), $1::INTEGER) AS "partition" FROM {{.T}} AS r WHERE ({{.Expr}}) IS NOT NULL)
SELECT p."partition", count(k."partition") AS records
FROM (SELECT CAST(n AS INT) AS "partition" FROM (SELECT explode(sequence(0, $1::INTEGER - 1)) AS n)) p LEFT JOIN k USING ("partition")
GROUP BY 1 ORDER BY 1
