-- name: values
-- summary: the topic's data records by what their value is: null (a
--          tombstone), or one that did not parse in the topic's format and
--          why (the view's value_error: not UTF-8, not JSON, JSON but not
--          an object, or past one of topicsnap's bounds on a value's size,
--          depth and members, which begins 'bound: '). One row per partition.
-- params: T the topic view.
SELECT "partition", count(*) AS records,
       count(*) FILTER (WHERE value_raw IS NULL) AS null_values,
       count(*) FILTER (WHERE value_error IS NOT NULL) AS unparsed,
       count(*) FILTER (WHERE value_error = 'not UTF-8') AS not_utf8,
       count(*) FILTER (WHERE value_error = 'not JSON') AS not_json,
       count(*) FILTER (WHERE value_error = 'not a JSON object') AS not_object,
       count(*) FILTER (WHERE value_error LIKE 'bound: %') AS past_bound,
       count(*) FILTER (WHERE value_error LIKE 'type: %') AS not_sampled_type
FROM {{.T}} GROUP BY 1 ORDER BY 1
