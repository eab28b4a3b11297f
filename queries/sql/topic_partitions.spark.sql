-- name: topic_partitions (Spark)
-- summary: as topic_partitions.sql; the partitions 0..count-1 come from sequence
--          (Spark's range is a table).
-- params: $1 the topic name; $2 today's partition count
--         (Engine.partitionCount).
SELECT "partition" FROM (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1 AND NOT superseded
  UNION SELECT CAST(p AS INT) AS "partition" FROM (SELECT explode(filter(sequence(0, n), i -> i < n)) AS p
                                    FROM (SELECT CAST($2 AS INT) AS n))
) ORDER BY 1
