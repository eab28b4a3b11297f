-- name: missing_reverse
-- summary: the topic's matching records whose key is not expected.
-- params: as missing.
WITH e AS (SELECT DISTINCT CAST(k AS VARCHAR) AS k FROM {{.Expected}} WHERE k IS NOT NULL),
     t AS (SELECT CAST(({{.Match}}) AS VARCHAR) AS k, "partition", "offset" FROM {{.T}} WHERE ({{.Where}}))
SELECT t.k AS "key", t."partition", t."offset" FROM t ANTI JOIN e USING (k) ORDER BY 2, 3
