-- name: duplicates_series (Spark)
-- summary: as duplicates_series.sql; time_bucket spelled out with DuckDB's
--          origin (2000-01-03 00:00 UTC, a Monday), so buckets of a week
--          start on the same day on both engines.
-- params: ID the id expression; T the topic view; $1 the bucket in seconds.
WITH d AS (
  SELECT "timestamp" AS ts,
         row_number() OVER (PARTITION BY ({{.ID}}) ORDER BY "timestamp", "partition", "offset") AS rn
  FROM {{.T}} WHERE ({{.ID}}) IS NOT NULL
)
SELECT 'duplicates' AS series, timestamp_seconds(floor((unix_seconds(ts) - 946857600L) / $1) * $1 + 946857600L) AS t,
       CAST(count(*) FILTER (WHERE rn > 1) AS DOUBLE) AS v
FROM d WHERE ts IS NOT NULL GROUP BY ALL ORDER BY t
