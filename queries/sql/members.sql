-- name: members
-- summary: a consumer group's members over time, from the group's own
--          commit log (group_generations, group_commit_log): one row per
--          member id, with the generations it was in, when it joined (the
--          time of its first generation), the time of its last generation,
--          when it left (the time of the first later generation without
--          it; NULL while it is in the group's latest generation), the
--          partitions of the topic it held, and the commits it made on
--          them. A commit's step runs from the group's previous commit on
--          the partition (in the log's order) to its offset; the records a
--          member committed past are the topic's data records in its
--          steps, each counted once; a partition's from_offset is NULL
--          when the member's first commit on it is the first the log keeps
--          (where the group stood before it is not known, and the records
--          up to it are not counted). new_client_id is true when no earlier
--          generation the log keeps had the member's client id, NULL for a
--          member of the first generation with members the log keeps
--          (nothing earlier to compare with; a generation without members,
--          such as a new group's first, is no baseline).
--          Consumer-protocol (KIP-848) groups have no group-wide
--          generation record: a "generation" is one of the member's current
--          assignment records (its member epoch), and a member left at its
--          first tombstone after its last one: Kafka writes the tombstones
--          of its current assignment, target assignment and member metadata,
--          then a new group epoch, when a member leaves or is fenced (never
--          a new epoch alone). Without such a tombstone (the dump ends
--          first) it is still in the group. The partitions it held are those
--          of its records, assigned or pending revocation (it holds a
--          partition until it says it gave it up), named by topic id: the
--          topic's id is the one the cuts (snapshots.topic_id) and the
--          group's commits give for $2; none, or two (the topic made
--          again): partitions, records_committed_past and committed are
--          NULL (not known), never a guess. Share groups (KIP-932) and
--          streams groups (KIP-1071) are read as consumer-protocol groups:
--          their current assignment records, member epochs and tombstones.
--          A share group's topic ids also come from its own share state
--          records (type 15, which name each topic by id and name); a
--          share group commits no offsets (its members acknowledge
--          records), so records_committed_past and committed are NULL. A
--          streams member's partitions are those its active tasks read
--          (group_generations.assignment, by name; NULL without a topology
--          record before the assignment, or too many tasks to map:
--          partitions, records_committed_past and committed NULL), its
--          commits attributed as group_commit_log does (by topic name).
-- params: $1 the group id; $2 the topic name. T the topic's data view.
WITH g AS (
  SELECT generation, group_protocol, member_id, client_id, client_host, instance_id, assignment, pending_revocation, log_partition, log_offset,
         coalesce(state_time, log_time) AS gen_time
  FROM group_generations WHERE group_id = $1
), ids AS (
  SELECT list(DISTINCT topic_id) AS ids FROM (
    SELECT topic_id FROM snapshots WHERE topic = $2 AND topic_id IS NOT NULL
    UNION ALL SELECT topic_id FROM group_commit_log WHERE group_id = $1 AND topic = $2 AND topic_id IS NOT NULL
    UNION ALL SELECT t.topic_id FROM (
      SELECT unnest(list_concat(r.share_state.initializing, r.share_state.initialized)) AS t
      FROM (SELECT from_json(kafka_offsets_record(key_raw, value_raw),
                     '{"kind":"VARCHAR","group":"VARCHAR","share_state":{"initializing":[{"topic":"VARCHAR","topic_id":"VARCHAR"}],"initialized":[{"topic":"VARCHAR","topic_id":"VARCHAR"}]}}') AS r
            FROM "__consumer_offsets" WHERE value_raw IS NOT NULL AND key_raw >= '\x00\x0f'::BLOB AND key_raw < '\x00\x10'::BLOB)
      WHERE r."group" = $1 AND r.kind = 'share_group_state_partition_metadata')
    WHERE t.topic = $2 AND t.topic_id IS NOT NULL)
), leaves AS (
  -- a consumer-protocol, share or streams member's tombstones (current
  -- assignment, member metadata): the key decoded, the value NULL; key
  -- types 5 to 22
  SELECT r.member AS member_id, log_partition, log_offset, log_time
  FROM (SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time,
          from_json(kafka_offsets_record(key_raw, value_raw), '{"kind":"VARCHAR","group":"VARCHAR","member":"VARCHAR"}') AS r
        FROM "__consumer_offsets" WHERE value_raw IS NULL AND key_raw >= '\x00\x05'::BLOB AND key_raw < '\x00\x17'::BLOB)
  WHERE r."group" = $1 AND r.kind IN ('consumer_group_current_member', 'consumer_group_member_metadata', 'share_group_current_member',
    'share_group_member_metadata', 'streams_group_current_member', 'streams_group_member_metadata')
), gens AS (
  SELECT DISTINCT log_partition, log_offset, generation, gen_time,
         dense_rank() OVER (ORDER BY log_partition, log_offset) AS seq
  FROM g
), gm AS (
  SELECT g.*, gens.seq FROM g JOIN gens USING (log_partition, log_offset) WHERE g.member_id IS NOT NULL
), first_client AS (
  SELECT client_id, min(seq) AS first_seq FROM gm GROUP BY client_id
), m AS (
  SELECT member_id, arg_max(client_id, seq) AS client_id, arg_max(client_host, seq) AS host, arg_max(instance_id, seq) AS instance_id,
         min(seq) AS first_seq, max(seq) AS last_seq, count(DISTINCT seq) AS generations,
         min(generation) AS first_generation, max(generation) AS last_generation,
         bool_and(group_protocol = 'classic') AS classic, any_value(group_protocol) AS protocol,
         bool_and(assignment IS NOT NULL) AS assignment_known
  FROM gm GROUP BY member_id
), held AS (
  SELECT member_id, list(DISTINCT p ORDER BY p) AS partitions
  FROM (SELECT member_id, unnest(a.partitions) AS p
        FROM (SELECT member_id, group_protocol, unnest(list_concat(assignment, coalesce(pending_revocation, []))) AS a FROM gm)
        WHERE CASE WHEN group_protocol IN ('classic', 'streams') THEN a.topic = $2
                   ELSE a.topic_id = (SELECT CASE WHEN len(ids) = 1 THEN ids[1] END FROM ids) END)
  GROUP BY member_id
), left_ AS (
  -- a consumer-protocol member left at its first tombstone after its last
  -- current assignment record
  SELECT m.member_id, min(lv.log_time) AS left_at
  FROM (SELECT member_id, arg_max(log_partition, log_offset) AS log_partition, max(log_offset) AS log_offset FROM gm GROUP BY member_id) m
  JOIN leaves lv ON lv.member_id = m.member_id AND lv.log_partition = m.log_partition AND lv.log_offset > m.log_offset
  GROUP BY m.member_id
), c AS (
  SELECT "partition", member_id, committed_offset, log_partition, log_offset,
         lag(committed_offset) OVER (PARTITION BY "partition" ORDER BY log_partition, log_offset) AS from_offset
  FROM group_commit_log WHERE group_id = $1 AND topic = $2
), steps AS (
  SELECT * FROM c WHERE member_id IS NOT NULL AND committed_offset IS NOT NULL
), moved AS (
  SELECT s.member_id, s."partition", count(DISTINCT r."offset") AS records
  FROM steps s JOIN {{.T}} r ON r."partition" = s."partition" AND r."offset" >= s.from_offset AND r."offset" < s.committed_offset
  GROUP BY ALL
), per_part AS (
  SELECT s.member_id, s."partition", arg_min_null(s.from_offset, s.log_offset) AS from_offset,
         arg_min(s.committed_offset, s.log_offset) AS first_committed_offset,
         arg_max(s.committed_offset, s.log_offset) AS last_committed_offset, count(*) AS commits,
         coalesce(any_value(mv.records), 0) AS records
  FROM steps s LEFT JOIN moved mv USING (member_id, "partition")
  GROUP BY ALL
), committed AS (
  SELECT member_id, sum(records) AS records_committed_past,
         list({'partition': "partition", 'from_offset': from_offset, 'first_committed_offset': first_committed_offset,
               'last_committed_offset': last_committed_offset, 'commits': commits, 'records': records} ORDER BY "partition") AS committed
  FROM per_part GROUP BY member_id
)
SELECT m.member_id, m.client_id, m.host, m.instance_id,
       CASE WHEN m.first_seq = (SELECT min(seq) FROM gm) THEN NULL ELSE fc.first_seq = m.first_seq END AS new_client_id,
       m.first_generation, m.last_generation, m.generations,
       j.gen_time AS joined_at, l.gen_time AS last_generation_at, CASE WHEN m.classic THEN nx.gen_time ELSE lf.left_at END AS left_at,
       CASE WHEN m.protocol = 'streams' AND m.assignment_known THEN coalesce(h.partitions, [])
            WHEN m.protocol = 'streams' THEN NULL
            WHEN m.classic OR (SELECT len(ids) = 1 FROM ids) THEN coalesce(h.partitions, []) END AS partitions,
       CASE WHEN m.protocol = 'share' OR (m.protocol = 'streams' AND NOT m.assignment_known) THEN NULL
            WHEN m.classic OR m.protocol = 'streams' OR (SELECT len(ids) = 1 FROM ids) THEN coalesce(cm.records_committed_past, 0) END AS records_committed_past,
       CASE WHEN m.protocol = 'share' OR (m.protocol = 'streams' AND NOT m.assignment_known) THEN NULL
            WHEN m.classic OR m.protocol = 'streams' OR (SELECT len(ids) = 1 FROM ids) THEN coalesce(cm.committed, []) END AS committed
FROM m
JOIN first_client fc ON fc.client_id IS NOT DISTINCT FROM m.client_id
JOIN gens j ON j.seq = m.first_seq
JOIN gens l ON l.seq = m.last_seq
LEFT JOIN gens nx ON nx.seq = m.last_seq + 1
LEFT JOIN held h USING (member_id)
LEFT JOIN committed cm USING (member_id)
LEFT JOIN left_ lf USING (member_id)
ORDER BY joined_at, m.member_id
