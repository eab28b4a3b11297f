-- name: missing (Spark)
-- summary: as missing.sql; each relation has an alias, since Spark would
--          read "FROM t WHERE (x)" as t aliased WHERE with a column x.
--          The join is on <=> (e.k is never NULL, so it matches what =
--          matches): from = on a LEFT JOIN Spark infers t.k IS NOT NULL
--          and pushes it down to the records, where it evaluates the match
--          expression (the value's JSON parsed) once in that filter and
--          again for the column, twice the cost of every record.
-- params: Expected a relation with columns k (the key) and b (the
--         breakdown); Match the match expression; Where the filter.
WITH e AS (SELECT DISTINCT CAST(k AS STRING) AS k, CAST(b AS STRING) AS b FROM {{.Expected}} AS x WHERE k IS NOT NULL),
     t AS (SELECT DISTINCT {{.MatchText}} AS k FROM {{.T}} AS r WHERE ({{.Where}}))
SELECT e.k AS "key", e.b AS "by", t.k IS NOT NULL AS matched FROM e LEFT JOIN t ON e.k <=> t.k
