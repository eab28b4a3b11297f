-- name: freshness_no_event_time
-- summary: the records whose event time is NULL (the field is missing, the
--          value did not parse): freshness_late cannot say whether they are
--          late, so they are counted apart. Both engines' dialect.
-- params: EventTime the event time expression; T the topic's data view.
SELECT count(*) AS records_without_event_time FROM {{.T}} WHERE ({{.EventTime}}) IS NULL
