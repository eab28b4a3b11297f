-- name: members_summary
-- summary: what the commit log keeps of a group: its generations, and the
--          times of its earliest and latest generation or commit in the log
--          (history_from: the log is compacted, so older records may be
--          gone). Read from group_generations and group_commit_log, which
--          decode only their own record types, not from group_log, which
--          decodes every record of the log.
--          consumer_protocol: the log holds consumer-protocol (KIP-848)
--          assignment records of the group, whose "generations" are member
--          epochs, one per assignment record. share_protocol,
--          streams_protocol: likewise for a share group (KIP-932) and a
--          Kafka Streams group (KIP-1071).
-- params: $1 the group id.
WITH t AS (
  SELECT log_time FROM group_generations WHERE group_id = $1
  UNION ALL
  SELECT log_time FROM group_commit_log WHERE group_id = $1
)
SELECT (SELECT count(DISTINCT (log_partition, log_offset)) FROM group_generations WHERE group_id = $1) AS generations,
       (SELECT count(*) FROM group_generations WHERE group_id = $1 AND group_protocol = 'consumer') > 0 AS consumer_protocol,
       (SELECT count(*) FROM group_generations WHERE group_id = $1 AND group_protocol = 'share') > 0 AS share_protocol,
       (SELECT count(*) FROM group_generations WHERE group_id = $1 AND group_protocol = 'streams') > 0 AS streams_protocol,
       min(log_time) AS history_from, max(log_time) AS history_to
FROM t
