-- name: time_span
-- summary: the first and last broker timestamp of the topic's data records,
--          from which a chart's time bucket is chosen.
--          A record with no timestamp (-1) is left out: it would stretch
--          the span back to 1970.
-- params: T the topic view; NoTimestamp the dialect's test of a timestamp
--         of -1.
SELECT min("timestamp") AS first_ts, max("timestamp") AS last_ts FROM {{.T}} WHERE NOT ({{.NoTimestamp}})
