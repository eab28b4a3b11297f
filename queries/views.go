package queries

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// jsonValue is the value expression of a JSON topic's views: its values
// parsed into the inferred structure, unless a query narrowed it to the
// fields it reads (see narrow.go).
func jsonValue(name, structure string) string {
	return fmt.Sprintf(`try(from_json(decode("value"), coalesce(getvariable(%s), %s)))`,
		quoteString(valueVariable(name)), quoteString(structure))
}

// topicSelects returns the SELECTs of the views "T$all" (every stored row)
// and "T" (committed data records), with value as the value column. A file
// without control markers and without open transactions (the manifest
// counts both) can hold neither markers nor aborted records, so "T" reads
// such files without the filter (and without reading is_control and
// txn_state); only the other files are filtered.
func topicSelects(paths []string, plain []bool, value string, openTxn bool) (all, data string) {
	all = allSelect(paths, value, openTxn)
	var clean, other []string
	for i, p := range paths {
		if plain[i] {
			clean = append(clean, p)
		} else {
			other = append(other, p)
		}
	}
	const sel = `SELECT * EXCLUDE (is_control, control_type, aborted) FROM (%s)`
	var parts []string
	if len(clean) > 0 {
		parts = append(parts, fmt.Sprintf(sel, allSelect(clean, value, false)))
	}
	if len(other) > 0 || len(clean) == 0 {
		parts = append(parts, fmt.Sprintf(sel+` WHERE NOT is_control AND NOT aborted`, allSelect(other, value, openTxn)))
	}
	return all, strings.Join(parts, "\nUNION ALL\n")
}

// allSelect is the SELECT of every stored row of the files, typed, with
// transactions left open in their file resolved from later markers.
func allSelect(paths []string, value string, openTxn bool) string {
	src := "(" + emptyRaw + ")"
	if len(paths) > 0 {
		q := make([]string, len(paths))
		for i, p := range paths {
			q[i] = quoteString(p)
		}
		src = "read_parquet([" + strings.Join(q, ", ") + "])"
	}
	if openTxn {
		cols := strings.NewReplacer(`"partition", "offset"`, `s."partition", s."offset"`).Replace(rawColumns)
		return fmt.Sprintf(`WITH s AS (SELECT * FROM %s),
  m AS (SELECT "partition", producer_id, "offset", control_type FROM s WHERE is_control)
SELECT `+qualify(cols)+` FROM s ASOF LEFT JOIN m ON s."partition" = m."partition" AND s.producer_id = m.producer_id AND s."offset" < m."offset"`,
			src, value, openResolved, openResolved)
	}
	return fmt.Sprintf("SELECT "+rawColumns+" FROM %s", value, "txn_state", "txn_state", src)
}

// qualify prefixes the columns the stored rows share with the markers
// (producer_id, control_type) with the rows' alias s; the others are
// unambiguous.
func qualify(cols string) string {
	for _, c := range []string{"producer_id,", "control_type,"} {
		cols = strings.Replace(cols, c, "s."+c, 1)
	}
	return cols
}

// inferJSON samples values from the first and last files and decides
// whether the topic's values are JSON objects; if so it returns DuckDB's
// merged structure of the sample.
func inferJSON(ctx context.Context, tx *sql.Tx, paths []string) (string, bool, error) {
	var sample []string
	for _, p := range sampleFiles(paths) {
		sample = append(sample, quoteString(p))
	}
	q := fmt.Sprintf(`WITH s AS (SELECT try(decode("value")) AS v FROM read_parquet([%s]) WHERE NOT is_control AND "value" IS NOT NULL LIMIT 5000)
SELECT count(*) AS n,
       count(*) FILTER (WHERE json_valid(v) AND starts_with(ltrim(v), '{')) AS objects,
       json_group_structure(CASE WHEN json_valid(v) AND starts_with(ltrim(v), '{') THEN v::JSON END)::VARCHAR AS structure
FROM s`, strings.Join(sample, ", "))
	var n, objects int64
	var structure sql.NullString
	if err := tx.QueryRowContext(ctx, q).Scan(&n, &objects, &structure); err != nil {
		return "", false, err
	}
	if n == 0 || objects*10 < n*9 || !structure.Valid {
		return "", false, nil
	}
	return structure.String, true, nil
}
