-- name: group_log_history (a view, built with the log views: grouplog.go)
-- summary: every join and leave the group's commit log holds: one row per
--          run of consecutive assignments in which one member held one
--          partition. Classic groups: each group metadata record is a whole
--          generation, so a run is the generations in a row that gave the
--          member the partition, and it ends (left_at) at the group's next
--          generation that did not. Consumer-protocol (KIP-848) groups: each
--          member's current assignment records in turn (its tombstone: it
--          left), a partition held while assigned or pending revocation;
--          the run ends at the member's next record without the partition.
--          Share and streams groups (Kafka 4) likewise, from their current
--          assignment records (a streams member's partitions: those its
--          active tasks read, group_generations.assignment). A partition named only by topic id is named by the
--          commits that carry both, or by the cuts (snapshots.topic_id).
--          joined_at is the time of the run's first record; from_complete
--          is false when the group's log partition is not complete at that
--          record (group_log_coverage: compaction removed older records),
--          so the member may have held it earlier; coverage is
--          group_log_coverage's note for the group's log partition.
--          first/last_committed_offset are the group's commits on the
--          partition from the run's start to its end, in the log's order.
--          A share group's topics are also named by its share state
--          records (type 15: each topic's id and name).
-- params: none (reads group_generations, group_log, group_commit_log,
--         snapshots and group_log_coverage).
CREATE OR REPLACE VIEW group_log_history AS
WITH ids AS (
  SELECT topic_id, any_value(topic) AS topic FROM (
    SELECT topic_id, topic FROM group_commit_log WHERE topic_id IS NOT NULL AND topic IS NOT NULL
    UNION ALL SELECT topic_id, topic FROM snapshots WHERE topic_id IS NOT NULL
    -- a share group's state records name each of its topics by id and name
    UNION ALL SELECT t.topic_id, t.topic FROM (
      SELECT unnest(list_concat(r.share_state.initializing, r.share_state.initialized)) AS t
      FROM (SELECT from_json(kafka_offsets_record(key_raw, value_raw),
                     '{"kind":"VARCHAR","share_state":{"initializing":[{"topic":"VARCHAR","topic_id":"VARCHAR"}],"initialized":[{"topic":"VARCHAR","topic_id":"VARCHAR"}]}}') AS r
            FROM "__consumer_offsets" WHERE value_raw IS NOT NULL AND key_raw >= '\x00\x0f'::BLOB AND key_raw < '\x00\x10'::BLOB)
      WHERE r.kind = 'share_group_state_partition_metadata')
    WHERE t.topic_id IS NOT NULL AND t.topic IS NOT NULL)
  GROUP BY topic_id
), classic_seq AS (
  SELECT group_id, log_partition, log_offset, seen_at, row_number() OVER (PARTITION BY group_id ORDER BY log_partition, log_offset) AS seq
  FROM (SELECT DISTINCT group_id, log_partition, log_offset, coalesce(state_time, log_time) AS seen_at
        FROM group_generations WHERE group_protocol = 'classic')
), consumer_seq AS (
  SELECT group_id, member_id, log_partition, log_offset, log_time AS seen_at,
         row_number() OVER (PARTITION BY group_id, member_id ORDER BY log_partition, log_offset) AS seq
  FROM group_log WHERE kind IN ('consumer_group_current_member', 'share_group_current_member', 'streams_group_current_member') AND decode_error IS NULL
), assigned AS (
  -- a consumer-protocol member holds what it is assigned and what is
  -- pending revocation (until it says it gave it up), as group_commit_log
  -- and check members count it
  SELECT DISTINCT group_id, group_protocol, generation, member_id, instance_id, client_id, client_host, a.topic AS topic, a.topic_id AS topic_id,
         unnest(a.partitions) AS "partition", log_partition, log_offset
  FROM (SELECT *, unnest(list_concat(assignment, coalesce(pending_revocation, []))) AS a FROM group_generations
        WHERE member_id IS NOT NULL AND len(list_concat(assignment, coalesce(pending_revocation, []))) > 0)
), held AS (
  SELECT h.*, s.seq, s.seen_at FROM assigned h JOIN classic_seq s USING (group_id, log_partition, log_offset) WHERE h.group_protocol = 'classic'
  UNION ALL BY NAME
  SELECT h.*, s.seq, s.seen_at FROM assigned h JOIN consumer_seq s USING (group_id, member_id, log_partition, log_offset) WHERE h.group_protocol <> 'classic'
), islands AS (
  SELECT *, seq - row_number() OVER (PARTITION BY group_id, member_id, topic, topic_id, "partition" ORDER BY seq) AS island FROM held
), runs AS (
  SELECT group_id, group_protocol, member_id, topic, topic_id, "partition",
         arg_max(instance_id, seq) AS instance_id, arg_max(client_id, seq) AS client_id, arg_max(client_host, seq) AS host,
         min(generation) AS from_generation, max(generation) AS to_generation, count(*) AS generations,
         min(seq) AS from_seq, max(seq) AS to_seq, min(seen_at) AS joined_at, max(seen_at) AS last_seen_at,
         arg_min(log_partition, seq) AS log_partition, arg_min(log_offset, seq) AS from_log_offset
  FROM islands GROUP BY group_id, group_protocol, member_id, topic, topic_id, "partition", island
), ended AS (
  SELECT r.*, coalesce(r.topic, i.topic) AS topic_name, coalesce(cs.seen_at, ms.seen_at) AS left_at, coalesce(cs.log_offset, ms.log_offset) AS to_log_offset
  FROM runs r
  LEFT JOIN ids i ON i.topic_id = r.topic_id
  LEFT JOIN classic_seq cs ON r.group_protocol = 'classic' AND cs.group_id = r.group_id AND cs.seq = r.to_seq + 1
  LEFT JOIN consumer_seq ms ON r.group_protocol <> 'classic' AND ms.group_id = r.group_id AND ms.member_id = r.member_id AND ms.seq = r.to_seq + 1
), committed AS (
  SELECT e.group_id, e.member_id, e.topic, e.topic_id, e."partition", e.from_log_offset,
         arg_min(c.committed_offset, c.log_offset) AS first_committed_offset, arg_max(c.committed_offset, c.log_offset) AS last_committed_offset,
         count(*) AS commits
  FROM ended e JOIN group_commit_log c ON c.group_id = e.group_id AND c.topic = e.topic_name
    AND c."partition" = e."partition" AND c.log_partition = e.log_partition
    AND c.log_offset > e.from_log_offset AND (e.to_log_offset IS NULL OR c.log_offset < e.to_log_offset) AND NOT c.deleted
  GROUP BY ALL
)
SELECT e.group_id, e.group_protocol, e.topic_name AS topic, e.topic_id, e."partition", e.member_id, e.instance_id, e.client_id, e.host,
       e.from_generation, e.to_generation, e.generations, e.joined_at, e.last_seen_at, e.left_at,
       e.from_log_offset >= cv.complete_from_offset AS from_complete, cv.note AS coverage,
       c.first_committed_offset, c.last_committed_offset, coalesce(c.commits, 0) AS commits, e.log_partition, e.from_log_offset
FROM ended e
LEFT JOIN group_log_coverage cv ON cv.group_id = e.group_id AND cv.log_partition = e.log_partition
LEFT JOIN committed c ON c.group_id = e.group_id AND c.member_id = e.member_id AND c.topic IS NOT DISTINCT FROM e.topic
  AND c.topic_id IS NOT DISTINCT FROM e.topic_id AND c."partition" = e."partition" AND c.from_log_offset = e.from_log_offset
