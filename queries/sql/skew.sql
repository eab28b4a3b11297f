-- name: skew
-- summary: records and bytes per partition; partitions the catalog knows but
--          that hold no record are listed with zero.
-- params: T the topic view; $1 the topic name.
WITH parts AS (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1
  UNION SELECT unnest(range(0, (SELECT max(partition_count) FROM snapshots WHERE topic = $1)))::INTEGER
), c AS (
  SELECT "partition", count(*) AS records, sum(coalesce(octet_length(key_raw), 0) + coalesce(octet_length(value_raw), 0)) AS bytes
  FROM {{.T}} GROUP BY 1
)
SELECT p."partition", coalesce(c.records, 0) AS records, coalesce(c.bytes, 0)::BIGINT AS bytes
FROM parts p LEFT JOIN c USING ("partition")
ORDER BY 1
