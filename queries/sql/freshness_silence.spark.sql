-- name: freshness_silence (Spark)
-- summary: as freshness_silence.sql, in memory bounded by the records of a
--          small time bucket, not by the topic. Spark does not correlate a
--          subquery on an inequality, and a join on "another partition and
--          a time between" has no equal key: Spark plans it as a broadcast
--          nested loop join that collects the whole topic to the driver
--          (at 5M records a 1 GiB driver ran out of heap). So the other
--          partitions' records in a stretch are counted without that join:
--          a stretch's partition has no record strictly inside it (its ends
--          are neighbours in that partition's time order), so they are all
--          the records with silent_from < timestamp < silent_to, that is
--          C(< silent_to) - C(<= silent_from). C at each end is the count
--          of the buckets before the end's bucket (a histogram of at most
--          65,536 buckets of the topic's time span) plus a running count
--          within its bucket, over only the buckets that hold an end.
--          Integer microseconds throughout: a record and an end at the
--          same time fall in the same bucket. The stretches themselves
--          (each record and its next in the partition's time order) come
--          from the same buckets: the next record inside a bucket, or the
--          first of the partition's next non-empty bucket. No window here
--          holds more than a bucket's records of one partition, or the
--          bucket counts and the stretches; a topic whose times all fall in
--          one bucket (a span under 65,536 microseconds, or one far
--          outlier) is the exception, and costs what a window over the
--          partition costs.
-- params: $1 silence threshold in seconds; $2 how many examples.
-- returns: the longest stretches first, at most $2; stretches counts them
--          all, whatever $2.
WITH r AS (
  -- a record without a time (NULL, or -1: NoTimestamp) starts and ends
  -- no stretch, and dropping it leaves the others' neighbours
  SELECT "partition", "timestamp" AS t, unix_micros("timestamp") AS u
  FROM {{.T}} WHERE "timestamp" IS NOT NULL AND NOT ({{.NoTimestamp}})
), w AS (
  SELECT min(u) AS lo, (max(u) - min(u)) DIV 65536 + 1 AS width FROM r
), rk AS (
  SELECT (r.u - w.lo) DIV w.width AS k, r.u, r."partition", r.t FROM r CROSS JOIN w
), d AS (
  -- each record's next in its partition's time order, found without a
  -- window over a whole partition (Spark buffers a window's partition in
  -- memory: at 50M records a 1 GiB server ran out of it): inside a time
  -- bucket, the next record of the bucket; across buckets, a bucket's
  -- last time and the first time of the partition's next non-empty bucket
  SELECT "partition", t, next_t FROM (
    SELECT "partition", t, lead(t) OVER (PARTITION BY "partition", k ORDER BY u) AS next_t FROM rk
  ) inb WHERE next_t IS NOT NULL
  UNION ALL
  SELECT "partition", last_t AS t, next_t FROM (
    SELECT "partition", last_t, lead(first_t) OVER (PARTITION BY "partition" ORDER BY k) AS next_t
    FROM (SELECT "partition", k, min(t) AS first_t, max(t) AS last_t FROM rk GROUP BY "partition", k) b
  ) acr WHERE next_t IS NOT NULL
), s AS (
  SELECT "partition", t AS silent_from, next_t AS silent_to, epoch(next_t) - epoch(t) AS seconds
  FROM d WHERE epoch(next_t) - epoch(t) > $1
), hb AS (
  -- the records in the buckets before each bucket
  SELECT k, sum(n) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS before
  FROM (SELECT k, count(*) AS n FROM rk GROUP BY k) h
), e AS (
  -- each stretch's two ends; tie 1 sorts after the records at the same
  -- time (they count: <= silent_from), tie -1 before (< silent_to)
  SELECT "partition", silent_from, silent_to, seconds, unix_micros(silent_from) AS u, 1 AS tie, -1 AS sign FROM s
  UNION ALL
  SELECT "partition", silent_from, silent_to, seconds, unix_micros(silent_to) AS u, -1 AS tie, 1 AS sign FROM s
), ek AS (
  SELECT (e.u - w.lo) DIV w.width AS k, e.* FROM e CROSS JOIN w
), ev AS (
  SELECT k, u, 0 AS tie, 1 AS n, NULL AS "partition", NULL AS silent_from, NULL AS silent_to, NULL AS seconds, 0 AS sign
  FROM rk WHERE k IN (SELECT k FROM ek)
  UNION ALL
  SELECT k, u, tie, 0 AS n, "partition", silent_from, silent_to, seconds, sign FROM ek
), run AS (
  SELECT ev.*, sum(n) OVER (PARTITION BY k ORDER BY u, tie ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto
  FROM ev
), o AS (
  SELECT run."partition", run.silent_from, run.silent_to, run.seconds, sum(run.sign * (hb.before + run.upto)) AS others_records
  FROM run JOIN hb ON hb.k = run.k
  WHERE run.n = 0
  GROUP BY run."partition", run.silent_from, run.silent_to, run.seconds
)
SELECT "partition", silent_from, silent_to, round(seconds, 3) AS seconds, others_records,
       count(*) OVER () AS stretches
FROM o WHERE others_records > 0
ORDER BY seconds DESC, "partition", silent_from LIMIT $2
