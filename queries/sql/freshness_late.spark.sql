-- name: freshness_late (Spark)
-- summary: as freshness_late.sql; TIMESTAMPTZ is Spark's TIMESTAMP (the
--          session's zone is UTC).
-- params: EventTime the event time expression; $1 threshold seconds; $2 examples.
WITH d AS (
  SELECT "partition", "offset", "timestamp", CAST(({{.EventTime}}) AS TIMESTAMP) AS event_time FROM {{.T}}
)
SELECT "partition", "offset", "timestamp", event_time, round(epoch("timestamp") - epoch(event_time), 3) AS behind_seconds,
       count(*) OVER () AS late_records
FROM d WHERE epoch("timestamp") - epoch(event_time) > $1
ORDER BY "partition", "offset" LIMIT $2
