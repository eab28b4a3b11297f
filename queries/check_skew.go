package queries

import (
	"context"
	"fmt"
	"math"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

func init() {
	register(&Check{
		Name:      "skew",
		ReadsCuts: true,
		Summary:   "records and shares per partition, hot and empty partitions, top keys, a what-if re-keying",
		Order:     30,
		Options:   []string{"hot", "what_if_key", "what_if_partitions", "limit"},
		Charts:    skewCharts,
		run:       checkSkew,
	})
}

func checkSkew(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	hot := o.Hot // RunCheck gave every unset option its default
	count, err := e.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	all, err := e.runAll(ctx, stmt{"skew", d, []any{o.Topic, count}}, stmt{"skew_keys", d, []any{10}})
	if err != nil {
		return nil, err
	}
	parts, keys := all[0], all[1]
	var total int64
	for _, p := range parts {
		total += asInt(p.Get("records"))
	}
	n := int64(len(parts))
	fair := 0.0
	if n > 0 {
		fair = 1 / float64(n)
	}
	maxS, minS := 0.0, 1.0
	var hotN, emptyN int64
	for i := range parts {
		p := &parts[i]
		share := 0.0
		if total > 0 {
			share = float64(asInt(p.Get("records"))) / float64(total)
		}
		maxS, minS = math.Max(maxS, share), math.Min(minS, share)
		isHot := n > 1 && share >= hot*fair
		if isHot {
			hotN++
		}
		if asInt(p.Get("records")) == 0 {
			emptyN++
		}
		var shareV any = round4(share)
		if total == 0 {
			shareV = nil // a share of no records is not 0%: there is none
		}
		p.Set("share", shareV).Set("fair_share", round4(fair)).Set("hot", isHot).Set("kind", "partition")
	}
	if n == 0 {
		minS = 0
	}
	var keyCount int64
	if len(keys) > 0 {
		keyCount = asInt(keys[0].Get("keys"))
	}
	r := &Report{Summary: NewRow(), Rows: parts}
	var maxV, minV any = round4(maxS), round4(minS)
	if total == 0 {
		maxV, minV = nil, nil
	}
	r.Summary.Set("partitions", n).Set("records", total).Set("fair_share", round4(fair)).Set("max_share", maxV).
		Set("min_share", minV).Set("hot_partitions", hotN).Set("empty_partitions", emptyN).Set("keys", keyCount)
	var top []Row
	for _, k := range keys {
		row := NewRow().Set("kind", "top_key").Set("key", k.Get("key")).Set("records", k.Get("records")).Set("share", round4(asFloat(k.Get("share"))))
		top = append(top, *row)
	}
	r.Rows = append(r.Rows, top...)
	r.Tables = append(r.Tables, rowsTable("Top keys", top))
	if o.WhatIfKey != "" {
		var err error
		if d.Expr, err = e.Expr(ctx, "what_if_key", o.WhatIfKey, o.Topic); err != nil {
			return nil, err
		}
		if e.opts.Remote != nil {
			if d.ExprText, err = e.remoteText(ctx, "skew", "what_if_key", d.Expr, o.Topic); err != nil {
				return nil, err
			}
		}
		wn := int64(o.WhatIfPartitions)
		if wn <= 0 {
			wn = n
		}
		wi, err := e.run(ctx, "skew_whatif", d, wn)
		if err != nil {
			return nil, err
		}
		var wt int64
		for _, w := range wi {
			wt += asInt(w.Get("records"))
		}
		wmax := 0.0
		var used int64
		for _, w := range wi {
			s := 0.0
			if wt > 0 {
				s = float64(asInt(w.Get("records"))) / float64(wt)
			}
			wmax = math.Max(wmax, s)
			if asInt(w.Get("records")) > 0 {
				used++
			}
			r.Rows = append(r.Rows, *NewRow().Set("kind", "what_if").Set("partition", w.Get("partition")).Set("records", w.Get("records")).Set("share", round4(s)))
		}
		// A record whose what-if key is NULL has no place by key (a
		// producer would spread it): counted, never placed.
		r.Summary.Set("what_if_max_share", round4(wmax)).Set("what_if_partitions_used", used).Set("what_if_records_without_key", total-wt)
	}
	switch {
	case hotN > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s hot: the largest holds %.1f%% of records against a fair share of %.1f%%", plural(hotN, "partition is", "partitions are"), maxS*100, fair*100)
	case emptyN > 0 && total > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s no records; shares range %.1f%%–%.1f%%", plural(emptyN, "partition holds", "partitions hold"), minS*100, maxS*100)
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("each of %d partitions holds between %.1f%% and %.1f%% of records, close to the fair share of %.1f%%", n, minS*100, maxS*100, fair*100)
		if n == 1 {
			r.Message = "its one partition holds every record (no other to compare it with)"
		}
	}
	return r, nil
}

// skewCharts draws the shares per partition against the fair share, and
// the what-if shares.
func skewCharts(_ context.Context, in ChartInput) ([]chart.Chart, error) {
	now, whatIf := shareBars(in.Report, "partition"), shareBars(in.Report, "what_if")
	var out []chart.Chart
	if n := len(now); n > 0 {
		fair := 1 / float64(n)
		out = append(out, chart.Chart{Title: "Share of records per partition", Note: fmt.Sprintf("the line is the fair share, 1/%d", n),
			SVG: chart.Bars("share of records per partition", now, fair, fmt.Sprintf("fair %.1f%%", fair*100))})
	}
	if wn := len(whatIf); wn > 0 {
		wf := 1 / float64(wn)
		out = append(out, chart.Chart{Title: fmt.Sprintf("What if keyed by %s over %d partitions", in.Options.WhatIfKey, wn),
			Note: "shares if records were partitioned by the what-if key (Java client's default partitioner)",
			SVG:  chart.Bars("what-if shares", whatIf, wf, fmt.Sprintf("fair %.1f%%", wf*100))})
	}
	return out, nil
}

// shareBars are the report's rows of a kind (partition, what_if) as bars
// of their share.
func shareBars(r *Report, kind string) []chart.Bar {
	var out []chart.Bar
	for _, row := range r.Rows {
		if row.Get("kind") != kind {
			continue
		}
		share := asFloat(row.Get("share"))
		out = append(out, chart.Bar{Label: "p" + display.Text(row.Get("partition")), Value: share,
			Note: fmt.Sprintf("%s (%s)", display.Share(share), display.Number(asFloat(row.Get("records"))))})
	}
	return out
}
