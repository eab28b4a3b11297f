-- name: reset_ids
-- summary: how many distinct ids of the records a reset would re-read (see
--          reset.sql) already occur among the records before the target on
--          the same partitions: duplicates the consumer will meet again.
-- params: $1 a JSON list of {"partition", "target_offset",
--         "committed_offset"}. T the topic's data view; Alias its bare name (the subquery the ID reads as the topic); ID the parsed id
--         expression.
WITH ranges AS (
  SELECT unnest(from_json($1::VARCHAR, '[{"partition":"INTEGER","target_offset":"BIGINT","committed_offset":"BIGINT"}]'), recursive := true)
), again AS (
  SELECT DISTINCT {{.ID}} AS id FROM (
    SELECT x.* FROM {{.T}} x JOIN ranges g ON x."partition" = g."partition"
    WHERE x."offset" >= g.target_offset AND x."offset" < g.committed_offset) AS {{.Alias}}
), before AS (
  SELECT DISTINCT {{.ID}} AS id FROM (
    SELECT x.* FROM {{.T}} x JOIN ranges g ON x."partition" = g."partition"
    WHERE x."offset" < g.target_offset) AS {{.Alias}}
)
SELECT (SELECT count(*) FROM again) AS ids_reread,
       (SELECT count(*) FROM again SEMI JOIN before USING (id)) AS ids_already_read
