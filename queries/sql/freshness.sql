-- name: freshness
-- summary: per partition, the newest record's time against the latest cut.
--          A record with no timestamp (-1, NoTimestamp) has no time to be
--          fresh or stale at: it is counted (no_timestamp_records) and left
--          out of the newest, so a partition of only such records has none.
-- params: $1 the topic name; NoTimestamp the dialect's test of a
--         timestamp of -1.
WITH cut AS (SELECT max(as_of) AS as_of FROM snapshots WHERE topic = $1)
SELECT "partition", count(*) AS records, max("timestamp") FILTER (WHERE NOT ({{.NoTimestamp}})) AS newest,
       round(epoch((SELECT as_of FROM cut)) - epoch(max("timestamp") FILTER (WHERE NOT ({{.NoTimestamp}}))), 3) AS staleness_seconds,
       count(*) FILTER (WHERE {{.NoTimestamp}}) AS no_timestamp_records
FROM {{.T}} GROUP BY 1 ORDER BY 1
