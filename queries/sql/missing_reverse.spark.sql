-- name: missing_reverse (Spark)
-- summary: as missing_reverse.sql; ANTI JOIN is LEFT ANTI JOIN, and each
--          relation has an alias (see missing.spark.sql).
-- params: as missing.
WITH e AS (SELECT DISTINCT CAST(k AS STRING) AS k FROM {{.Expected}} AS x WHERE k IS NOT NULL),
     t AS (SELECT {{.MatchText}} AS k, "partition", "offset" FROM {{.T}} AS r WHERE ({{.Where}}))
SELECT t.k AS "key", t."partition", t."offset" FROM t LEFT ANTI JOIN e ON t.k = e.k ORDER BY 2, 3
