-- name: group_history (a view over the catalog table group_history_cuts
--       and, where the folder holds a dump of __consumer_offsets, the log's
--       group_log_history; built by the engine: refresh.go)
-- summary: who held which partition of which group: one row per run in
--          which one member held one partition. A (topic, group) the
--          commit log holds answers from the log (source 'log': every join
--          and leave the log keeps, a run being the consecutive generations,
--          or a consumer-protocol member's assignment records, that gave
--          the member the partition: from_as_of its first, to_as_of its
--          last, until_as_of when it lost it, NULL while it held it at the
--          log's last record; generations how many; from_complete false
--          when the log is not complete at the run's start, so the member
--          may have held it earlier; coverage from when the group's history
--          in the log is complete: group_log_history's, from group_log_coverage). Any other
--          (topic, group) answers from the cuts (source 'cut': runs of
--          consecutive cuts, from_as_of and to_as_of its first and last
--          cut, until_as_of the first cut without it, cuts how many; what
--          happened between two cuts is not seen). first/last_committed_offset
--          are the group's committed offset at the run's first and last cut
--          (cuts) or its first and last commit on the partition during the
--          run (log). The history page, /api/history and notebooks read
--          this view, so they give one answer.
-- params: none.
CREATE OR REPLACE VIEW group_history AS
{{- if .Log}}
WITH h AS MATERIALIZED (
  SELECT * FROM group_log_history
), logged AS (
  SELECT DISTINCT topic, group_id FROM h WHERE topic IS NOT NULL
)
SELECT h.topic, h.group_id, h."partition", h.member_id, h.instance_id, h.client_id, h.host,
       NULL::VARCHAR AS from_snapshot_id, h.joined_at AS from_as_of, NULL::VARCHAR AS to_snapshot_id, h.last_seen_at AS to_as_of,
       h.left_at AS until_as_of, NULL::INTEGER AS cuts, h.first_committed_offset, h.last_committed_offset,
       'log' AS source, h.generations, h.from_complete, h.coverage
FROM h
UNION ALL
SELECT c.*, 'cut' AS source, NULL::BIGINT AS generations, NULL::BOOLEAN AS from_complete, NULL::VARCHAR AS coverage
FROM group_history_cuts c
WHERE NOT EXISTS (SELECT 1 FROM logged l WHERE l.topic = c.topic AND l.group_id = c.group_id)
{{- else}}
SELECT c.*, 'cut' AS source, NULL::BIGINT AS generations, NULL::BOOLEAN AS from_complete, NULL::VARCHAR AS coverage
FROM group_history_cuts c
{{- end}}
