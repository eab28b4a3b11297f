-- name: reset
-- summary: what a reset of a consumer group by time would replay, per
--          partition. The target is what kafka-consumer-groups.sh
--          --reset-offsets --to-datetime chooses: the first offset at or
--          after the log start (at the latest cut that saw the group) whose
--          record timestamp is at or after the time, markers included (the
--          broker's time index counts them); the end offset when there is
--          none. The records to re-read are the data records between the
--          target and the group's committed offset at that cut; where
--          Kafka answered no committed offset (-1, a NULL committed_offset)
--          the offsets are NULL: nothing to replay is known.
--          target_exact is false when the snapshot does not hold the
--          partition from the log start and the first record it holds is
--          already at or after the time: the broker may then pick an offset
--          the snapshot never saw.
-- params: $1 the topic name; $2 the group id; $3 the time (TIMESTAMPTZ);
--         $4 a JSON list of partitions, or NULL for every partition the
--         group committed on; $5 the id of the first cut of today's topic
--         ('' for every cut: a commit on an old topic of the name is not
--         this one's). T the topic's data view; All its full view.
WITH cut AS (
  SELECT max(as_of) AS as_of FROM group_offsets WHERE topic = $1 AND group_id = $2 AND snapshot_id >= $5
), o AS (
  SELECT g."partition", g.committed_offset, g.snapshot_id, g.as_of
  FROM group_offsets g, cut
  WHERE g.topic = $1 AND g.group_id = $2 AND g.as_of = cut.as_of
    AND ($4 IS NULL OR list_contains(from_json($4::VARCHAR, '["INTEGER"]'), g."partition"))
), p AS (
  SELECT o.*, pt.log_start_offset, pt.high_watermark
  FROM o JOIN partitions pt ON pt.snapshot_id = o.snapshot_id AND pt.topic = $1 AND pt."partition" = o."partition"
), held AS (
  SELECT a."partition", min(a."offset") AS first_held,
         min(a."offset") FILTER (WHERE a."timestamp" >= $3) AS first_at_time
  FROM {{.All}} a JOIN p ON a."partition" = p."partition" AND a."offset" >= p.log_start_offset AND a."offset" < p.high_watermark
  GROUP BY 1
), t AS (
  SELECT p.*, coalesce(h.first_at_time, p.high_watermark) AS target_offset,
         NOT (h.first_held IS NULL AND p.high_watermark > p.log_start_offset
              OR h.first_held > p.log_start_offset AND h.first_at_time = h.first_held) AS target_exact
  FROM p LEFT JOIN held h USING ("partition")
)
SELECT t."partition", t.target_offset, t.committed_offset,
       (SELECT count(*) FROM {{.T}} r WHERE r."partition" = t."partition"
          AND r."offset" >= t.target_offset AND r."offset" < t.committed_offset) AS records,
       CASE WHEN t.committed_offset IS NOT NULL THEN greatest(t.committed_offset - t.target_offset, 0) END AS offsets,
       t.target_exact, t.log_start_offset, t.high_watermark AS end_offset, t.as_of, t.snapshot_id
FROM t
ORDER BY t."partition"
