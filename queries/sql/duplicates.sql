-- name: duplicates
-- summary: ids that occur more than once among committed data records
--          (aborted records are not copies), with the first two copies.
-- params: {{.ID}} the id expression over the topic view {{.T}}.
WITH d AS (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), g AS (
  SELECT id, count(*) AS copies,
         arg_min("partition", ("timestamp", "partition", "offset")) AS first_partition,
         min_by("offset", ("timestamp", "partition", "offset")) AS first_offset,
         min("timestamp") AS first_time
  FROM d GROUP BY id
)
SELECT (SELECT count(*) FROM d) AS records,
       count(*) AS distinct_ids,
       count(*) FILTER (WHERE copies > 1) AS duplicate_ids,
       coalesce(sum(copies - 1), 0) AS extra_copies
FROM g
