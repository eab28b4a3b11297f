-- name: freshness (Spark)
-- summary: as freshness.sql; the cut is joined, not a scalar subquery (Spark
--          will not take one inside a session function's argument).
-- params: $1 the topic name.
WITH cut AS (SELECT max(as_of) AS as_of FROM snapshots WHERE topic = $1),
     p AS (SELECT "partition", count(*) AS records, max("timestamp") AS newest FROM {{.T}} GROUP BY 1)
SELECT p."partition", p.records, p.newest, round(epoch(cut.as_of) - epoch(p.newest), 3) AS staleness_seconds
FROM p CROSS JOIN cut ORDER BY 1
