-- name: lag_unowned
-- summary: per group, at the latest snapshot that saw it, the topic's
--          partitions that no member of the group owns and on which it has
--          no committed offset: nobody in the group reads them (after a
--          partition count change the consumers did not rebalance onto).
--          Only groups whose members own some partition of the topic are
--          judged (an empty group, or one whose assignment the cut could not
--          decode, says nothing about ownership).
-- params: $1 the topic name; $2 the id of the first cut of today's topic
--         ('' for every cut: see lag.sql).
WITH latest AS (
  SELECT group_id, max(snapshot_id) AS snapshot_id FROM group_offsets WHERE topic = $1 AND snapshot_id >= $2 GROUP BY group_id
), m AS (
  SELECT group_id, snapshot_id, assigned_partitions FROM group_members JOIN latest USING (group_id, snapshot_id)
  WHERE topic = $1 AND assigned_partitions IS NOT NULL AND len(assigned_partitions) > 0
), known AS (
  SELECT DISTINCT group_id, snapshot_id FROM m
), owned AS (
  SELECT DISTINCT m.group_id, p."partition"
  FROM m JOIN partitions p ON p.snapshot_id = m.snapshot_id AND p.topic = $1 AND list_contains(m.assigned_partitions, p."partition")
), committed AS (
  SELECT DISTINCT g.group_id, g."partition" FROM group_offsets g JOIN latest USING (group_id, snapshot_id)
  WHERE g.topic = $1 AND g.committed_offset IS NOT NULL
)
SELECT k.group_id, p."partition", p.log_start_offset, p.high_watermark AS end_offset,
       greatest(p.high_watermark - p.log_start_offset, 0) AS records, p.as_of, k.snapshot_id
FROM known k
JOIN partitions p ON p.snapshot_id = k.snapshot_id AND p.topic = $1
LEFT JOIN owned o ON o.group_id = k.group_id AND o."partition" = p."partition"
LEFT JOIN committed c ON c.group_id = k.group_id AND c."partition" = p."partition"
WHERE o.group_id IS NULL AND c.group_id IS NULL
ORDER BY k.group_id, p."partition"
