-- name: topic_state (a table macro, created in every engine)
-- summary: a compacted topic's state at a time, from the snapshot: for each
--          key on each partition (compaction keeps one record per key and
--          partition), the latest record (highest offset) whose timestamp is
--          at or before as_of; a tombstone (a NULL value) removes the key.
--          Records without a key are left out (a compacted topic refuses
--          them). A record with no timestamp (-1, Kafka's "no timestamp",
--          not 1969) has no time to be at or before as_of: it is never taken
--          as a key's value, and a key that has one after its value at
--          as_of (or that has one and no value then) is not known (known
--          false, known_from the time of its first timed record after the
--          last such one); the notes count them, as the checks do. It reads the topic's data view: committed data records,
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
         row_number() OVER topicsnap_key AS topicsnap_nth,
         epoch_ms("timestamp") = -1 AS topicsnap_untimed
  FROM query_table('"' || topic_name || '"')
  WHERE key_raw IS NOT NULL
  WINDOW topicsnap_key AS (PARTITION BY "partition", key_raw ORDER BY "offset")
),
-- each key's last record with no timestamp, and when the key is known
-- again after it: its first timed record after it (NULL: none)
untimed AS (
  SELECT u."partition", u.key_raw, u.last_untimed,
         (SELECT min(r."timestamp") FROM recs r WHERE r."partition" = u."partition" AND r.key_raw = u.key_raw
            AND NOT r.topicsnap_untimed AND r."offset" > u.last_untimed) AS known_again
  FROM (SELECT "partition", key_raw, max("offset") AS last_untimed FROM recs WHERE topicsnap_untimed GROUP BY ALL) u
),
latest AS (
  SELECT * FROM (
    SELECT *, row_number() OVER (PARTITION BY "partition", key_raw ORDER BY "offset" DESC) AS topicsnap_latest
    FROM recs WHERE "timestamp" <= as_of AND NOT topicsnap_untimed
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
spanned AS (
  SELECT c.*,
         EXISTS (SELECT 1 FROM unknown u WHERE u."partition" = c."partition"
                   AND u.from_offset > c.topicsnap_after
                   AND (c.topicsnap_before IS NULL OR u.from_offset < c.topicsnap_before)) AS topicsnap_spanned,
         (SELECT CASE WHEN bool_and(u.known_from IS NOT NULL) THEN max(u.known_from) END FROM unknown u
           WHERE u."partition" = c."partition" AND u.from_offset > c.topicsnap_after) AS topicsnap_spans_known_from,
         t.last_untimed IS NOT NULL AS topicsnap_untimed_after, t.known_again AS topicsnap_untimed_known_from
  FROM candidates c
  LEFT JOIN untimed t ON t."partition" = c."partition" AND t.key_raw = c.key_raw AND t.last_untimed > c.topicsnap_after
),
judged AS (
  SELECT *, topicsnap_spanned OR topicsnap_untimed_after AS topicsnap_unknown,
         CASE WHEN NOT topicsnap_untimed_after THEN topicsnap_spans_until
              WHEN NOT topicsnap_spanned THEN topicsnap_untimed_known_from
              -- both: known once both are (NULL when either is not)
              WHEN topicsnap_spans_until IS NOT NULL AND topicsnap_untimed_known_from IS NOT NULL
                THEN greatest(topicsnap_spans_until, topicsnap_untimed_known_from)
         END AS topicsnap_unknown_until
  FROM (SELECT *, coalesce(topicsnap_known_from, topicsnap_spans_known_from) AS topicsnap_spans_until FROM spanned)
)
SELECT "partition", "offset", "timestamp", key, key_raw, value, value_raw, headers,
       true AS known, CAST(NULL AS TIMESTAMPTZ) AS known_from
FROM judged
WHERE NOT topicsnap_unknown AND value_raw IS NOT NULL
UNION ALL
SELECT "partition", NULL, NULL, key, key_raw, NULL, NULL, NULL,
       false, topicsnap_unknown_until
FROM judged
WHERE topicsnap_unknown
