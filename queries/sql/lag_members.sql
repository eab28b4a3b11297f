-- name: lag_members
-- summary: the members of each group at the latest snapshot that saw it:
--          consumer groups with offsets on the topic and share groups
--          (KIP-932) with a state on it.
-- params: $1 the topic name.
WITH latest AS (
  SELECT group_id, max(snapshot_id) AS snapshot_id FROM (
    SELECT group_id, snapshot_id FROM group_offsets WHERE topic = $1
    UNION ALL
    SELECT group_id, snapshot_id FROM share_group_offsets WHERE topic = $1
  ) GROUP BY 1
)
SELECT m.group_id, m.member_id, m.client_id, m.host, m.assigned_partitions
FROM group_members m JOIN latest USING (group_id, snapshot_id)
WHERE m.topic = $1
ORDER BY m.group_id, m.client_id, m.member_id
