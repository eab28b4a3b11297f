-- name: freshness
-- summary: per partition, the newest record's time against the latest cut.
-- params: $1 the topic name.
WITH cut AS (SELECT max(as_of) AS as_of FROM snapshots WHERE topic = $1)
SELECT "partition", count(*) AS records, max("timestamp") AS newest,
       round(epoch((SELECT as_of FROM cut)) - epoch(max("timestamp")), 3) AS staleness_seconds
FROM {{.T}} GROUP BY 1 ORDER BY 1
