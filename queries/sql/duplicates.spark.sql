-- name: duplicates (Spark)
-- summary: as duplicates.sql, in Spark's dialect, planned so that only one
--          aggregate shuffles every record (issue 32: the plan grew
--          superlinearly). g groups the ids once: each id's copies and its
--          first copy, the least (timestamp, partition, offset) as a struct
--          (Spark orders a struct field by field, NULLs first, as the
--          window's ORDER BY does). a sums g. k is the examples' ids: the
--          $1 duplicated ids whose first copy comes first by partition and
--          offset, a top-k of g (TakeOrderedAndProject, no full sort). Only
--          the records of those ids (d joined with the tiny k, a broadcast)
--          are ranked, the first two copies of each paired as before: no
--          join of every record with g and no window over every copy. Spark
--          plans a CTE once per use: d is read twice (the second read keeps
--          only k's ids, without a shuffle); g's two uses share its shuffle
--          (exchange reuse). The default id (RowID: a STRUCT of the key and
--          value bytes) is shown as DuckDB's text of its row of two BLOBs
--          (tsnap_row_text). A NULL id is no id (without_id), never a copy,
--          as in DuckDB's.
-- params: ID the id expression over the topic view T; $1 examples.
-- returns: one row per example (at least one row: the counts repeat on each).
WITH d AS (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), g AS (
  SELECT id, count(*) AS copies,
         min(named_struct('ts', "timestamp", 'p', "partition", 'o', "offset")) AS first
  FROM d GROUP BY id
), a AS (
  SELECT coalesce(sum(copies), 0) AS records,
         coalesce(sum(copies) FILTER (WHERE id IS NULL), 0) AS without_id,
         count(*) FILTER (WHERE id IS NOT NULL) AS distinct_ids,
         count(*) FILTER (WHERE id IS NOT NULL AND copies > 1) AS duplicate_ids,
         coalesce(sum(copies - 1) FILTER (WHERE id IS NOT NULL), 0) AS extra_copies
  FROM g
), k AS (
  SELECT id, copies FROM g
  WHERE id IS NOT NULL AND copies > 1
  ORDER BY first.p, first.o
  LIMIT $1
), c AS (
  SELECT /*+ BROADCAST(k) */ d.id, d."partition", d."offset", d."timestamp", k.copies,
         row_number() OVER (PARTITION BY d.id ORDER BY d."timestamp", d."partition", d."offset") AS n
  FROM d JOIN k ON d.id = k.id
), e AS (
  SELECT left({{if .RowID}}tsnap_row_text(x.id.key_raw, x.id.value_raw){{else}}CAST(x.id AS STRING){{end}}, 120) AS id, x.copies,
         x."partition" AS first_partition, x."offset" AS first_offset,
         y."partition" AS second_partition, y."offset" AS second_offset,
         epoch(y."timestamp") - epoch(x."timestamp") AS seconds_between
  FROM c x JOIN c y ON x.id = y.id AND x.n = 1 AND y.n = 2
  ORDER BY x."partition", x."offset"
  LIMIT $1
)
SELECT a.records, a.without_id, a.distinct_ids, a.duplicate_ids, a.extra_copies, e.*
FROM a LEFT JOIN e ON true
ORDER BY e.first_partition NULLS LAST, e.first_offset NULLS LAST
