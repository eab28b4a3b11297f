-- name: topic_partitions
-- summary: the partitions of a topic the catalog knows: those with files,
--          and 0..n-1 for the largest partition count a cut recorded (a
--          partition that never held a record is one of them), as skew
--          lists them.
-- params: $1 the topic name.
SELECT "partition" FROM (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1
  UNION SELECT unnest(range(0, (SELECT max(partition_count) FROM snapshots WHERE topic = $1)))::INTEGER
) ORDER BY 1
