-- name: freshness_silence (Spark)
-- summary: as freshness_silence.sql; Spark does not correlate a subquery on
--          an inequality, so the other partitions' records in each silent
--          stretch are counted with a join.
-- params: $1 silence threshold in seconds; $2 how many examples.
WITH d AS (
  SELECT "partition", "timestamp" AS t,
         lead("timestamp") OVER (PARTITION BY "partition" ORDER BY "timestamp", "offset") AS next_t
  FROM {{.T}}
), s AS (
  SELECT "partition", t AS silent_from, next_t AS silent_to, epoch(next_t) - epoch(t) AS seconds
  FROM d WHERE epoch(next_t) - epoch(t) > $1
), o AS (
  SELECT s."partition", s.silent_from, s.silent_to, count(x."partition") AS others_records
  FROM s LEFT JOIN {{.T}} x ON x."partition" <> s."partition" AND x."timestamp" > s.silent_from AND x."timestamp" < s.silent_to
  GROUP BY s."partition", s.silent_from, s.silent_to
)
SELECT s."partition", s.silent_from, s.silent_to, round(s.seconds, 3) AS seconds, o.others_records,
       count(*) OVER () AS stretches
FROM s JOIN o ON o."partition" = s."partition" AND o.silent_from = s.silent_from AND o.silent_to = s.silent_to
WHERE o.others_records > 0
ORDER BY seconds DESC, s."partition", s.silent_from LIMIT $2
