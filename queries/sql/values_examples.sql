-- name: values_examples
-- summary: the records whose value did not parse in the topic's format, by
--          partition and offset, with why (value_error) and how the value
--          starts (hex when it is not UTF-8 text: Avro, Protobuf).
-- params: T the topic view; $1 how many examples.
SELECT "partition", "offset", "timestamp", value_error AS problem, octet_length(value_raw) AS bytes,
       coalesce(left(try(decode(value_raw)), 64), '0x' || left(hex(value_raw), 64)) AS value_start
FROM {{.T}} WHERE value_error IS NOT NULL
ORDER BY "partition", "offset" LIMIT $1
