-- name: duplicates
-- summary: ids that occur more than once among committed data records
--          (aborted records are not copies): the counts, and as examples the
--          first two copies of duplicated ids with the seconds between them.
--          The id is computed once (a materialized CTE) for both.
-- params: {{.ID}} the id expression over the topic view {{.T}}; $1 examples.
-- returns: one row per example (at least one row: the counts repeat on each).
WITH d AS MATERIALIZED (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), g AS MATERIALIZED (
  SELECT id, count(*) AS copies FROM d GROUP BY id
), s AS (
  SELECT (SELECT count(*) FROM d) AS records,
         count(*) AS distinct_ids,
         count(*) FILTER (WHERE copies > 1) AS duplicate_ids,
         coalesce(sum(copies - 1), 0) AS extra_copies
  FROM g
), c AS (
  SELECT d.id, d."partition", d."offset", d."timestamp", g.copies,
         row_number() OVER (PARTITION BY d.id ORDER BY d."timestamp", d."partition", d."offset") AS n
  FROM d JOIN g ON d.id IS NOT DISTINCT FROM g.id
  WHERE g.copies > 1
), e AS (
  SELECT left(a.id::VARCHAR, 120) AS id, a.copies,
         a."partition" AS first_partition, a."offset" AS first_offset,
         b."partition" AS second_partition, b."offset" AS second_offset,
         epoch(b."timestamp") - epoch(a."timestamp") AS seconds_between
  FROM c a JOIN c b ON a.id IS NOT DISTINCT FROM b.id AND a.n = 1 AND b.n = 2
  ORDER BY a."partition", a."offset"
  LIMIT $1
)
SELECT s.*, e.* FROM s LEFT JOIN e ON true
ORDER BY e.first_partition, e.first_offset
