-- name: order (Spark)
-- summary: as order.sql; a time as text is DuckDB's TIMESTAMPTZ text (Spark's
--          with "+00", the session's zone being UTC); a key that is not
--          UTF-8 shows as 0x and its hex.
-- params: Time the time expression; $1 how many examples.
WITH d AS (
  SELECT key_raw, "partition", "offset", ({{.Time}}) AS t,
         lag(({{.Time}})) OVER (PARTITION BY "partition", key_raw ORDER BY "offset") AS prev_t,
         lag("offset") OVER (PARTITION BY "partition", key_raw ORDER BY "offset") AS prev_offset
  FROM {{.T}} WHERE key_raw IS NOT NULL AND ({{.Time}}) IS NOT NULL
)
SELECT coalesce(try_validate_utf8(CAST(key_raw AS STRING)), '0x' || hex(key_raw)) AS "key", "partition", prev_offset, "offset",
       CASE WHEN typeof(prev_t) = 'timestamp' THEN CAST(prev_t AS STRING) || '+00' ELSE CAST(prev_t AS STRING) END AS previous_time,
       CASE WHEN typeof(t) = 'timestamp' THEN CAST(t AS STRING) || '+00' ELSE CAST(t AS STRING) END AS "time",
       count(*) OVER () AS out_of_order_records
FROM d WHERE t < prev_t
ORDER BY "partition", "offset" LIMIT $1
