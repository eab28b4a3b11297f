-- name: freshness_late
-- summary: records whose event time is behind the broker timestamp by more
--          than $1 seconds.
--          A record with no broker timestamp (-1) is not judged.
-- params: EventTime the event time expression; $1 threshold seconds; $2 examples;
--         NoTimestamp the dialect's test of a timestamp of -1.
WITH d AS (
  SELECT "partition", "offset", "timestamp", CAST(({{.EventTime}}) AS TIMESTAMPTZ) AS event_time FROM {{.T}}
  WHERE NOT ({{.NoTimestamp}})
)
SELECT "partition", "offset", "timestamp", event_time, round(epoch("timestamp") - epoch(event_time), 3) AS behind_seconds,
       count(*) OVER () AS late_records
FROM d WHERE epoch("timestamp") - epoch(event_time) > $1
ORDER BY "partition", "offset" LIMIT $2
