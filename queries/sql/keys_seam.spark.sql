-- name: keys_seam (Spark)
-- summary: as keys_seam.sql, in Spark's dialect. The three parts (the
--          summary, the seam per partition, the keys split at it) are put
--          in order by a column of their own (ord) and the partition and
--          offset, since Spark keeps no order of a UNION ALL's branches;
--          a key that is not UTF-8 is shown as 0x and its hex, as on DuckDB.
-- params: $1 the new count; $2 the old count; $3 how many examples.
--         T the topic's data view; NoTimestamp the dialect's test of a
--         timestamp of -1.
WITH d AS (
  -- a record's -1 is Kafka's "no timestamp": no time, not 1969 (its
  -- placement still counts; only the time window leaves it out)
  SELECT key_raw, "partition", "offset", CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END AS "timestamp",
         "partition" = kafka_partition(key_raw, CAST($1 AS INT)) AS new_place,
         "partition" = kafka_partition(key_raw, CAST($2 AS INT)) AS old_place
  FROM {{.T}} WHERE key_raw IS NOT NULL
), k AS (
  SELECT key_raw,
         max("timestamp") FILTER (WHERE old_place AND NOT new_place) AS last_old,
         min("timestamp") FILTER (WHERE new_place AND NOT old_place) AS first_new,
         any_value("partition") FILTER (WHERE old_place AND NOT new_place) AS old_partition,
         any_value("partition") FILTER (WHERE new_place AND NOT old_place) AS new_partition,
         max("offset") FILTER (WHERE old_place AND NOT new_place) AS last_old_offset,
         min("offset") FILTER (WHERE new_place AND NOT old_place) AS first_new_offset
  FROM d GROUP BY 1
), s AS (
  SELECT count(*) FILTER (WHERE last_old_offset IS NOT NULL AND first_new_offset IS NOT NULL) AS split_at_seam,
         count(*) FILTER (WHERE last_old > first_new) AS keys_against_the_seam,
         max(last_old) AS seam_after, min(first_new) AS seam_before
  FROM k
)
SELECT * FROM (
  SELECT 0 AS ord, 'summary' AS kind, CAST(NULL AS STRING) AS "key", CAST(NULL AS INT) AS old_partition, CAST(NULL AS BIGINT) AS last_old_offset,
         CAST(NULL AS INT) AS new_partition, CAST(NULL AS BIGINT) AS first_new_offset,
         s.split_at_seam, s.keys_against_the_seam, s.seam_after, s.seam_before,
         (SELECT count(*) FROM d WHERE NOT new_place AND NOT old_place) AS unexplained_records,
         (SELECT count(*) FROM d WHERE old_place AND NOT new_place) AS old_placement_records
  FROM s
  UNION ALL
  SELECT 1, 'seam', NULL, "partition", max("offset") FILTER (WHERE old_place AND NOT new_place), "partition",
         min("offset") FILTER (WHERE new_place AND NOT old_place), NULL, NULL,
         max("timestamp") FILTER (WHERE old_place AND NOT new_place), min("timestamp") FILTER (WHERE new_place AND NOT old_place), NULL, NULL
  FROM d GROUP BY "partition"
  HAVING count(*) FILTER (WHERE old_place <> new_place) > 0
  UNION ALL
  SELECT 2, 'split_at_seam', "key", old_partition, last_old_offset, new_partition, first_new_offset, NULL, NULL, last_old, first_new, NULL, NULL
  FROM (SELECT coalesce(try_validate_utf8(CAST(key_raw AS STRING)), '0x' || hex(key_raw)) AS "key", old_partition, last_old_offset,
               new_partition, first_new_offset, last_old, first_new
        FROM k WHERE last_old_offset IS NOT NULL AND first_new_offset IS NOT NULL
        ORDER BY old_partition, last_old_offset LIMIT $3)
)
ORDER BY ord, old_partition, last_old_offset
