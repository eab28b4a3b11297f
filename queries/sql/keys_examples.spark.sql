-- name: keys_examples (Spark)
-- summary: as keys_examples.sql; a key that is not UTF-8 shows as 0x and
--          its hex (try_validate_utf8 for DuckDB's try(decode())).
-- params: $1 the partition count; $2 how many examples.
WITH d AS (
  SELECT key_raw, "partition", "offset",
         kafka_partition(key_raw, $1::INTEGER) AS murmur2_partition,
         kafka_partition_crc32(key_raw, $1::INTEGER) AS crc32_partition
  FROM {{.T}} WHERE key_raw IS NOT NULL
)
SELECT coalesce(try_validate_utf8(CAST(key_raw AS STRING)), '0x' || hex(key_raw)) AS "key", "partition", min("offset") AS first_offset, count(*) AS records,
       any_value(murmur2_partition) AS murmur2_partition, any_value(crc32_partition) AS crc32_partition
FROM d WHERE "partition" <> murmur2_partition
GROUP BY 1, 2 ORDER BY 2, 3 LIMIT $2
