-- name: duplicates_examples
-- summary: examples of duplicated ids: where the first and second copy sit
--          and how many seconds apart they arrived.
-- params: {{.ID}} the id expression; $1 the number of examples.
WITH d AS (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp",
         row_number() OVER (PARTITION BY ({{.ID}}) ORDER BY "timestamp", "partition", "offset") AS n,
         count(*) OVER (PARTITION BY ({{.ID}})) AS copies
  FROM {{.T}}
)
SELECT left(a.id::VARCHAR, 120) AS id, a.copies,
       a."partition" AS first_partition, a."offset" AS first_offset,
       b."partition" AS second_partition, b."offset" AS second_offset,
       epoch(b."timestamp") - epoch(a."timestamp") AS seconds_between
FROM d a JOIN d b ON a.id IS NOT DISTINCT FROM b.id AND a.n = 1 AND b.n = 2
ORDER BY a."partition", a."offset"
LIMIT $1
