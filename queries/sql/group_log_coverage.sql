-- name: group_log_coverage (a view, built with the log views: grouplog.go)
-- summary: for each consumer group the dumped __consumer_offsets holds, from
--          when its history there is complete. The topic is compacted: the
--          broker's cleaner removes a key's older records (a partition's
--          older commits, a group's older generations), which leaves holes
--          in the offsets, and a log whose first stored offset is past 0
--          lost its beginning. Every record after the last hole of the
--          group's log partition is there, so its history is complete from
--          the first record after that hole (complete_from; NULL with
--          complete_from_start true when the partition has no hole at all:
--          complete since the log began); before it, only what compaction
--          kept (the latest record of each key), never the whole history.
--          The folder keeps what the cleaner removes later: dump --follow
--          --topic __consumer_offsets keeps the history complete from now on.
--          known_until is the last cut of the log's dump: what came after it
--          is not in the folder.
-- params: none (reads "__consumer_offsets$all", group_commit_log,
--         group_generations and snapshots).
CREATE OR REPLACE VIEW group_log_coverage AS
WITH recs AS (
  SELECT "partition" AS log_partition, "offset", "timestamp",
         lag("offset") OVER (PARTITION BY "partition" ORDER BY "offset") AS prev_offset
  FROM "__consumer_offsets$all"
), parts AS (
  SELECT log_partition, min("offset") AS first_offset, max("offset") AS last_offset, count(*) AS records,
         max(CASE WHEN (prev_offset IS NULL AND "offset" > 0) OR "offset" > prev_offset + 1 THEN "offset" END) AS after_last_hole,
         sum(CASE WHEN prev_offset IS NULL THEN "offset" ELSE "offset" - prev_offset - 1 END) AS missing_offsets
  FROM recs GROUP BY log_partition
), groups AS (
  SELECT DISTINCT group_id, log_partition FROM group_commit_log
  UNION SELECT DISTINCT group_id, log_partition FROM group_generations
), dumped AS (
  SELECT max(as_of) AS known_until FROM snapshots WHERE topic = '__consumer_offsets'
)
SELECT g.group_id, g.log_partition, p.first_offset, p.last_offset, p.missing_offsets,
       coalesce(p.after_last_hole, p.first_offset) AS complete_from_offset,
       h."timestamp" AS complete_from,
       p.after_last_hole IS NULL AS complete_from_start,
       d.known_until,
       CASE WHEN p.after_last_hole IS NULL
              THEN 'complete: log partition ' || g.log_partition || ' holds every record since it began'
            ELSE 'complete from offset ' || p.after_last_hole || ' of log partition ' || g.log_partition
                 || ': ' || p.missing_offsets || ' records before it were removed by compaction or retention before the dump'
       END || '; dump --follow --topic __consumer_offsets keeps the history from now on' AS note
FROM groups g JOIN parts p USING (log_partition) CROSS JOIN dumped d
LEFT JOIN recs h ON h.log_partition = p.log_partition AND h."offset" = p.after_last_hole
