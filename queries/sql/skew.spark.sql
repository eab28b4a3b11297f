-- name: skew (Spark)
-- summary: as skew.sql; the partitions 0..count-1 come from sequence (Spark's
--          range is a table).
-- params: T the topic view; $1 the topic name; $2 today's partition count
--         (Engine.partitionCount).
WITH parts AS (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1 AND NOT superseded
  UNION SELECT CAST(p AS INT) FROM (SELECT explode(filter(sequence(0, n), i -> i < n)) AS p
                                    FROM (SELECT CAST($2 AS INT) AS n))
), c AS (
  SELECT "partition", count(*) AS records, sum(coalesce(octet_length(key_raw), 0) + coalesce(octet_length(value_raw), 0)) AS bytes
  FROM {{.T}} GROUP BY 1
)
SELECT p."partition", coalesce(c.records, 0) AS records, CAST(coalesce(c.bytes, 0) AS BIGINT) AS bytes
FROM parts p LEFT JOIN c USING ("partition")
ORDER BY 1
