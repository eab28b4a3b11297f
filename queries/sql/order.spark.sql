-- name: order (Spark)
-- summary: as order.sql (numbers and times as text compare as such); a time as text is DuckDB's TIMESTAMPTZ text (Spark's
--          with "+00", the session's zone being UTC); a key that is not
--          UTF-8 shows as 0x and its hex.
--          The window sorts every keyed record: the records are first
--          spread by partition and key over Parts shuffle partitions
--          (chosen by the topic's record count), each small enough for its
--          task to sort in memory; over a server's few default partitions
--          a large topic's sort spilled to disk, and its cost per record
--          grew with the topic. The time is computed once, the window's
--          rows carrying only the key, the partition, the offset and it.
-- params: Time the time expression; Parts the shuffle partitions of the
--         sort; $1 how many examples.
WITH r AS (
  SELECT /*+ REPARTITION({{.Parts}}, "partition", key_raw) */ key_raw, "partition", "offset", ({{.Time}}) AS t
  FROM {{.T}} WHERE key_raw IS NOT NULL AND ({{.Time}}) IS NOT NULL
), d AS (
  SELECT key_raw, "partition", "offset", t, lag(t) OVER w AS prev_t, lag("offset") OVER w AS prev_offset
  FROM r WINDOW w AS (PARTITION BY "partition", key_raw ORDER BY "offset")
)
SELECT coalesce(try_validate_utf8(CAST(key_raw AS STRING)), '0x' || hex(key_raw)) AS "key", "partition", prev_offset, "offset",
       CASE WHEN typeof(prev_t) = 'timestamp' THEN CAST(prev_t AS STRING) || '+00' ELSE CAST(prev_t AS STRING) END AS previous_time,
       CASE WHEN typeof(t) = 'timestamp' THEN CAST(t AS STRING) || '+00' ELSE CAST(t AS STRING) END AS "time",
       count(*) OVER () AS out_of_order_records
FROM d WHERE CASE WHEN typeof(t) = 'string' AND try_cast(CAST(t AS STRING) AS DOUBLE) IS NOT NULL AND try_cast(CAST(prev_t AS STRING) AS DOUBLE) IS NOT NULL
                  THEN try_cast(CAST(t AS STRING) AS DOUBLE) < try_cast(CAST(prev_t AS STRING) AS DOUBLE)
                  WHEN typeof(t) = 'string' AND try_cast(CAST(t AS STRING) AS TIMESTAMP) IS NOT NULL AND try_cast(CAST(prev_t AS STRING) AS TIMESTAMP) IS NOT NULL
                  THEN try_cast(CAST(t AS STRING) AS TIMESTAMP) < try_cast(CAST(prev_t AS STRING) AS TIMESTAMP)
                  ELSE t < prev_t END
ORDER BY "partition", "offset" LIMIT $1
