-- name: freshness_series (Spark)
-- summary: as freshness_series.sql; time_bucket spelled out with DuckDB's
--          origin (2000-01-03 00:00 UTC).
-- params: T the topic view; $1 the bucket in seconds.
SELECT 'p' || "partition" AS series, timestamp_seconds(floor((unix_seconds("timestamp") - 946857600L) / $1) * $1 + 946857600L) AS t,
       CAST(count(*) AS DOUBLE) AS v
FROM {{.T}} WHERE "timestamp" IS NOT NULL AND NOT ({{.NoTimestamp}})
GROUP BY "partition", t ORDER BY "partition", t
