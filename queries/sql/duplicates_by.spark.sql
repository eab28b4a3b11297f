-- name: duplicates_by (Spark)
-- summary: records and distinct ids per value of the --by expression (the
--          seed: 4,885 order_completed tickets describe 4,869 orders).
--          A record whose id is NULL has no id (without_id): it is no
--          copy, as in duplicates.sql.
-- params: ID the id expression, ByText DuckDB's text of the breakdown
--         expression (remoteText: Spark's CAST writes a BLOB, a TIMESTAMPTZ
--         and a DOUBLE otherwise).
SELECT {{.ByText}} AS "by", count(*) AS records, count(*) - count(({{.ID}})) AS without_id,
       count(DISTINCT ({{.ID}})) AS distinct_ids,
       count(({{.ID}})) - count(DISTINCT ({{.ID}})) AS extra_copies
FROM {{.T}}
GROUP BY 1
ORDER BY records DESC, 1 NULLS LAST
LIMIT 100
