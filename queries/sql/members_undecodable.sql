-- name: members_undecodable
-- summary: records of the group coordinator's log that could not be decoded
--          and may be the group's: their value did not decode under the
--          group's key, or their key did not decode at all (its group is
--          not known: NULL or empty). Each may be a generation or a
--          commit the members and reset checks do not see. at names the
--          first five (partition P offset O of __consumer_offsets) and
--          first_error the first one's decode_error.
-- params: $1 the group id.
SELECT count(*) AS records,
  string_agg('partition ' || log_partition || ' offset ' || log_offset, ', ' ORDER BY log_partition, log_offset)
    FILTER (WHERE rn <= 5) AS at,
  min(decode_error) FILTER (WHERE rn = 1) AS first_error
FROM (SELECT log_partition, log_offset, decode_error,
        row_number() OVER (ORDER BY log_partition, log_offset) AS rn
      FROM group_log WHERE decode_error IS NOT NULL AND coalesce(group_id, '') IN ('', $1))
