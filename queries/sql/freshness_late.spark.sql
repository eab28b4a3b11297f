-- name: freshness_late (Spark)
-- summary: as freshness_late.sql; TIMESTAMPTZ is Spark's TIMESTAMP (the
--          session's zone is UTC). The late records are counted by an
--          aggregate joined to the examples, not count(*) OVER (): a window
--          without PARTITION BY moves every late record to one task.
--          A record with no broker timestamp (-1) is not judged.
-- params: EventTime the event time expression; $1 threshold seconds; $2 examples;
--         NoTimestamp the dialect's test of a timestamp of -1.
WITH d AS (
  SELECT "partition", "offset", "timestamp", CAST(({{.EventTime}}) AS TIMESTAMP) AS event_time FROM {{.T}}
  WHERE NOT ({{.NoTimestamp}})
), l AS (
  SELECT "partition", "offset", "timestamp", event_time, round(epoch("timestamp") - epoch(event_time), 3) AS behind_seconds
  FROM d WHERE epoch("timestamp") - epoch(event_time) > $1
)
SELECT l."partition", l."offset", l."timestamp", l.event_time, l.behind_seconds, n.late_records
FROM l CROSS JOIN (SELECT count(*) AS late_records FROM l) n
ORDER BY l."partition", l."offset" LIMIT $2
