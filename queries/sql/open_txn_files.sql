-- name: open_txn_files
-- summary: open_txn of DuckDB, from the files alone: per partition, the
--          records stored as of a transaction left open in their file
--          (txn_state 'open') that no later marker of their producer on
--          their partition decides, as the views' ASOF join decides them
--          (a record is open when no marker follows it). Reads the
--          partition, producer, offset and state of the files that hold
--          such records, and of the files that hold markers, their markers
--          only: not every record of the topic, as the view does.
-- params: OpenFiles the files with records left open (never empty);
--         MarkerFiles the files with markers (may be empty).
WITH o AS (
  SELECT "partition", producer_id, "offset" FROM read_parquet([{{.OpenFiles}}]) WHERE txn_state = 'open' AND NOT is_control
),
m AS (
{{- if .MarkerFiles}}
  SELECT "partition", producer_id, max("offset") AS last_marker
  FROM read_parquet([{{.MarkerFiles}}]) WHERE is_control GROUP BY "partition", producer_id
{{- else}}
  SELECT NULL::INTEGER AS "partition", NULL::BIGINT AS producer_id, NULL::BIGINT AS last_marker WHERE false
{{- end}}
)
SELECT o."partition", count(*) AS records, min(o."offset") AS first_offset, max(o."offset") AS last_offset
FROM o LEFT JOIN m ON m."partition" = o."partition" AND m.producer_id = o.producer_id
WHERE m.last_marker IS NULL OR m.last_marker < o."offset"
GROUP BY o."partition" ORDER BY o."partition"
