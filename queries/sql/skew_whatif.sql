-- name: skew_whatif
-- summary: the distribution had the topic been keyed by an expression, with
--          the Java client's default partitioner over $1 partitions.
-- params: Expr the key expression; $1 partition count.
WITH k AS (SELECT kafka_partition(CAST(({{.Expr}}) AS VARCHAR), $1::INTEGER) AS "partition" FROM {{.T}} WHERE ({{.Expr}}) IS NOT NULL)
SELECT p."partition", count(k."partition") AS records
FROM (SELECT unnest(range(0, $1::INTEGER))::INTEGER AS "partition") p LEFT JOIN k USING ("partition")
GROUP BY 1 ORDER BY 1
