-- name: values_keys
-- summary: the keys of a topic whose keys the dump decoded (wire-format
--          keys) that were not decoded, counted by why (key_error: the
--          schema unknown or not reachable when the dump ran, the payload
--          not decoding with it, no magic byte), with the total of them.
-- params: T the topic view.
SELECT problem, records, sum(records) OVER () AS total
FROM (SELECT key_error AS problem, count(*) AS records FROM {{.T}} WHERE key_error IS NOT NULL GROUP BY 1)
ORDER BY 2 DESC, 1 LIMIT 20
