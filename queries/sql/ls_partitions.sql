-- name: ls_partitions
-- summary: per partition, what `topicsnap ls` shows of a topic whose files
--          hold transaction markers or records of open transactions: data
--          records (committed, no markers, no aborted records), markers,
--          aborted records, and the first and last data record's time
--          (a record's -1 is Kafka's "no timestamp", not a time: left out),
--          and of the data records those of a transaction no marker in the
--          folder decides yet (open at the last dump).
-- params: none; the view is All.
SELECT "partition",
       count(*) FILTER (WHERE NOT is_control AND NOT aborted) AS records,
       count(*) FILTER (WHERE is_control) AS markers,
       count(*) FILTER (WHERE aborted AND NOT is_control) AS aborted,
       count(*) FILTER (WHERE txn_state = 'open' AND NOT is_control) AS open,
       epoch_ms(min("timestamp") FILTER (WHERE NOT is_control AND NOT aborted AND epoch_ms("timestamp") <> -1)) AS first_ms,
       epoch_ms(max("timestamp") FILTER (WHERE NOT is_control AND NOT aborted AND epoch_ms("timestamp") <> -1)) AS last_ms
FROM {{.All}}
GROUP BY 1
ORDER BY 1
