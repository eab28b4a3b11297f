-- name: lag_at (a table macro, created when the folder's views are built)
-- summary: a consumer group's lag at any moment the snapshots cover, after
--          the fact: for each partition the group committed to (in the
--          commit log or at a cut), the committed offset, the end offset,
--          the lag in records (end - committed) and in seconds (at_time less
--          the timestamp of the first unread record, the one at the
--          committed offset; 0 when nothing is unread; NULL, with a reason,
--          when that record has no timestamp: Records give -1 as NULL).
--          The committed offset comes from group_commit_log where the folder
--          holds a dump of __consumer_offsets that covers at_time: the
--          group's last commit at or before it (compaction only removes a
--          commit that a later one of the same partition replaced, so a
--          commit kept is the one in force); no commit there while the log
--          is complete (group_log_coverage) means the group had none yet.
--          Otherwise it comes from the last cut at or before at_time that
--          recorded the group's offsets: committed_from names the cut and
--          committed_at its time (the offset as of the cut, not at_time).
--          The end offset is the high watermark of the last cut at or
--          before at_time, moved on by the stored records whose timestamp
--          is at or before at_time, never past the next cut's high
--          watermark (with CreateTime, a producer's clock moves it).
--          Outside what the folder covers (after a topic's last cut, before
--          its first cut and first stored record, before the commit log is
--          complete and before any cut saw the group) the figures are NULL
--          and reason says why: never a made-up 0. So are they where a
--          record of the log of a commit's key type, at or before at_time
--          and after the commit in force, does not decode and may be the
--          group's commit of the partition (its key names them, or does not
--          decode either): the commit in force may be that one. A committed offset
--          past the end offset has lag 0 and a reason (check lag warns of
--          it: its next fetch is out of range). A restore's progress group
--          on its target (topicsnap-restore-T on T: source offsets) has no
--          lag, and the reason says what it is (check lag leaves it out).
-- params: group_name (a string constant), at_time (a TIMESTAMPTZ);
--         Records: every stored row of every topic (topic, "partition",
--         "offset", "timestamp", NULL for a record's -1), built from the
--         catalog's topic names;
--         Log: the folder holds __consumer_offsets.
-- use: SELECT * FROM lag_at('billing', TIMESTAMPTZ '2026-07-16 11:00:00Z')
CREATE OR REPLACE MACRO lag_at(group_name, at_time) AS TABLE
WITH topicsnap_at AS (
  SELECT at_time::TIMESTAMPTZ AS ts
), recs AS (
  {{.Records}}
), parts AS (
  SELECT DISTINCT topic, "partition" FROM group_offsets WHERE group_id = group_name
{{- if .Log}}
  UNION SELECT DISTINCT topic, "partition" FROM group_commit_log WHERE group_id = group_name AND topic IS NOT NULL
{{- end}}
), span AS (
  SELECT topic, "partition", min(as_of) AS first_cut, max(as_of) AS last_cut FROM partitions GROUP BY ALL
), cut_before AS (
  SELECT c.topic, c."partition", arg_max(c.high_watermark, c.as_of) AS hw
  FROM partitions c, topicsnap_at a WHERE c.as_of <= a.ts GROUP BY ALL
), cut_after AS (
  SELECT c.topic, c."partition", arg_min(c.high_watermark, c.as_of) AS hw
  FROM partitions c, topicsnap_at a WHERE c.as_of >= a.ts GROUP BY ALL
), stored AS (
  SELECT r.topic, r."partition", min(r."offset") AS first_stored,
         max(CASE WHEN r."timestamp" <= a.ts THEN r."offset" END) + 1 AS records_end
  FROM recs r JOIN parts p USING (topic, "partition"), topicsnap_at a GROUP BY ALL
), cut_offsets AS (
  SELECT o.topic, o."partition", arg_max_null(o.committed_offset, o.as_of) AS committed_offset, max(o.as_of) AS as_of,
         arg_max(o.snapshot_id, o.as_of) AS snapshot_id
  FROM group_offsets o, topicsnap_at a WHERE o.group_id = group_name AND o.as_of <= a.ts GROUP BY ALL
{{- if .Log}}
), log_commits AS (
  SELECT l.topic, l."partition", arg_max(l.committed_offset, l.log_offset) AS committed_offset,
         arg_max(l.deleted, l.log_offset) AS deleted, arg_max(coalesce(l.commit_time, l.log_time), l.log_offset) AS commit_time,
         arg_max(l.log_partition, l.log_offset) AS commit_log_partition, max(l.log_offset) AS commit_log_offset
  FROM group_commit_log l, topicsnap_at a WHERE l.group_id = group_name AND coalesce(l.commit_time, l.log_time) <= a.ts GROUP BY ALL
), undecoded_commits AS (
  -- The records of a commit's key type (0, 1) that group_commit_log
  -- leaves out because they do not decode, with their key's names (the
  -- key decoded alone) or the key's own error.
  SELECT log_partition, log_offset, log_time, k."group" AS group_id, k.topic, k."partition", k.error AS key_error
  FROM (SELECT "partition" AS log_partition, "offset" AS log_offset, "timestamp" AS log_time,
          from_json(kafka_offsets_record(key_raw, NULL), '{"group":"VARCHAR","topic":"VARCHAR","partition":"INTEGER","error":"VARCHAR"}') AS k
        FROM "__consumer_offsets" WHERE key_raw < '\x00\x02'::BLOB AND kafka_offsets_commit(key_raw, value_raw) IS NULL)
), undecoded AS (
  SELECT p.topic, p."partition", count(*) AS undecoded_records,
         arg_min(u.log_partition, u.log_offset) AS undecoded_log_partition, min(u.log_offset) AS undecoded_log_offset
  FROM parts p LEFT JOIN log_commits lc USING (topic, "partition")
  JOIN undecoded_commits u ON u.key_error IS NOT NULL OR (u.group_id = group_name AND u.topic = p.topic AND u."partition" = p."partition"),
  topicsnap_at a
  WHERE u.log_time <= a.ts AND (lc.commit_log_offset IS NULL OR u.log_partition <> lc.commit_log_partition OR u.log_offset > lc.commit_log_offset)
  GROUP BY ALL
), coverage AS (
  SELECT CASE WHEN bool_and(complete_from_start) THEN '-infinity'::TIMESTAMPTZ ELSE max(complete_from) END AS complete_from,
         max(known_until) AS known_until
  FROM group_log_coverage WHERE group_id = group_name
{{- end}}
), j AS (
  SELECT p.topic, p."partition", a.ts, s.first_cut, s.last_cut, cb.hw AS hw_before, ca.hw AS hw_after,
         st.first_stored, st.records_end, co.committed_offset AS cut_committed, co.as_of AS cut_as_of, co.snapshot_id AS cut_snapshot,
{{- if .Log}}
         lc.committed_offset AS log_committed, lc.deleted AS log_deleted, lc.commit_time AS log_commit_time,
         cv.complete_from, cv.known_until, ud.undecoded_records, ud.undecoded_log_partition, ud.undecoded_log_offset,
         cv.known_until IS NOT NULL AND a.ts <= cv.known_until AND (lc.commit_time IS NOT NULL OR a.ts >= cv.complete_from) AS by_log
{{- else}}
         NULL::BIGINT AS log_committed, NULL::BOOLEAN AS log_deleted, NULL::TIMESTAMPTZ AS log_commit_time,
         NULL::TIMESTAMPTZ AS complete_from, NULL::TIMESTAMPTZ AS known_until, NULL::BIGINT AS undecoded_records,
         NULL::INTEGER AS undecoded_log_partition, NULL::BIGINT AS undecoded_log_offset, false AS by_log
{{- end}}
  FROM parts p CROSS JOIN topicsnap_at a
  LEFT JOIN span s USING (topic, "partition")
  LEFT JOIN cut_before cb USING (topic, "partition")
  LEFT JOIN cut_after ca USING (topic, "partition")
  LEFT JOIN stored st USING (topic, "partition")
  LEFT JOIN cut_offsets co USING (topic, "partition")
{{- if .Log}}
  LEFT JOIN log_commits lc USING (topic, "partition")
  LEFT JOIN undecoded ud USING (topic, "partition")
  CROSS JOIN coverage cv
{{- end}}
), k AS (
  SELECT *,
    CASE
      WHEN first_cut IS NULL THEN 'no cut of ' || topic || ' in the folder: its end offset is unknown'
      WHEN ts > last_cut THEN 'after the last cut of ' || topic || ' (' || strftime(last_cut AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') || '): the folder does not know'
      WHEN hw_before IS NULL AND records_end IS NULL AND coalesce(first_stored, 1) > 0
        THEN 'before the first cut of ' || topic || ' and its first stored record: its end offset is unknown'
    END AS end_unknown,
    CASE
      WHEN by_log AND undecoded_records > 0 THEN NULL
      WHEN by_log AND log_deleted THEN NULL
      WHEN by_log THEN log_committed
      ELSE cut_committed
    END AS committed,
    CASE
      WHEN by_log AND undecoded_records > 0
        THEN undecoded_records || CASE WHEN undecoded_records = 1 THEN ' record' ELSE ' records' END
             || ' of the commit log at or before this time (the first at log partition ' || undecoded_log_partition || ' offset ' || undecoded_log_offset
             || ') may be the group''s commit of this partition after the one the log decodes, and could not be decoded (decode_error in group_log says why): the committed offset is not known'
      WHEN by_log AND log_deleted THEN 'the commit was deleted (a tombstone in the commit log: the group or topic removed, or the offset expired)'
      WHEN by_log AND log_commit_time IS NULL THEN 'no commit of this partition by the group yet (the commit log is complete for it at this time)'
      WHEN by_log THEN NULL
      WHEN cut_committed IS NOT NULL THEN NULL
      WHEN cut_as_of IS NOT NULL THEN 'the group had no committed offset on the partition at cut ' || cut_snapshot || ' (Kafka answered -1)'
      WHEN complete_from IS NOT NULL AND ts < complete_from
        THEN 'before the commit log is complete for the group (from ' || strftime(complete_from AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')
             || ': compaction removed older commits) and before any cut recorded its offsets'
      WHEN known_until IS NOT NULL AND ts > known_until
        THEN 'after the last cut of __consumer_offsets and no cut of the topic recorded the group''s offsets before it'
      ELSE 'before any cut recorded the group''s offsets' || CASE WHEN known_until IS NULL THEN ' (the folder holds no dump of __consumer_offsets)' ELSE '' END
    END AS committed_unknown
  FROM j
), e AS (
  SELECT *, group_name = 'topicsnap-restore-' || topic AS progress,
    CASE WHEN end_unknown IS NULL
         THEN least(greatest(coalesce(hw_before, 0), coalesce(records_end, 0)), coalesce(hw_after, greatest(coalesce(hw_before, 0), coalesce(records_end, 0))))
    END AS end_offset
  FROM k
)
SELECT e.topic, e."partition", e.ts AS at_time,
       e.committed AS committed_offset,
       CASE WHEN e.committed IS NULL THEN NULL WHEN e.by_log THEN e.log_commit_time ELSE e.cut_as_of END AS committed_at,
       CASE WHEN e.committed IS NULL THEN NULL WHEN e.by_log THEN 'commit log' ELSE 'cut ' || e.cut_snapshot END AS committed_from,
       e.end_offset,
       CASE WHEN e.progress THEN NULL
            WHEN e.committed IS NOT NULL AND e.end_offset IS NOT NULL THEN greatest(e.end_offset - e.committed, 0) END AS lag_records,
       CASE WHEN e.progress OR e.committed IS NULL OR e.end_offset IS NULL THEN NULL
            WHEN e.committed >= e.end_offset THEN 0
            ELSE round(epoch(e.ts) - epoch((SELECT arg_min_null(r."timestamp", r."offset") FROM recs r
                   WHERE r.topic = e.topic AND r."partition" = e."partition" AND r."offset" >= e.committed AND r."offset" < e.end_offset)), 3)
       END AS lag_seconds,
       coalesce(CASE WHEN e.progress THEN 'group ' || group_name || ' is the progress of a topicsnap restore into ' || e.topic
           || ' (its committed offsets are the snapshot''s source offsets, not positions in ' || e.topic || '; no consumer''s): no lag' END,
         e.end_unknown, e.committed_unknown,
         CASE WHEN e.committed > e.end_offset
              THEN 'committed offset ' || e.committed || ' is past the end offset ' || e.end_offset || ' at this time: unless the group committed after the end the folder knows (the next cut says), '
                   || 'its next fetch is out of range and auto.offset.reset decides where it goes on (earliest: the log start, re-reading the partition; latest: the end, skipping what was written until then)'
              WHEN e.committed < e.end_offset AND NOT EXISTS (SELECT 1 FROM recs r WHERE r.topic = e.topic AND r."partition" = e."partition"
                AND r."offset" >= e.committed AND r."offset" < e.end_offset)
              THEN 'lag_seconds: no record between the committed offset and the end is stored'
              WHEN e.committed < e.end_offset AND (SELECT arg_min_null(r."timestamp", r."offset") FROM recs r WHERE r.topic = e.topic AND r."partition" = e."partition"
                AND r."offset" >= e.committed AND r."offset" < e.end_offset) IS NULL
              THEN 'lag_seconds: the first unread record has no timestamp (-1), so no age' END) AS reason
FROM e
ORDER BY e.topic, e."partition"
