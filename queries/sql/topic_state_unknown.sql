-- name: topic_state_unknown (a table macro, created in every engine before topic_state)
-- summary: the offsets of a topic whose records the snapshot never held and
--          that may have been part of its state at as_of: a key only they
--          held is missing from topic_state(topic, as_of), and a key they
--          may have rewritten is marked unknown there. One row per span of
--          absent offsets between where the first dump started
--          (partition_dumps.from_offset) and where the last one stopped:
--          kind 'compacted' (a compacted topic's cleaner removed them before
--          a dump read them), 'expired' (a lost range: retention or
--          DeleteRecords), 'missing' (neither explains them).
--          written_after is the time of the last stored record before the
--          span (NULL: none, the span may be older than anything stored);
--          known_from is when its records were all superseded: a compacted
--          record is removed only once a later record of its key exists, and
--          that record was written before the dump that found the span read
--          past it, so from that dump's time (as_of of partition_dumps) the
--          span hides nothing. Expired and missing spans have no such time
--          (NULL: never known). A span is listed when its records may be at
--          or before as_of and as_of is before its known_from. Times compare
--          record timestamps with dump times: exact for LogAppendTime, a
--          bound for producers whose clocks keep to the broker's.
-- use: SELECT * FROM topic_state_unknown('routing', TIMESTAMPTZ '2026-07-16 09:05:00Z')
-- note: query_table reads a dotted name as schema.table, so the topic's name
--       is quoted (Kafka's names are [a-zA-Z0-9._-]: never a double quote).
CREATE OR REPLACE MACRO topic_state_unknown(topic_name, as_of) AS TABLE
WITH stored AS (
  SELECT "partition", "offset", "timestamp",
         lead("offset") OVER (PARTITION BY "partition" ORDER BY "offset") AS topicsnap_next
  FROM query_table('"' || topic_name || '$all"')
),
bounds AS (
  SELECT "partition", min(from_offset) AS start_offset, max(until_offset) AS end_offset
  FROM partition_dumps WHERE topic = topic_name GROUP BY "partition"
),
ends AS (
  SELECT "partition", min("offset") AS first_offset, max("offset") AS last_offset,
         arg_max("timestamp", "offset") AS last_time
  FROM stored GROUP BY "partition"
),
holes AS (
  SELECT "partition", "offset" + 1 AS from_offset, topicsnap_next - 1 AS to_offset, "timestamp" AS written_after
  FROM stored WHERE topicsnap_next > "offset" + 1
  UNION ALL
  SELECT b."partition", b.start_offset, coalesce(e.first_offset, b.end_offset) - 1, NULL
  FROM bounds b LEFT JOIN ends e ON e."partition" = b."partition"
  WHERE coalesce(e.first_offset, b.end_offset) > b.start_offset
  UNION ALL
  SELECT b."partition", e.last_offset + 1, b.end_offset - 1, e.last_time
  FROM bounds b JOIN ends e ON e."partition" = b."partition"
  WHERE b.end_offset - 1 > e.last_offset
),
lost AS (
  SELECT "partition", from_offset, to_offset FROM lost_ranges WHERE topic = topic_name
),
spans AS (
  SELECT h."partition", h.from_offset, h.to_offset, h.written_after,
         CASE WHEN EXISTS (SELECT 1 FROM lost l WHERE l."partition" = h."partition"
                             AND l.from_offset <= h.to_offset AND l.to_offset >= h.from_offset) THEN 'expired'
              WHEN EXISTS (SELECT 1 FROM topic_configs c WHERE c.topic = topic_name
                             AND c.name = 'cleanup.policy' AND c.value LIKE '%compact%') THEN 'compacted'
              ELSE 'missing' END AS kind
  FROM holes h
  UNION ALL
  -- lost ranges outside every hole (before the first dump's start)
  SELECT l."partition", l.from_offset, l.to_offset, NULL, 'expired'
  FROM lost l
  WHERE NOT EXISTS (SELECT 1 FROM holes h WHERE h."partition" = l."partition"
                      AND l.from_offset <= h.to_offset AND l.to_offset >= h.from_offset)
),
timed AS (
  SELECT s.*,
         CASE WHEN s.kind = 'compacted' THEN
           (SELECT min(d.as_of) FROM partition_dumps d WHERE d.topic = topic_name
              AND d."partition" = s."partition" AND d.until_offset > s.to_offset)
         END AS known_from
  FROM spans s
)
SELECT "partition", from_offset, to_offset, to_offset - from_offset + 1 AS offsets, kind, written_after, known_from
FROM timed
WHERE (written_after IS NULL OR written_after <= as_of)
  AND (known_from IS NULL OR as_of < known_from)
