-- name: freshness_series
-- summary: records per partition per time bucket of $1 seconds, by broker
--          timestamp: the freshness chart.
-- params: T the topic view; $1 the bucket in seconds.
SELECT 'p' || "partition" AS series, time_bucket(to_seconds($1::BIGINT), "timestamp") AS t, count(*)::DOUBLE AS v
FROM {{.T}} WHERE "timestamp" IS NOT NULL
GROUP BY "partition", t ORDER BY "partition", t
