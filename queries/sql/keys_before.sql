-- name: keys_before
-- summary: the keyed records that predate a partition count change whose
--          seam keys_seam found: at least those written by the last record
--          placed by the old count only (seam_after), at most those written
--          before the first placed by the new count only (seam_before).
--          Records between the two agree on both placements, so their side
--          of the change cannot be told.
--          A record with no timestamp (-1) is on the side its placement
--          says: before when only the old count ($4) places it there, after
--          when only the new one ($3) does, else unknown (in max, not min).
-- params: $1 seam_after; $2 seam_before; $3 the new count; $4 the old
--         count. T the topic's data view; NoTimestamp the dialect's test
--         of a timestamp of -1.
SELECT count(*) FILTER (WHERE CASE WHEN {{.NoTimestamp}}
                                   THEN "partition" = kafka_partition(key_raw, CAST($4 AS INTEGER)) AND "partition" <> kafka_partition(key_raw, CAST($3 AS INTEGER))
                                   ELSE "timestamp" <= $1 END) AS before_min,
       count(*) FILTER (WHERE CASE WHEN {{.NoTimestamp}}
                                   THEN "partition" <> kafka_partition(key_raw, CAST($3 AS INTEGER)) OR "partition" = kafka_partition(key_raw, CAST($4 AS INTEGER))
                                   ELSE "timestamp" < $2 END) AS before_max
FROM {{.T}}
WHERE key_raw IS NOT NULL
