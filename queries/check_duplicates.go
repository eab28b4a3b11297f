package queries

import (
	"context"
	"fmt"
	"strings"

	"github.com/topicsnap/topicsnap/internal/chart"
)

func init() {
	register(&Check{
		Name:    "duplicates",
		Summary: "ids seen more than once, where and how far apart",
		Order:   20,
		Options: []string{"id", "by", "limit"},
		Charts:  duplicatesCharts,
		run:     checkDuplicates,
	})
}

// defaultIDs is duplicates' default id in each engine's dialect.
var defaultIDs = map[string]string{"duckdb": "row(key_raw, value_raw)", "spark": "struct(key_raw, value_raw)"}

func checkDuplicates(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	t, _ := e.Topic(o.Topic)
	d.Parts = sortParts(t.Records)
	// The default id: key and value bytes together, a row of two BLOBs
	// (a STRUCT on Spark), shown as DuckDB's text of it on every engine
	// (Spark's tsnap_row_text, sql/engine/spark_functions.sql).
	d.ID, d.RowID = defaultIDs[e.EngineName()], true
	if d.ID == "" {
		return nil, &NotOnEngineError{Check: "duplicates", Engine: e.EngineName(), Why: "without --id; give --id EXPR, e.g. --id key"}
	}
	if o.ID != "" {
		d.RowID = false
		var err error
		if d.ID, err = e.Expr(ctx, "id", o.ID, o.Topic); err != nil {
			return nil, err
		}
		if e.opts.Remote != nil {
			if d.IDType, err = e.exprType(ctx, d.ID, o.Topic); err != nil {
				return nil, err
			}
			if nestedType(d.IDType) {
				return nil, &NotOnEngineError{Check: "duplicates", Engine: e.EngineName(), Why: fmt.Sprintf(
					"an id of type %s is shown as DuckDB's text of it, which Spark does not write; give --id a field of it (e.g. value.id)", d.IDType)}
			}
		}
	}
	rows, err := e.run(ctx, "duplicates", d, o.Limit)
	if err != nil {
		return nil, err
	}
	if bits := map[string]int{"DOUBLE": 64, "FLOAT": 32}[d.IDType]; bits > 0 {
		// Spark's text of a float is not DuckDB's (1.2345678E7 for
		// 12345678.0): the statement gives the number, written here.
		for i := range rows {
			if f, ok := rows[i].Get("id").(float64); ok {
				rows[i].Set("id", duckDBFloatText(f, bits))
			} else if f, ok := rows[i].Get("id").(float32); ok {
				rows[i].Set("id", duckDBFloatText(float64(f), bits))
			}
		}
	}
	var charts []Chart
	if o.Charts {
		step, err := e.timeStep(ctx, d)
		if err != nil {
			return nil, err
		}
		dc := d
		dc.NoTimestamp = e.noTimestamp()
		c, err := e.chart(ctx, "duplicates", "duplicates_series", dc, step)
		if err != nil {
			return nil, err
		}
		charts = append(charts, c)
	}
	first := rows[0]
	records, without := asInt(first.Get("records")), asInt(first.Get("without_id"))
	distinct, dupIDs, extra := asInt(first.Get("distinct_ids")), asInt(first.Get("duplicate_ids")), asInt(first.Get("extra_copies"))
	withID := records - without
	share := 0.0
	var shareV any // no record with an id: no share to speak of
	if withID > 0 {
		share = round4(float64(extra) / float64(withID))
		shareV = share
	}
	r := &Report{Summary: NewRow(), Charts: charts}
	r.Summary.Set("records", records).Set("records_without_id", without).Set("distinct_ids", distinct).
		Set("duplicate_ids", dupIDs).Set("extra_copies", extra).Set("duplicate_share", shareV)
	for _, x := range rows {
		if x.Get("first_offset") == nil {
			continue // no example: the counts alone
		}
		ex := NewRow().Set("kind", "duplicate")
		for _, k := range []string{"id", "copies", "first_partition", "first_offset", "second_partition", "second_offset", "seconds_between"} {
			ex.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *ex)
	}
	if o.By != "" {
		var err error
		if d.By, err = e.Expr(ctx, "by", o.By, o.Topic); err != nil {
			return nil, err
		}
		if e.opts.Remote != nil {
			if d.ByText, err = e.remoteText(ctx, "duplicates", "by", d.By, o.Topic); err != nil {
				return nil, err
			}
		}
		by, err := e.run(ctx, "duplicates_by", d)
		if err != nil {
			return nil, err
		}
		r.Tables = append(r.Tables, rowsTable("By "+o.By, by))
		for _, b := range by {
			b.Set("kind", "by")
			r.Rows = append(r.Rows, b)
		}
	}
	// A record without an id (the expression is NULL) is not judged: it is
	// no copy of another, and the check does not know whether it is one.
	noID := ""
	if without > 0 {
		noID = fmt.Sprintf("%s no id (%s is NULL), not judged", plural(without, "record has", "records have"), o.ID)
	}
	switch {
	case withID == 0 && without > 0:
		r.Status, r.Message = StatusWarn, fmt.Sprintf("no record has an id: %s is NULL on all %d records, so nothing is judged (is --id the field the values carry?)", o.ID, records)
	case dupIDs == 0 && without > 0:
		r.Status, r.Message = StatusWarn, fmt.Sprintf("no id occurs twice among the %d records with one; %s", withID, noID)
	case dupIDs == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("no id occurs twice among %d records", records)
	default:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s more than once: %s, %.1f%% of %d records", plural(dupIDs, "id occurs", "ids occur"), plural(extra, "extra copy", "extra copies"), share*100, withID)
		if without > 0 {
			r.Message += " with an id; " + noID
		}
	}
	return r, nil
}

// duplicatesCharts draws the duplicates over time, a line per partition.
func duplicatesCharts(_ context.Context, in ChartInput) ([]chart.Chart, error) {
	var out []chart.Chart
	for _, c := range in.Report.Charts {
		unit := c.Name + " per " + stepName(c.Step)
		out = append(out, chart.Chart{Title: "Duplicates over time", Note: unit + ": records whose id was seen before", SVG: chart.Time("duplicates over time", unit, c.drawn())})
	}
	return out, nil
}

// nestedType: DuckDB's type name of a STRUCT, LIST, MAP, ARRAY or UNION,
// whose text (DuckDB's {'a': 1}) Spark's CAST does not write ({1}).
func nestedType(t string) bool {
	for _, p := range []string{"STRUCT", "MAP", "LIST", "UNION"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.HasSuffix(t, "]")
}
