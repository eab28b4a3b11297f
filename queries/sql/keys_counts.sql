-- name: keys_counts
-- summary: the partition counts a cut recorded for the topic below today's:
--          the candidates for the count its older records were placed by.
-- params: $1 the topic name; $2 today's partition count.
SELECT DISTINCT partition_count FROM snapshots WHERE topic = $1 AND partition_count < $2 ORDER BY 1
