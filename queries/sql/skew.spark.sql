-- name: skew (Spark)
-- summary: as skew.sql; the partitions 0..count-1 come from sequence (Spark's
--          range is a table).
-- params: T the topic view; $1 the topic name.
WITH parts AS (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1
  UNION SELECT CAST(p AS INT) FROM (SELECT explode(filter(sequence(0, n), i -> i < n)) AS p
                                    FROM (SELECT max(partition_count) AS n FROM snapshots WHERE topic = $1))
), c AS (
  SELECT "partition", count(*) AS records, sum(coalesce(octet_length(key_raw), 0) + coalesce(octet_length(value_raw), 0)) AS bytes
  FROM {{.T}} GROUP BY 1
)
SELECT p."partition", coalesce(c.records, 0) AS records, CAST(coalesce(c.bytes, 0) AS BIGINT) AS bytes
FROM parts p LEFT JOIN c USING ("partition")
ORDER BY 1
