-- name: order
-- summary: records of one key whose time goes backwards in offset order.
--          A record without a time (NULL) is left out, so the one after it
--          is compared with the last record that has one (order_keys counts
--          the ones left out). A time that is text (a JSON field with
--          values of mixed types, or numbers written as strings) compares
--          as numbers where both texts are numbers ("9" before "10"), as
--          times where both are times (with their offsets), as text
--          otherwise.
-- params: Time the time expression; $1 how many examples.
WITH d AS (
  SELECT key_raw, "partition", "offset", ({{.Time}}) AS t,
         lag(({{.Time}})) OVER (PARTITION BY "partition", key_raw ORDER BY "offset") AS prev_t,
         lag("offset") OVER (PARTITION BY "partition", key_raw ORDER BY "offset") AS prev_offset
  FROM {{.T}} WHERE key_raw IS NOT NULL AND ({{.Time}}) IS NOT NULL
)
SELECT coalesce(try(decode(key_raw)), '0x' || hex(key_raw)) AS "key", "partition", prev_offset, "offset",
       prev_t::VARCHAR AS previous_time, t::VARCHAR AS "time",
       count(*) OVER () AS out_of_order_records
FROM d WHERE CASE WHEN typeof(t) = 'VARCHAR' AND TRY_CAST(t::VARCHAR AS DOUBLE) IS NOT NULL AND TRY_CAST(prev_t::VARCHAR AS DOUBLE) IS NOT NULL
                  THEN TRY_CAST(t::VARCHAR AS DOUBLE) < TRY_CAST(prev_t::VARCHAR AS DOUBLE)
                  WHEN typeof(t) = 'VARCHAR' AND TRY_CAST(t::VARCHAR AS TIMESTAMPTZ) IS NOT NULL AND TRY_CAST(prev_t::VARCHAR AS TIMESTAMPTZ) IS NOT NULL
                  THEN TRY_CAST(t::VARCHAR AS TIMESTAMPTZ) < TRY_CAST(prev_t::VARCHAR AS TIMESTAMPTZ)
                  ELSE t < prev_t END
ORDER BY "partition", "offset" LIMIT $1
