-- name: members_cuts
-- summary: a consumer or share group's members over time as the cuts saw them (the
--          folder holds no commit log of the group): one row per member id,
--          with the first and last cut that listed it, the first later cut
--          that read the group without it (left_at; NULL while the latest
--          such cut lists it), the partitions of the topic it held at those
--          cuts, and the records it committed past as group_commits
--          attributes them (steps between two cuts at which it held the
--          partition). A cut that could not read every group and lacks this
--          one says nothing about it and is skipped. new_client_id is true
--          when no earlier cut listed the client id, NULL for a member of
--          the first cut that listed members (nothing earlier to compare
--          with).
-- params: $1 the group id; $2 the topic name.
WITH cuts AS (
  SELECT DISTINCT s.as_of FROM snapshots s
  WHERE s.topic = $2 AND (s.groups_error IS NULL
     OR EXISTS (SELECT 1 FROM group_offsets o WHERE o.snapshot_id = s.snapshot_id AND o.group_id = $1)
     OR EXISTS (SELECT 1 FROM share_group_offsets h WHERE h.snapshot_id = s.snapshot_id AND h.group_id = $1)
     OR EXISTS (SELECT 1 FROM group_members x WHERE x.snapshot_id = s.snapshot_id AND x.group_id = $1))
), seqs AS (
  SELECT as_of, row_number() OVER (ORDER BY as_of) AS seq FROM cuts
), gm AS (
  SELECT x.*, q.seq FROM group_members x JOIN seqs q USING (as_of)
  WHERE x.topic = $2 AND x.group_id = $1 AND x.member_id IS NOT NULL
), first_client AS (
  SELECT client_id, min(seq) AS first_seq FROM gm GROUP BY client_id
), m AS (
  SELECT member_id, arg_max(client_id, seq) AS client_id, arg_max(host, seq) AS host, arg_max(instance_id, seq) AS instance_id,
         min(seq) AS first_seq, max(seq) AS last_seq, count(DISTINCT seq) AS cuts,
         list(DISTINCT p ORDER BY p) FILTER (WHERE p IS NOT NULL) AS partitions
  FROM (SELECT *, unnest(CASE WHEN len(assigned_partitions) > 0 THEN assigned_partitions ELSE [NULL] END) AS p FROM gm)
  GROUP BY member_id
), per_part AS (
  SELECT member_id, "partition", min(from_offset) AS from_offset, max(to_offset) AS to_offset, sum(records) AS records
  FROM group_commits WHERE topic = $2 AND group_id = $1 AND member_id IS NOT NULL AND records > 0
  GROUP BY ALL
), committed AS (
  SELECT member_id, sum(records) AS records_committed_past,
         list({'partition': "partition", 'from_offset': from_offset, 'to_offset': to_offset, 'records': records} ORDER BY "partition") AS committed
  FROM per_part GROUP BY member_id
)
SELECT m.member_id, m.client_id, m.host, m.instance_id,
       CASE WHEN m.first_seq = (SELECT min(seq) FROM gm) THEN NULL ELSE fc.first_seq = m.first_seq END AS new_client_id,
       m.cuts, j.as_of AS first_seen_at, l.as_of AS last_seen_at, nx.as_of AS left_at,
       coalesce(m.partitions, []) AS partitions, coalesce(cm.records_committed_past, 0) AS records_committed_past,
       coalesce(cm.committed, []) AS committed
FROM m
JOIN first_client fc ON fc.client_id IS NOT DISTINCT FROM m.client_id
JOIN seqs j ON j.seq = m.first_seq
JOIN seqs l ON l.seq = m.last_seq
LEFT JOIN seqs nx ON nx.seq = m.last_seq + 1
LEFT JOIN committed cm USING (member_id)
ORDER BY first_seen_at, m.member_id
