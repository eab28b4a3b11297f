-- name: keys_resize
-- summary: a partition count that changed. Of the keyed records that are
--          not on murmur2(key) % n (n: today's count), how many each
--          earlier count m places on murmur2(key) % m; the best m first.
--          Adding partitions moves a key's later records to the new count's
--          partition and leaves the earlier ones where they were.
-- params: $1 today's partition count; $2 a JSON list of candidate earlier
--         counts. T the topic's data view.
WITH mis AS (
  SELECT key_raw, "partition", count(*) AS records
  FROM {{.T}}
  WHERE key_raw IS NOT NULL AND "partition" <> kafka_partition(key_raw, $1::INTEGER)
  GROUP BY ALL
), cand AS (
  SELECT unnest(from_json($2::VARCHAR, '["INTEGER"]')) AS m
)
SELECT m AS old_count,
       coalesce(sum(records) FILTER (WHERE "partition" < m AND "partition" = kafka_partition(key_raw, m)), 0) AS explained,
       (SELECT coalesce(sum(records), 0) FROM mis) AS misplaced
FROM cand LEFT JOIN mis ON true
GROUP BY m
ORDER BY explained DESC, m DESC
LIMIT 1
