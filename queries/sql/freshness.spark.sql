-- name: freshness (Spark)
-- summary: as freshness.sql; the cut is joined, not a scalar subquery (Spark
--          will not take one inside a session function's argument).
--          A record with no timestamp (-1) is counted, not taken as newest.
-- params: $1 the topic name; NoTimestamp the dialect's test of a
--         timestamp of -1.
WITH cut AS (SELECT max(as_of) AS as_of FROM snapshots WHERE topic = $1),
     p AS (SELECT "partition", count(*) AS records, max("timestamp") FILTER (WHERE NOT ({{.NoTimestamp}})) AS newest,
                  count(*) FILTER (WHERE {{.NoTimestamp}}) AS no_timestamp_records
           FROM {{.T}} GROUP BY 1)
SELECT p."partition", p.records, p.newest, round(epoch(cut.as_of) - epoch(p.newest), 3) AS staleness_seconds,
       p.no_timestamp_records
FROM p CROSS JOIN cut ORDER BY 1
