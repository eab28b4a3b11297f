-- name: keys_resize (Spark)
-- summary: as keys_resize.sql: the earlier partition count that places
--          the most of the records murmur2(key) % n does not explain.
-- params: $1 today's partition count; $2 a JSON list of candidate counts.
WITH mis AS (
  SELECT key_raw, "partition", count(*) AS records
  FROM {{.T}} t
  WHERE key_raw IS NOT NULL AND "partition" <> kafka_partition(key_raw, $1::INTEGER)
  GROUP BY key_raw, "partition"
), cand AS (
  SELECT explode(from_json($2, 'array<int>')) AS m
)
SELECT m AS old_count,
       coalesce(sum(CASE WHEN "partition" < m AND "partition" = kafka_partition(key_raw, m) THEN records END), 0) AS explained,
       (SELECT coalesce(sum(records), 0) FROM mis) AS misplaced
FROM cand LEFT JOIN mis ON true
GROUP BY m
ORDER BY explained DESC, old_count DESC
LIMIT 1
