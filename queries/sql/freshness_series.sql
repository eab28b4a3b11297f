-- name: freshness_series
-- summary: records per partition per time bucket of $1 seconds, by broker
--          timestamp: the freshness chart.
-- params: T the topic view; $1 the bucket in seconds; NoTimestamp the
--         dialect's test of a timestamp of -1 (no time, no bucket).
SELECT 'p' || "partition" AS series, time_bucket(to_seconds($1::BIGINT), "timestamp") AS t, count(*)::DOUBLE AS v
FROM {{.T}} WHERE "timestamp" IS NOT NULL AND NOT ({{.NoTimestamp}})
GROUP BY "partition", 2 ORDER BY "partition", 2
