-- name: skew_keys
-- summary: key cardinality and the top keys with their share of records.
-- params: $1 how many top keys.
WITH k AS (SELECT key_raw, count(*) AS records FROM {{.T}} GROUP BY 1)
SELECT (SELECT count(*) FROM k WHERE key_raw IS NOT NULL) AS keys,
       coalesce(try(decode(key_raw)), '0x' || hex(key_raw), 'NULL') AS "key", records,
       records / (SELECT sum(records) FROM k) AS share
FROM k ORDER BY records DESC, key_raw LIMIT $1
