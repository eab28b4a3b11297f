-- name: freshness_silence
-- summary: stretches where a partition had no record for longer than $1
--          seconds while other partitions carried on.
--          A record with no timestamp (-1) starts and ends no stretch.
-- params: $1 silence threshold in seconds; $2 how many examples;
--         NoTimestamp the dialect's test of a timestamp of -1.
-- returns: the longest stretches first, at most $2; stretches counts them
--          all, whatever $2.
WITH d AS (
  SELECT "partition", "timestamp" AS t,
         lead("timestamp") OVER (PARTITION BY "partition" ORDER BY "timestamp", "offset") AS next_t
  FROM {{.T}} WHERE NOT ({{.NoTimestamp}})
), s AS (
  SELECT "partition", t AS silent_from, next_t AS silent_to, epoch(next_t) - epoch(t) AS seconds
  FROM d WHERE epoch(next_t) - epoch(t) > $1
)
SELECT s."partition", s.silent_from, s.silent_to, round(s.seconds, 3) AS seconds,
       (SELECT count(*) FROM {{.T}} o WHERE o."partition" <> s."partition" AND NOT ({{.NoTimestamp}}) AND o."timestamp" > s.silent_from AND o."timestamp" < s.silent_to) AS others_records,
       count(*) OVER () AS stretches
FROM s
WHERE (SELECT count(*) FROM {{.T}} o WHERE o."partition" <> s."partition" AND NOT ({{.NoTimestamp}}) AND o."timestamp" > s.silent_from AND o."timestamp" < s.silent_to) > 0
ORDER BY seconds DESC, s."partition", s.silent_from LIMIT $2
