-- name: duplicates (Spark)
-- summary: as duplicates.sql, in Spark's dialect: the ids with more than one
--          copy are joined back (no list/unnest), LEFT SEMI/ANTI spelled out,
--          no MATERIALIZED hint (Spark plans the CTE once per use). The
--          default id (RowID: a STRUCT of the key and value bytes) is shown
--          as DuckDB's text of its row of two BLOBs (tsnap_row_text). A
--          NULL id is no id (without_id), never a copy, as in DuckDB's.
-- params: ID the id expression over the topic view T; $1 examples.
-- returns: one row per example (at least one row: the counts repeat on each).
WITH d AS (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), g AS (
  SELECT id, count(*) AS copies FROM d GROUP BY id
), a AS (
  SELECT coalesce(sum(copies), 0) AS records,
         coalesce(sum(copies) FILTER (WHERE id IS NULL), 0) AS without_id,
         count(*) FILTER (WHERE id IS NOT NULL) AS distinct_ids,
         count(*) FILTER (WHERE id IS NOT NULL AND copies > 1) AS duplicate_ids,
         coalesce(sum(copies - 1) FILTER (WHERE id IS NOT NULL), 0) AS extra_copies
  FROM g
), c AS (
  SELECT d.id, d."partition", d."offset", d."timestamp", g.copies,
         row_number() OVER (PARTITION BY d.id ORDER BY d."timestamp", d."partition", d."offset") AS n
  FROM d JOIN g ON d.id IS NOT DISTINCT FROM g.id WHERE g.copies > 1
), e AS (
  SELECT left({{if .RowID}}tsnap_row_text(x.id.key_raw, x.id.value_raw){{else}}CAST(x.id AS STRING){{end}}, 120) AS id, x.copies,
         x."partition" AS first_partition, x."offset" AS first_offset,
         y."partition" AS second_partition, y."offset" AS second_offset,
         epoch(y."timestamp") - epoch(x."timestamp") AS seconds_between
  FROM c x JOIN c y ON x.id IS NOT DISTINCT FROM y.id AND x.n = 1 AND y.n = 2
  ORDER BY x."partition", x."offset"
  LIMIT $1
)
SELECT a.records, a.without_id, a.distinct_ids, a.duplicate_ids, a.extra_copies, e.*
FROM a LEFT JOIN e ON true
ORDER BY e.first_partition NULLS LAST, e.first_offset NULLS LAST
