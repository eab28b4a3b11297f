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
-- use: SELECT * FROM topic_state('routing', TIMESTAMPTZ '2026-07-16 11:00:00Z')
CREATE OR REPLACE MACRO topic_state(topic_name, as_of) AS TABLE
SELECT "partition", "offset", "timestamp", key, key_raw, value, value_raw, headers
FROM (
  SELECT *, row_number() OVER (PARTITION BY "partition", key_raw ORDER BY "offset" DESC) AS topicsnap_latest
  FROM query_table(topic_name)
  WHERE key_raw IS NOT NULL AND "timestamp" <= as_of
)
WHERE topicsnap_latest = 1 AND value_raw IS NOT NULL
