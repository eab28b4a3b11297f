-- name: duplicates_series (Spark)
-- summary: as duplicates_series.sql; time_bucket spelled out with DuckDB's
--          origin (2000-01-03 00:00 UTC, a Monday), so buckets of a week
--          start on the same day on both engines.
-- params: ID the id expression; T the topic view; $1 the bucket in seconds;
--         NoTimestamp the dialect's test of a timestamp of -1.
WITH d AS (
  -- a record's -1 is Kafka's "no timestamp": no bucket (not 1969), and
  -- the copies with a time come first
  SELECT CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END AS ts,
         row_number() OVER (PARTITION BY ({{.ID}}) ORDER BY CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END ASC NULLS LAST, "partition", "offset") AS rn
  FROM {{.T}} WHERE ({{.ID}}) IS NOT NULL
)
SELECT 'duplicates' AS series, timestamp_seconds(floor((unix_seconds(ts) - 946857600L) / $1) * $1 + 946857600L) AS t,
       CAST(count(*) FILTER (WHERE rn > 1) AS DOUBLE) AS v
FROM d WHERE ts IS NOT NULL GROUP BY ALL ORDER BY t
