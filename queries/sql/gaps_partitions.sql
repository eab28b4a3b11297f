-- name: gaps_partitions
-- summary: per partition, the first and last stored offset, data records
--          (the topic view's count), control markers and aborted records.
-- params: none; the view is All.
SELECT "partition",
       min("offset") AS first_offset,
       max("offset") AS last_offset,
       count(*) FILTER (WHERE NOT is_control AND NOT aborted) AS records,
       count(*) FILTER (WHERE is_control) AS control_records,
       count(*) FILTER (WHERE aborted AND NOT is_control) AS aborted_records
FROM {{.All}}
GROUP BY 1
ORDER BY 1
