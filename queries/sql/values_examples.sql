-- name: values_examples
-- summary: the records of a JSON topic whose value does not parse as a JSON
--          object, by partition and offset, with why and how the value
--          starts.
-- params: T the topic view; $1 how many examples.
WITH v AS (
  SELECT "partition", "offset", "timestamp", value_raw,
         CASE WHEN value_raw IS NULL THEN NULL
              WHEN try(decode(value_raw)) IS NULL THEN 'not UTF-8'
              WHEN NOT json_valid(decode(value_raw)) THEN 'not JSON'
              WHEN json_type(decode(value_raw)) <> 'OBJECT' THEN 'not a JSON object'
         END AS problem
  FROM {{.T}}
)
SELECT "partition", "offset", "timestamp", problem, octet_length(value_raw) AS bytes,
       CASE WHEN problem = 'not UTF-8' THEN '0x' || left(hex(value_raw), 64)
            ELSE left(decode(value_raw), 64) END AS value_start
FROM v WHERE problem IS NOT NULL
ORDER BY "partition", "offset" LIMIT $1
