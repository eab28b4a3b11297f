-- name: missing
-- summary: expected keys (from a file or another topic) matched against the
--          topic's records that pass a filter; the expected keys with no
--          match are missing.
-- params: Expected a relation with columns k (the key) and b (the
--         breakdown); Match the match expression; Where the filter.
WITH e AS (SELECT DISTINCT CAST(k AS VARCHAR) AS k, CAST(b AS VARCHAR) AS b FROM {{.Expected}} WHERE k IS NOT NULL),
     t AS (SELECT DISTINCT CAST(({{.Match}}) AS VARCHAR) AS k FROM {{.T}} WHERE ({{.Where}}))
SELECT e.k AS "key", e.b AS "by", t.k IS NOT NULL AS matched FROM e LEFT JOIN t USING (k)
