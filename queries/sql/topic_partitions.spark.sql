-- name: topic_partitions (Spark)
-- summary: as topic_partitions.sql; the partitions 0..count-1 come from sequence
--          (Spark's range is a table).
-- params: $1 the topic name.
SELECT "partition" FROM (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1
  UNION SELECT CAST(p AS INT) AS "partition" FROM (SELECT explode(filter(sequence(0, n), i -> i < n)) AS p
                                    FROM (SELECT max(partition_count) AS n FROM snapshots WHERE topic = $1))
) ORDER BY 1
