-- name: lag_unread
-- summary: the topic's snapshots whose principal could not read every
--          consumer group (no DESCRIBE on the cluster or a group): there a
--          missing group is unknown, not absent.
-- params: $1 the topic.
-- returns: one row per such snapshot, oldest first.
SELECT snapshot_id, groups_error
FROM snapshots
WHERE topic = $1 AND coalesce(groups_error, '') <> ''
ORDER BY as_of
