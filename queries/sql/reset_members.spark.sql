-- name: reset_members (Spark)
-- summary: as reset_members.sql, in Spark's dialect. DuckDB's arg_max skips
--          a row whose value is NULL; Spark's max_by does not, so the
--          ordering of such a row is made NULL (which max_by skips). The
--          lists are sorted sets; a member with no known host has NULL
--          hosts, as DuckDB's filtered list gives.
-- params: $1 the topic name; $2 the group id; $3 a JSON list of
--         {"partition", "target_offset", "committed_offset"}: the ranges to
--         re-read. T the topic's data view.
WITH ranges AS (
  SELECT inline(from_json($3, 'ARRAY<STRUCT<`partition`: INT, target_offset: BIGINT, committed_offset: BIGINT>>'))
), r AS (
  SELECT x."partition", x."offset"
  FROM {{.T}} x JOIN ranges g ON x."partition" = g."partition" AND x."offset" >= g.target_offset AND x."offset" < g.committed_offset
), steps AS (
  SELECT "partition", from_offset, to_offset, to_as_of, client_id, member_id, host
  FROM group_commits WHERE topic = $1 AND group_id = $2 AND records > 0
), covered AS (
  SELECT r."partition", r."offset",
         max_by(s.client_id, CASE WHEN s.client_id IS NOT NULL THEN s.to_as_of END) AS client_id,
         max_by(s.host, CASE WHEN s.host IS NOT NULL THEN s.to_as_of END) AS host
  FROM r LEFT JOIN steps s ON s."partition" = r."partition" AND r."offset" >= s.from_offset AND r."offset" < s.to_offset
  GROUP BY r."partition", r."offset"
)
SELECT client_id, count(*) AS records, array_sort(collect_set("partition")) AS partitions,
       CASE WHEN count(host) > 0 THEN array_sort(collect_set(host)) END AS hosts
FROM covered
GROUP BY client_id
ORDER BY client_id NULLS LAST
