-- name: keys
-- summary: key placement: records whose partition is not the Java default
--          murmur2 partition, whether librdkafka's crc32 explains them, and
--          keys found on more than one partition.
-- params: $1 the partition count.
WITH d AS (
  SELECT key_raw, "partition",
         kafka_partition(key_raw, $1::INTEGER) AS murmur2_partition,
         kafka_partition_crc32(key_raw, $1::INTEGER) AS crc32_partition
  FROM {{.T}} WHERE key_raw IS NOT NULL
)
SELECT count(*) AS records,
       count(DISTINCT key_raw) AS keys,
       count(*) FILTER (WHERE "partition" <> murmur2_partition) AS misplaced_records,
       count(*) FILTER (WHERE "partition" <> crc32_partition) AS crc32_misplaced_records,
       count(*) FILTER (WHERE "partition" <> murmur2_partition AND "partition" = crc32_partition) AS explained_by_crc32,
       count(*) FILTER (WHERE "partition" <> murmur2_partition AND "partition" <> crc32_partition) AS unexplained_records,
       (SELECT count(*) FROM {{.T}} WHERE key_raw IS NULL) AS null_keys,
       (SELECT count(*) FROM (SELECT key_raw FROM d GROUP BY 1 HAVING count(DISTINCT "partition") > 1)) AS split_keys
FROM d
