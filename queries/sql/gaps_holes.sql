-- name: gaps_holes
-- summary: offsets absent between two stored rows of a partition (holes), and
--          offsets stored twice, found in one ordered pass over "<topic>$all".
-- params: none; the view is All.
SELECT "partition", "offset" + 1 AS hole_from, next_offset - 1 AS hole_to
FROM (
  SELECT "partition", "offset",
         lead("offset") OVER (PARTITION BY "partition" ORDER BY "offset") AS next_offset
  FROM {{.All}}
)
WHERE next_offset IS NOT NULL AND next_offset <> "offset" + 1
ORDER BY 1, 2
