-- name: reset_ids (Spark)
-- summary: as reset_ids.sql, in Spark's dialect: the ranges are a JSON array
--          read with from_json and inline; LEFT SEMI JOIN spelled out.
-- params: $1 a JSON list of {"partition", "target_offset",
--         "committed_offset"}. T the topic's data view; Alias its bare name (the subquery the ID reads as the topic); ID the parsed id
--         expression.
WITH ranges AS (
  SELECT inline(from_json($1, 'ARRAY<STRUCT<`partition`: INT, target_offset: BIGINT, committed_offset: BIGINT>>'))
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
       (SELECT count(*) FROM again LEFT SEMI JOIN before ON again.id = before.id) AS ids_already_read
