-- name: skew
-- summary: records and bytes per partition; partitions the topic has today
--          (0..$2-1, and those with a current file) that hold no record are
--          listed with zero. An old topic's partition that the topic made
--          again lacks (its files all superseded) is none of them.
-- params: T the topic view; $1 the topic name; $2 today's partition count
--         (Engine.partitionCount).
WITH parts AS (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1 AND NOT superseded
  UNION SELECT unnest(range(0, $2))::INTEGER
), c AS (
  SELECT "partition", count(*) AS records, sum(coalesce(octet_length(key_raw), 0) + coalesce(octet_length(value_raw), 0)) AS bytes
  FROM {{.T}} GROUP BY 1
)
SELECT p."partition", coalesce(c.records, 0) AS records, coalesce(c.bytes, 0)::BIGINT AS bytes
FROM parts p LEFT JOIN c USING ("partition")
ORDER BY 1
