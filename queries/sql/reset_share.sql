-- name: reset_share
-- summary: whether a group is a share group (KIP-932) at some cut of the
--          topic: one row per such cut. A share group commits no offsets,
--          so reset.sql finds nothing of it.
-- params: $1 the topic name; $2 the group id.
SELECT snapshot_id FROM share_group_offsets WHERE topic = $1 AND group_id = $2 GROUP BY snapshot_id
