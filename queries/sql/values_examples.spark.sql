-- name: values_examples (Spark)
-- summary: as values_examples.sql; a value's text is its bytes as UTF-8.
-- params: T the topic view; $1 how many examples.
SELECT "partition", "offset", "timestamp", value_error AS problem, octet_length(value_raw) AS bytes,
       CASE WHEN value_error = 'not UTF-8' THEN '0x' || left(hex(value_raw), 64)
            ELSE left(CAST(value_raw AS STRING), 64) END AS value_start
FROM {{.T}} WHERE value_error IS NOT NULL
ORDER BY "partition", "offset" LIMIT $1
