-- name: lag (Spark)
-- summary: as lag.sql; the records joined for the committed offsets' times
--          are CommittedRecords (remoteCommittedRecords): the data files
--          holding an offset some group committed on the topic at any cut,
--          each filtered to those offsets (literals), which Spark pushes to
--          the Parquet scan, so it reads a row group a committed offset, not
--          every record (the join over the whole view read all 5M records of
--          a topic in 2.6 s). The join still decides; the relation only
--          leaves out records no committed offset matches.
-- params: $1 the topic name; $2 the id of the first cut of today's topic
--         ('' for every cut: see lag.sql); CommittedRecords ("partition", "offset",
--         "timestamp"), the topic's whole view when past the bound;
--         NoTimestamp the dialect's test of a timestamp of -1 (no age).
WITH latest AS (
  SELECT group_id, max(snapshot_id) AS snapshot_id FROM group_offsets WHERE topic = $1 AND snapshot_id >= $2 GROUP BY 1
), o AS (
  SELECT g.* FROM group_offsets g JOIN latest USING (group_id, snapshot_id) WHERE g.topic = $1
), r AS (
  SELECT TRY_CAST(value AS BIGINT) AS retention_ms, snapshot_id FROM topic_configs WHERE topic = $1 AND name = 'retention.ms'
)
SELECT o.group_id, o.state, o."partition", o.committed_offset, p.log_start_offset, p.high_watermark AS end_offset,
       CASE WHEN o.committed_offset IS NOT NULL THEN greatest(p.high_watermark - o.committed_offset, 0) END AS lag_records,
       CASE WHEN o.committed_offset IS NULL THEN NULL WHEN o.committed_offset >= p.high_watermark THEN 0
            ELSE round(epoch(o.as_of) - epoch(rec."timestamp"), 3) END AS lag_seconds,
       CASE WHEN o.committed_offset IS NULL OR o.committed_offset >= p.high_watermark OR o.committed_offset < p.log_start_offset
                 OR r.retention_ms IS NULL OR r.retention_ms < 0 THEN NULL
            ELSE round(r.retention_ms / 1000.0 - (epoch(o.as_of) - epoch(rec."timestamp")), 3) END AS retention_headroom_seconds,
       CASE WHEN o.committed_offset IS NOT NULL THEN greatest(p.log_start_offset - o.committed_offset, 0) END AS skipped_records,
       o.as_of, o.snapshot_id
FROM o
JOIN partitions p ON p.snapshot_id = o.snapshot_id AND p.topic = $1 AND p."partition" = o."partition"
LEFT JOIN r ON r.snapshot_id = o.snapshot_id
LEFT JOIN (SELECT "partition", "offset", "timestamp" FROM {{.CommittedRecords}} WHERE NOT ({{.NoTimestamp}})) rec
  ON rec."partition" = o."partition" AND rec."offset" = o.committed_offset
ORDER BY o.group_id, o."partition"
