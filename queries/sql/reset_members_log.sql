-- name: reset_members_log
-- summary: as reset_members.sql, when the folder holds the group's commit
--          log: each record to re-read is attributed to the member that held
--          the partition when the commit past it was made
--          (group_commit_log's member: the latest commit, in the log's
--          order, whose step from the group's previous commit on the
--          partition covers the record's offset). A record whose covering
--          commit names no member (a commit to an empty group, a
--          consumer-protocol group), or that no step of the log covers (its
--          earlier commits compacted away, or before the log), is
--          attributed as the cuts attribute it (reset_members.sql), else
--          client_id NULL. records_by_commit_log and records_by_cuts say
--          which attributed how many.
-- params: $1 the topic name; $2 the group id; $3 a JSON list of
--         {"partition", "target_offset", "committed_offset"}: the ranges to
--         re-read. T the topic's data view.
WITH ranges AS (
  SELECT unnest(from_json($3::VARCHAR, '[{"partition":"INTEGER","target_offset":"BIGINT","committed_offset":"BIGINT"}]'), recursive := true)
), r AS (
  SELECT x."partition", x."offset"
  FROM {{.T}} x JOIN ranges g ON x."partition" = g."partition" AND x."offset" >= g.target_offset AND x."offset" < g.committed_offset
), log_steps AS (
  SELECT * FROM (
    SELECT "partition", lag(committed_offset) OVER (PARTITION BY "partition" ORDER BY log_partition, log_offset) AS from_offset,
           committed_offset AS to_offset, log_partition, log_offset, member_id, client_id, client_host
    FROM group_commit_log WHERE topic = $1 AND group_id = $2)
  WHERE from_offset IS NOT NULL AND to_offset > from_offset
), by_log AS (
  SELECT r."partition", r."offset",
         arg_max({'member_id': s.member_id, 'client_id': s.client_id, 'host': s.client_host}, (s.log_partition, s.log_offset)) AS w
  FROM r JOIN log_steps s ON s."partition" = r."partition" AND r."offset" >= s.from_offset AND r."offset" < s.to_offset
  GROUP BY ALL
), steps AS (
  SELECT "partition", from_offset, to_offset, to_as_of, client_id, member_id, host
  FROM group_commits WHERE topic = $1 AND group_id = $2 AND records > 0
), by_cuts AS (
  SELECT r."partition", r."offset", arg_max(s.client_id, s.to_as_of) AS client_id,
         arg_max(s.host, s.to_as_of) AS host
  FROM r LEFT JOIN steps s ON s."partition" = r."partition" AND r."offset" >= s.from_offset AND r."offset" < s.to_offset
  GROUP BY ALL
), covered AS (
  SELECT c."partition", c."offset", l.w.member_id IS NOT NULL AS by_log,
         CASE WHEN l.w.member_id IS NOT NULL THEN l.w.client_id ELSE c.client_id END AS client_id,
         CASE WHEN l.w.member_id IS NOT NULL THEN l.w.host ELSE c.host END AS host,
         l.w.member_id IS NULL AND c.client_id IS NOT NULL AS by_cuts
  FROM by_cuts c LEFT JOIN by_log l USING ("partition", "offset")
)
SELECT client_id, count(*) AS records, list(DISTINCT "partition" ORDER BY "partition") AS partitions,
       list(DISTINCT host ORDER BY host) FILTER (WHERE host IS NOT NULL) AS hosts,
       count(*) FILTER (WHERE by_log) AS records_by_commit_log, count(*) FILTER (WHERE by_cuts) AS records_by_cuts
FROM covered
GROUP BY client_id
ORDER BY client_id NULLS LAST
