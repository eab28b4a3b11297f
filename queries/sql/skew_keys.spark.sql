-- name: skew_keys (Spark)
-- summary: as skew_keys.sql; the NULL key sorts last as in DuckDB.
-- params: $1 how many top keys.
WITH k AS (SELECT key_raw, count(*) AS records FROM {{.T}} GROUP BY 1)
SELECT (SELECT count(*) FROM k WHERE key_raw IS NOT NULL) AS keys,
       coalesce(try_validate_utf8(CAST(key_raw AS STRING)), '0x' || hex(key_raw), 'NULL') AS "key", records,
       records / (SELECT sum(records) FROM k) AS share
FROM k ORDER BY records DESC, key_raw NULLS LAST LIMIT $1
