-- name: members_summary
-- summary: what the commit log keeps of a group: its generations, the
--          time of its earliest record in the log (history_from: the log is
--          compacted, so older records may be gone) and of its latest.
-- params: $1 the group id.
SELECT (SELECT count(DISTINCT (log_partition, log_offset)) FROM group_generations WHERE group_id = $1) AS generations,
       min(log_time) AS history_from, max(log_time) AS history_to, count(*) AS log_records
FROM group_log WHERE group_id = $1
