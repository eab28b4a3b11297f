-- name: order_keys
-- summary: the keys of the topic, and how many of them are on more than one
--          partition (only those can have had their order broken by a
--          partition count change; keys then asks which).
--          Also the keyed records whose time is NULL (order cannot place
--          them) and the records without a key (no key, no order to judge);
--          of the keyed ones, those stamped by the broker (LogAppendTime)
--          and those with no timestamp (-1, NoTimestamp), which the default
--          time leaves out.
-- params: Time the time expression; NoTimestamp the dialect's test of a
--         timestamp of -1 ("false" for a --time of the user's); T the
--         topic's data view.
SELECT count(*) FILTER (WHERE key_raw IS NOT NULL) AS keys,
       count(*) FILTER (WHERE key_raw IS NOT NULL AND partitions > 1) AS split_keys,
       coalesce(sum(no_time) FILTER (WHERE key_raw IS NOT NULL), 0) AS records_without_time,
       coalesce(sum(records) FILTER (WHERE key_raw IS NOT NULL), 0) AS keyed_records,
       coalesce(sum(log_append) FILTER (WHERE key_raw IS NOT NULL), 0) AS log_append_records,
       coalesce(sum(no_ts) FILTER (WHERE key_raw IS NOT NULL), 0) AS no_timestamp_records,
       coalesce(sum(records) FILTER (WHERE key_raw IS NULL), 0) AS records_without_key
FROM (SELECT key_raw, count(DISTINCT "partition") AS partitions, count(*) AS records,
             count(*) FILTER (WHERE ({{.Time}}) IS NULL) AS no_time,
             count(*) FILTER (WHERE timestamp_type = 'log_append') AS log_append,
             count(*) FILTER (WHERE {{.NoTimestamp}}) AS no_ts
      FROM {{.T}} GROUP BY 1)
