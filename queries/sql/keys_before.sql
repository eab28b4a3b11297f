-- name: keys_before
-- summary: the keyed records that predate a partition count change whose
--          seam keys_seam found: at least those written by the last record
--          placed by the old count only (seam_after), at most those written
--          before the first placed by the new count only (seam_before).
--          Records between the two agree on both placements, so their side
--          of the change cannot be told.
-- params: $1 seam_after; $2 seam_before. T the topic's data view.
SELECT count(*) FILTER (WHERE "timestamp" <= $1) AS before_min,
       count(*) FILTER (WHERE "timestamp" < $2) AS before_max
FROM {{.T}}
WHERE key_raw IS NOT NULL
