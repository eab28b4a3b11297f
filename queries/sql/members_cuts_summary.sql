-- name: members_cuts_summary
-- summary: the cuts of a topic that read a consumer or share group (see
--          members_cuts.sql): how many, the first and the last.
-- params: $1 the group id; $2 the topic name.
SELECT count(DISTINCT s.as_of) AS cuts, min(s.as_of) AS first_cut, max(s.as_of) AS last_cut,
       count(DISTINCT s.as_of) FILTER (WHERE EXISTS (SELECT 1 FROM group_offsets o WHERE o.snapshot_id = s.snapshot_id AND o.group_id = $1)
     OR EXISTS (SELECT 1 FROM share_group_offsets h WHERE h.snapshot_id = s.snapshot_id AND h.group_id = $1)
          OR EXISTS (SELECT 1 FROM group_members x WHERE x.snapshot_id = s.snapshot_id AND x.group_id = $1)) AS cuts_with_group
FROM snapshots s
WHERE s.topic = $2 AND (s.groups_error IS NULL
   OR EXISTS (SELECT 1 FROM group_offsets o WHERE o.snapshot_id = s.snapshot_id AND o.group_id = $1)
     OR EXISTS (SELECT 1 FROM share_group_offsets h WHERE h.snapshot_id = s.snapshot_id AND h.group_id = $1)
   OR EXISTS (SELECT 1 FROM group_members x WHERE x.snapshot_id = s.snapshot_id AND x.group_id = $1))
