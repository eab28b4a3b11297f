-- name: duplicates (Spark)
-- summary: as duplicates.sql, in Spark's dialect, planned so that one
--          aggregate shuffles every record (issue 32: the join of every
--          duplicated record with g and the window over every copy, each
--          planned twice, grew superlinearly). g groups the ids once: each
--          id's copies and its first copy, the least (timestamp, partition,
--          offset) as a struct (Spark orders a struct field by field, NULLs
--          first, as the window's ORDER BY does; a struct minimum is a sort
--          aggregate). a sums g and k0 keeps g's $1 + 1 duplicated ids
--          whose first copy comes first by partition and offset (a top-k:
--          TakeOrderedAndProject, no full sort); k drops the NULL id there
--          (a NULL id is no id, without_id, never a copy, as in DuckDB's)
--          above that limit, so that no filter on the id is pushed below
--          g: both uses of g (Spark plans a CTE once per use) are then the
--          same plan and share one shuffle (exchange reuse; a's FILTER
--          names first for that reason: first is never NULL). Only the
--          records of k's ids (d read again, joined with the tiny k: a
--          broadcast, no shuffle of d) are ranked, their first two copies
--          taken in one pass (c once, no self-join; joined on <=>, k's id
--          never being NULL, so that Spark infers no filter on d's id,
--          which computed the id, the value's JSON parsed, twice). g's
--          records are first spread by id over Parts shuffle partitions
--          (chosen by the topic's record count, as order's): the
--          aggregate then sorts each partition once, in memory, where over
--          a server's few default partitions it sorted them before the
--          shuffle and again after, spilling at 50M records. The default
--          id (RowID: a STRUCT of the key and value bytes) is shown as
--          DuckDB's text of its row of two BLOBs (tsnap_row_text); an id
--          DuckDB types BLOB as its text of it (tsnap_blob_text), a
--          TIMESTAMPTZ with its +00 (IDType: DuckDB's type of the id); a
--          DOUBLE or FLOAT id is returned as it is, written as DuckDB
--          writes it by check_duplicates.go (duckDBFloatText).
-- params: ID the id expression over the topic view T; Parts the shuffle
--         partitions of g; $1 examples.
-- returns: one row per example (at least one row: the counts repeat on each).
WITH d AS (
  SELECT ({{.ID}}) AS id, "partition", "offset", "timestamp" FROM {{.T}}
), g AS (
  SELECT id, count(*) AS copies,
         min(named_struct('ts', "timestamp", 'p', "partition", 'o', "offset")) AS first
  FROM (SELECT /*+ REPARTITION({{.Parts}}, id) */ * FROM d) AS r GROUP BY id
), a AS (
  SELECT coalesce(sum(copies), 0) AS records,
         coalesce(sum(copies) FILTER (WHERE id IS NULL), 0) AS without_id,
         count(*) FILTER (WHERE id IS NOT NULL) AS distinct_ids,
         count(*) FILTER (WHERE id IS NOT NULL AND copies > 1 AND first IS NOT NULL) AS duplicate_ids,
         coalesce(sum(copies - 1) FILTER (WHERE id IS NOT NULL), 0) AS extra_copies
  FROM g
), k0 AS (
  SELECT id, copies, first FROM g WHERE copies > 1 ORDER BY first.p, first.o LIMIT $1 + 1
), k AS (
  SELECT id, copies FROM k0 WHERE id IS NOT NULL ORDER BY first.p, first.o LIMIT $1
), c AS (
  SELECT d.id, d."partition", d."offset", d."timestamp", k.copies,
         row_number() OVER (PARTITION BY d.id ORDER BY d."timestamp", d."partition", d."offset") AS n
  FROM d JOIN k ON d.id <=> k.id
), e AS (
  SELECT {{if or (eq .IDType "DOUBLE") (eq .IDType "FLOAT")}}id{{else}}left({{if .RowID}}tsnap_row_text(id.key_raw, id.value_raw){{else if eq .IDType "BLOB"}}tsnap_blob_text(id){{else if eq .IDType "TIMESTAMPTZ"}}concat(CAST(id AS STRING), '+00'){{else}}CAST(id AS STRING){{end}}, 120){{end}} AS id, copies,
         max(CASE WHEN n = 1 THEN "partition" END) AS first_partition,
         max(CASE WHEN n = 1 THEN "offset" END) AS first_offset,
         max(CASE WHEN n = 2 THEN "partition" END) AS second_partition,
         max(CASE WHEN n = 2 THEN "offset" END) AS second_offset,
         max(CASE WHEN n = 2 THEN epoch("timestamp") END) - max(CASE WHEN n = 1 THEN epoch("timestamp") END) AS seconds_between
  FROM c WHERE n <= 2
  GROUP BY c.id, c.copies
  ORDER BY first_partition, first_offset
  LIMIT $1
)
SELECT a.records, a.without_id, a.distinct_ids, a.duplicate_ids, a.extra_copies, e.*
FROM a LEFT JOIN e ON true
ORDER BY e.first_partition NULLS LAST, e.first_offset NULLS LAST
