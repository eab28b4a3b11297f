-- name: time_span
-- summary: the first and last broker timestamp of the topic's data records,
--          from which a chart's time bucket is chosen.
-- params: T the topic view.
SELECT min("timestamp") AS first_ts, max("timestamp") AS last_ts FROM {{.T}}
