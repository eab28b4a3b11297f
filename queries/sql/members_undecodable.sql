-- name: members_undecodable
-- summary: records of the group coordinator's log that could not be decoded
--          and may be the group's: their value did not decode under the
--          group's key, or their key did not decode at all (its group is
--          not known: NULL or empty). Each may be a generation or a
--          commit the members and reset checks do not see.
-- params: $1 the group id.
SELECT count(*) AS records FROM group_log WHERE decode_error IS NOT NULL AND coalesce(group_id, '') IN ('', $1)
