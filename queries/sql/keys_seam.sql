-- name: keys_seam
-- summary: the seam of a partition count change from m (old) to n (new):
--          per partition (rows of kind seam), the last offset of a record
--          placed by the old count only and the first placed by the new
--          count only; per key,
--          whether it has records on both sides (split at the seam), and
--          the time window the change falls in (after the last old-only
--          record, before the first new-only one).
-- params: $1 the new count; $2 the old count; $3 how many examples.
--         T the topic's data view; NoTimestamp the dialect's test of a
--         timestamp of -1.
WITH d AS (
  -- a record's -1 is Kafka's "no timestamp": no time, not 1969 (its
  -- placement still counts; only the time window leaves it out)
  SELECT key_raw, "partition", "offset", CASE WHEN {{.NoTimestamp}} THEN NULL ELSE "timestamp" END AS "timestamp",
         "partition" = kafka_partition(key_raw, $1::INTEGER) AS new_place,
         "partition" = kafka_partition(key_raw, $2::INTEGER) AS old_place
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
SELECT 'summary' AS kind, NULL::VARCHAR AS "key", NULL::INTEGER AS old_partition, NULL::BIGINT AS last_old_offset,
       NULL::INTEGER AS new_partition, NULL::BIGINT AS first_new_offset,
       s.split_at_seam, s.keys_against_the_seam, s.seam_after, s.seam_before,
       (SELECT count(*) FROM d WHERE NOT new_place AND NOT old_place) AS unexplained_records,
       (SELECT count(*) FROM d WHERE old_place AND NOT new_place) AS old_placement_records
FROM s
UNION ALL
(SELECT 'seam', NULL, "partition", max("offset") FILTER (WHERE old_place AND NOT new_place), "partition",
        min("offset") FILTER (WHERE new_place AND NOT old_place), NULL, NULL,
        max("timestamp") FILTER (WHERE old_place AND NOT new_place), min("timestamp") FILTER (WHERE new_place AND NOT old_place), NULL, NULL
 FROM d GROUP BY "partition"
 HAVING count(*) FILTER (WHERE old_place <> new_place) > 0
 ORDER BY "partition")
UNION ALL
(SELECT 'split_at_seam', coalesce(try(decode(key_raw)), '0x' || hex(key_raw)), old_partition, last_old_offset, new_partition, first_new_offset,
        NULL, NULL, last_old, first_new, NULL, NULL
 FROM k WHERE last_old_offset IS NOT NULL AND first_new_offset IS NOT NULL
 ORDER BY old_partition, last_old_offset LIMIT $3)
