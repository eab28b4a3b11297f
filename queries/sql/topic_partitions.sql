-- name: topic_partitions
-- summary: the partitions of a topic today: those with current (not
--          superseded) files, and 0..n-1 for today's partition count (a
--          partition that never held a record is one of them), as skew
--          lists them. An old topic's partition that the topic made again
--          lacks is none of them.
-- params: $1 the topic name; $2 today's partition count
--         (Engine.partitionCount).
SELECT "partition" FROM (
  SELECT DISTINCT "partition" FROM files WHERE topic = $1 AND NOT superseded
  UNION SELECT unnest(range(0, $2))::INTEGER
) ORDER BY 1
