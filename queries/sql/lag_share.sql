-- name: lag_share
-- summary: per share group (KIP-932) and partition at the latest snapshot
--          that saw the group: its share-partition start offset (records
--          below it were acknowledged or archived), Kafka's own lag (the
--          records from the start offset on not yet acknowledged, KIP-1226;
--          NULL when the broker did not say), the end offset and log start
--          at the cut, and skipped_records: records deleted by the log start
--          before the group acknowledged them (log start - start offset). A
--          share group commits no offsets, so it has no consumer lag: Kafka's
--          count is the one answer, never a difference made up here.
--          Only the cuts of the topic as it is today count (see lag.sql).
-- params: $1 the topic name; $2 the id of the first cut of today's topic
--         ('' for every cut).
WITH latest AS (
  SELECT group_id, max(snapshot_id) AS snapshot_id FROM share_group_offsets WHERE topic = $1 AND snapshot_id >= $2 GROUP BY group_id
)
SELECT s.group_id, s.state, s."partition", s.start_offset, s.lag AS share_lag_records,
       p.log_start_offset, p.high_watermark AS end_offset,
       CASE WHEN s.start_offset IS NOT NULL THEN greatest(p.log_start_offset - s.start_offset, 0) END AS skipped_records,
       s.as_of, s.snapshot_id
FROM share_group_offsets s
JOIN latest l ON l.group_id = s.group_id AND l.snapshot_id = s.snapshot_id
LEFT JOIN partitions p ON p.snapshot_id = s.snapshot_id AND p.topic = $1 AND p."partition" = s."partition"
WHERE s.topic = $1
ORDER BY s.group_id, s."partition"
