-- name: reset_members
-- summary: the records a reset by time would re-read (see reset.sql), by the
--          member whose commits moved the group past them: the latest
--          group_commits step that covered the record's offset. A record no
--          step covers, or covered by a step in which the holder changed or
--          no member held the partition, has client_id NULL.
-- params: $1 the topic name; $2 the group id; $3 a JSON list of
--         {"partition", "target_offset", "committed_offset"}: the ranges to
--         re-read. T the topic's data view.
WITH ranges AS (
  SELECT unnest(from_json($3::VARCHAR, '[{"partition":"INTEGER","target_offset":"BIGINT","committed_offset":"BIGINT"}]'), recursive := true)
), r AS (
  SELECT x."partition", x."offset"
  FROM {{.T}} x JOIN ranges g ON x."partition" = g."partition" AND x."offset" >= g.target_offset AND x."offset" < g.committed_offset
), steps AS (
  SELECT "partition", from_offset, to_offset, to_as_of, client_id, member_id, host
  FROM group_commits WHERE topic = $1 AND group_id = $2 AND records > 0
), covered AS (
  SELECT r."partition", r."offset", arg_max(s.client_id, s.to_as_of) AS client_id,
         arg_max(s.host, s.to_as_of) AS host
  FROM r LEFT JOIN steps s ON s."partition" = r."partition" AND r."offset" >= s.from_offset AND r."offset" < s.to_offset
  GROUP BY ALL
)
SELECT client_id, count(*) AS records, list(DISTINCT "partition" ORDER BY "partition") AS partitions,
       list(DISTINCT host ORDER BY host) FILTER (WHERE host IS NOT NULL) AS hosts
FROM covered
GROUP BY client_id
ORDER BY client_id NULLS LAST
