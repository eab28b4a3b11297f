-- name: values_reasons
-- summary: the values of a schema-encoded topic that were not decoded,
--          counted by why (value_error: the schema unknown or not
--          reachable when the dump ran, the payload not decoding with it, no
--          magic byte).
-- params: T the topic view.
SELECT value_error AS problem, count(*) AS records
FROM {{.T}} WHERE value_error IS NOT NULL
GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20
