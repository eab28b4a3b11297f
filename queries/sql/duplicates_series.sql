-- name: duplicates_series
-- summary: per time bucket of $1 seconds, the records whose id was seen
--          before (the first copy in time order is not counted): the
--          duplicates chart. The id is the check's; a record without one
--          (NULL) is no copy.
-- params: ID the id expression; T the topic view; $1 the bucket in seconds.
WITH d AS (
  SELECT "timestamp" AS ts,
         row_number() OVER (PARTITION BY ({{.ID}}) ORDER BY "timestamp", "partition", "offset") AS rn
  FROM {{.T}} WHERE ({{.ID}}) IS NOT NULL
)
SELECT 'duplicates' AS series, time_bucket(to_seconds($1::BIGINT), ts) AS t, count(*) FILTER (WHERE rn > 1)::DOUBLE AS v
FROM d WHERE ts IS NOT NULL GROUP BY ALL ORDER BY t
