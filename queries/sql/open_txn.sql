-- name: open_txn
-- summary: per partition, the records of transactions no marker in the
--          folder decides (open at the last dump): Kafka may yet commit or
--          abort them. Both engines' dialect.
-- params: T the topic's data view.
SELECT "partition", count(*) AS records, min("offset") AS first_offset, max("offset") AS last_offset
FROM {{.T}} WHERE txn_state = 'open' GROUP BY "partition" ORDER BY "partition"
