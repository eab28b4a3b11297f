-- name: duplicates_series
-- summary: per time bucket of $1 seconds, the records whose id was seen
--          before (the first copy in time order is not counted): the
--          duplicates chart. The id is the check's; a record without one
--          (NULL) is no copy.
-- params: ID the id expression; T the topic view; $1 the bucket in seconds;
--         NoTimestamp the dialect's test of a timestamp of -1.
WITH d AS (
  -- a record's -1 is Kafka's "no timestamp": no bucket (not 1969), and
  -- the copies with a time come first
  SELECT CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END AS ts,
         row_number() OVER (PARTITION BY ({{.ID}}) ORDER BY CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END ASC NULLS LAST, "partition", "offset") AS rn
  FROM {{.T}} WHERE ({{.ID}}) IS NOT NULL
)
SELECT 'duplicates' AS series, time_bucket(to_seconds($1::BIGINT), ts) AS t, count(*) FILTER (WHERE rn > 1)::DOUBLE AS v
FROM d WHERE ts IS NOT NULL GROUP BY ALL ORDER BY t
