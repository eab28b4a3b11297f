-- name: order_keys
-- summary: the keys of the topic, and how many of them are on more than one
--          partition (only those can have had their order broken by a
--          partition count change; keys then asks which).
-- params: none. T the topic's data view.
SELECT count(*) AS keys, count(*) FILTER (WHERE partitions > 1) AS split_keys
FROM (SELECT key_raw, count(DISTINCT "partition") AS partitions FROM {{.T}} WHERE key_raw IS NOT NULL GROUP BY 1)
