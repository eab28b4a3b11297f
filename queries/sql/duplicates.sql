-- name: duplicates
-- summary: ids that occur more than once among committed data records
--          (aborted records are not copies): the counts, and as examples the
--          first two copies of duplicated ids with the seconds between them.
--          The id is computed once per record (a materialized CTE). The
--          counts come from one aggregate over the ids, which also keeps the
--          list of duplicated ids (small unless the topic is mostly copies);
--          only the records of those ids are ranked for the examples, so no
--          per-id table of every distinct id is ever materialized or joined.
--          A record whose id is NULL (the field is missing, the value
--          did not parse, a tombstone) has no id: it is counted apart
--          (without_id) and is never a copy of another.
-- params: ID the id expression over the topic view T; $1 examples.
-- returns: one row per example (at least one row: the counts repeat on each).
WITH d AS MATERIALIZED (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), a AS MATERIALIZED (
  SELECT coalesce(sum(copies), 0) AS records,
         coalesce(sum(copies) FILTER (WHERE id IS NULL), 0) AS without_id,
         count(*) FILTER (WHERE id IS NOT NULL) AS distinct_ids,
         count(*) FILTER (WHERE id IS NOT NULL AND copies > 1) AS duplicate_ids,
         coalesce(sum(copies - 1) FILTER (WHERE id IS NOT NULL), 0) AS extra_copies,
         list(id) FILTER (WHERE id IS NOT NULL AND copies > 1) AS dup_ids
  FROM (SELECT id, count(*) AS copies FROM d GROUP BY id)
), dup AS (
  SELECT unnest(dup_ids) AS id FROM a
), c AS (
  SELECT d.id, d."partition", d."offset", d."timestamp",
         count(*) OVER (PARTITION BY d.id) AS copies,
         row_number() OVER (PARTITION BY d.id ORDER BY d."timestamp", d."partition", d."offset") AS n
  FROM d SEMI JOIN dup ON d.id IS NOT DISTINCT FROM dup.id
), e AS (
  SELECT left(x.id::VARCHAR, 120) AS id, x.copies,
         x."partition" AS first_partition, x."offset" AS first_offset,
         y."partition" AS second_partition, y."offset" AS second_offset,
         epoch(y."timestamp") - epoch(x."timestamp") AS seconds_between
  FROM c x JOIN c y ON x.id IS NOT DISTINCT FROM y.id AND x.n = 1 AND y.n = 2
  ORDER BY x."partition", x."offset"
  LIMIT $1
)
SELECT a.records, a.without_id, a.distinct_ids, a.duplicate_ids, a.extra_copies, e.*
FROM a LEFT JOIN e ON true
ORDER BY e.first_partition, e.first_offset
