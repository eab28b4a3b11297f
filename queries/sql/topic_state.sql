-- name: topic_state (a table macro, created in every engine)
-- summary: a compacted topic's state at a time, from the snapshot: for each
--          key on each partition (compaction keeps one record per key and
--          partition), the latest record (highest offset) whose timestamp is
--          at or before as_of; a tombstone (a NULL value) removes the key.
--          Records without a key are left out (a compacted topic refuses
--          them). It reads the topic's data view: committed data records,
--          no markers, no aborted records. Because the snapshot keeps what
--          the broker's cleaner later removes, it answers for times whose
--          values the topic itself no longer holds.
--          What it cannot know is said, never left out: known is false for a
--          key whose value at as_of may be a record the snapshot never held
--          (a span of topic_state_unknown lies between its record at or
--          before as_of, or the partition's start, and its next record);
--          such a row has no offset, value or headers, and known_from is
--          when the key is known again (its next stored record's time, else
--          the spans' known_from; NULL: not within the snapshot). Known rows
--          have known true and known_from NULL. Keys that only the missing
--          records held cannot be named: topic_state_unknown lists their
--          spans.
-- use: SELECT * FROM topic_state('routing', TIMESTAMPTZ '2026-07-16 11:00:00Z')
-- note: query_table reads a dotted name as schema.table, so the topic's name
--       is quoted (Kafka's names are [a-zA-Z0-9._-]: never a double quote).
CREATE OR REPLACE MACRO topic_state(topic_name, as_of) AS TABLE
WITH recs AS (
  SELECT "partition", "offset", "timestamp", key, key_raw, value, value_raw, headers,
         lead("offset") OVER topicsnap_key AS topicsnap_next_offset,
         lead("timestamp") OVER topicsnap_key AS topicsnap_next_time,
         row_number() OVER topicsnap_key AS topicsnap_nth
  FROM query_table('"' || topic_name || '"')
  WHERE key_raw IS NOT NULL
  WINDOW topicsnap_key AS (PARTITION BY "partition", key_raw ORDER BY "offset")
),
latest AS (
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY "partition", key_raw ORDER BY "offset" DESC) AS topicsnap_latest
    FROM recs WHERE "timestamp" <= as_of
  ) WHERE topicsnap_latest = 1
),
candidates AS (
  SELECT "partition", "offset", "timestamp", key, key_raw, value, value_raw, headers,
         "offset" AS topicsnap_after, topicsnap_next_offset AS topicsnap_before, topicsnap_next_time AS topicsnap_known_from
  FROM latest
  UNION ALL
  -- keys whose first stored record is after as_of
  SELECT r."partition", NULL, NULL, r.key, r.key_raw, NULL, NULL, NULL,
         -1, r."offset", r."timestamp"
  FROM recs r
  WHERE r.topicsnap_nth = 1
    AND NOT EXISTS (SELECT 1 FROM latest l WHERE l."partition" = r."partition" AND l.key_raw = r.key_raw)
),
unknown AS (SELECT * FROM topic_state_unknown(topic_name, as_of)),
judged AS (
  SELECT c.*,
         EXISTS (SELECT 1 FROM unknown u WHERE u."partition" = c."partition"
                   AND u.from_offset > c.topicsnap_after
                   AND (c.topicsnap_before IS NULL OR u.from_offset < c.topicsnap_before)) AS topicsnap_unknown,
         (SELECT CASE WHEN bool_and(u.known_from IS NOT NULL) THEN max(u.known_from) END FROM unknown u
           WHERE u."partition" = c."partition" AND u.from_offset > c.topicsnap_after) AS topicsnap_spans_known_from
  FROM candidates c
)
SELECT "partition", "offset", "timestamp", key, key_raw, value, value_raw, headers,
       true AS known, CAST(NULL AS TIMESTAMPTZ) AS known_from
FROM judged
WHERE NOT topicsnap_unknown AND value_raw IS NOT NULL
UNION ALL
SELECT "partition", NULL, NULL, key, key_raw, NULL, NULL, NULL,
       false, coalesce(topicsnap_known_from, topicsnap_spans_known_from)
FROM judged
WHERE topicsnap_unknown
