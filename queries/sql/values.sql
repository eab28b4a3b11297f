-- name: values
-- summary: the topic's data records by what their value is: null (a
--          tombstone), or for a JSON topic a value that does not parse as a
--          JSON object, and why: not UTF-8, not JSON, or JSON but not an
--          object. One row per partition.
-- params: T the topic view.
WITH v AS (
  SELECT "partition", value_raw,
         CASE WHEN value_raw IS NULL THEN NULL
              WHEN try(decode(value_raw)) IS NULL THEN 'not UTF-8'
              WHEN NOT json_valid(decode(value_raw)) THEN 'not JSON'
              WHEN json_type(decode(value_raw)) <> 'OBJECT' THEN 'not a JSON object'
         END AS problem
  FROM {{.T}}
)
SELECT "partition", count(*) AS records,
       count(*) FILTER (WHERE value_raw IS NULL) AS null_values,
       count(*) FILTER (WHERE problem IS NOT NULL) AS unparsed,
       count(*) FILTER (WHERE problem = 'not UTF-8') AS not_utf8,
       count(*) FILTER (WHERE problem = 'not JSON') AS not_json,
       count(*) FILTER (WHERE problem = 'not a JSON object') AS not_object
FROM v GROUP BY 1 ORDER BY 1
