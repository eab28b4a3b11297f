package queries

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

func init() {
	register(&Check{
		Name:      "freshness",
		ReadsCuts: true,
		Summary:   "staleness at the cut, silent stretches, late records",
		Order:     80,
		Options:   []string{"stale", "silence", "event_time", "late", "limit"},
		Charts:    freshnessCharts,
		run:       checkFreshness,
	})
}

func checkFreshness(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	// A record with no timestamp (-1, read as 1969-12-31 23:59:59.999)
	// has no time to be fresh, stale, silent or late at: the SQL leaves it
	// out of every time and counts it.
	d.NoTimestamp = e.noTimestamp()
	silence := o.Silence // RunCheck gave every unset option its default
	rows, err := e.run(ctx, "freshness", d, o.Topic)
	if err != nil {
		return nil, err
	}
	maxStale, timed := 0.0, 0
	var noTS, noTSBeside int64 // no timestamp: all, and beside timed records
	var untimed []int64        // partitions whose every record has no timestamp
	parts := make([]Row, 0, len(rows))
	for _, x := range rows {
		p := NewRow()
		for _, k := range x.Keys {
			if k != "no_timestamp_records" { // a summary figure, not the row's
				p.Set(k, x.Get(k))
			}
		}
		p.Set("kind", "partition")
		noTS += asInt(x.Get("no_timestamp_records"))
		if p.Get("newest") == nil {
			untimed = append(untimed, asInt(p.Get("partition")))
		} else {
			timed++
			noTSBeside += asInt(x.Get("no_timestamp_records"))
			maxStale = math.Max(maxStale, asFloat(p.Get("staleness_seconds")))
		}
		parts = append(parts, *p)
	}
	// A partition that holds no record has no newest record: listed with
	// nothing invented, named, and not judged.
	parts, empty, err := withEmptyPartitions(ctx, e, o.Topic, parts)
	if err != nil {
		return nil, err
	}
	sil, err := e.run(ctx, "freshness_silence", d, silence, o.Limit)
	if err != nil {
		return nil, err
	}
	r := &Report{Summary: NewRow(), Rows: parts}
	var stretches int64 // all of them, not only the examples kept
	for _, s := range sil {
		stretches = asInt(s.Get("stretches"))
		x := NewRow().Set("kind", "silence")
		for _, k := range s.Keys {
			if k != "stretches" {
				x.Set(k, s.Get(k))
			}
		}
		r.Rows = append(r.Rows, *x)
	}
	var late, noEventTime int64
	if o.EventTime != "" {
		var err error
		if d.EventTime, err = e.Expr(ctx, "event_time", o.EventTime, o.Topic); err != nil {
			return nil, err
		}
		th := o.Late
		lr, err := e.run(ctx, "freshness_late", d, th, o.Limit)
		if err != nil {
			return nil, err
		}
		if len(lr) > 0 {
			late = asInt(lr[0].Get("late_records"))
		}
		for _, l := range lr {
			l.Set("kind", "late")
			r.Rows = append(r.Rows, l)
		}
		ne, err := e.run(ctx, "freshness_no_event_time", d)
		if err != nil {
			return nil, err
		}
		noEventTime = asInt(ne[0].Get("records_without_event_time"))
	}
	if o.Charts {
		step, err := e.timeStep(ctx, d)
		if err != nil {
			return nil, err
		}
		c, err := e.chart(ctx, "records", "freshness_series", d, step)
		if err != nil {
			return nil, err
		}
		r.Charts = append(r.Charts, c)
	}
	stale := o.Stale
	var staleParts []string
	for _, p := range parts {
		if asFloat(p.Get("staleness_seconds")) > stale {
			staleParts = append(staleParts, fmt.Sprint(p.Get("partition")))
		}
	}
	var maxStaleV any = maxStale
	if timed == 0 {
		maxStaleV = nil // no timed record anywhere: no staleness to speak of
	}
	r.Summary.Set("max_staleness_seconds", maxStaleV).Set("stale_partitions", int64(len(staleParts))).
		Set("empty_partitions", int64(len(empty))).Set("silent_stretches", stretches).Set("late_records", late).
		Set("no_timestamp_records", noTS)
	if o.EventTime != "" {
		r.Summary.Set("records_without_event_time", noEventTime)
	}
	var notes []string
	if len(empty) > 0 && len(empty) < len(parts) {
		notes = append(notes, fmt.Sprintf("%s no records (%s), not judged", plural(int64(len(empty)), "partition holds", "partitions hold"), spans(empty)))
	}
	if len(untimed) > 0 {
		notes = append(notes, fmt.Sprintf("%s only records without a timestamp (-1): %s, not judged", plural(int64(len(untimed)), "partition holds", "partitions hold"), spans(untimed)))
	}
	if noTSBeside > 0 {
		notes = append(notes, fmt.Sprintf("%s no timestamp (-1), left out of the times", plural(noTSBeside, "record has", "records have")))
	}
	if len(staleParts) > 0 {
		notes = append(notes, fmt.Sprintf("stale: the newest record is %s older than the cut (over %s) on %s %s",
			humanSeconds(maxStale), humanSeconds(stale), plural(int64(len(staleParts)), "partition", "partitions"), strings.Join(staleParts, ", ")))
	}
	if len(sil) > 0 {
		longest := sil[0]
		notes = append(notes, fmt.Sprintf("%s; the longest: partition %d silent for %s while others carried on", plural(stretches, "silent stretch", "silent stretches"), asInt(longest.Get("partition")), humanSeconds(asFloat(longest.Get("seconds")))))
	}
	if late > 0 {
		notes = append(notes, plural(late, "late record", "late records"))
	}
	if noEventTime > 0 {
		// Late or not cannot be said of a record without an event time.
		notes = append(notes, fmt.Sprintf("%s no event time (%s is NULL), not judged late or not", plural(noEventTime, "record has", "records have"), o.EventTime))
	}
	if timed > 0 && !e.hasCut(o.Topic) {
		// Staleness is the newest record's age at the cut: without one
		// it is not known (it said "at most 0 seconds older than the
		// cut" of none, OK).
		notes = append(notes, noCutSentence(o.Topic)+", so how stale its partitions were is not judged")
		r.Summary.Set("max_staleness_seconds", nil).Set("cuts", int64(0))
	}
	if len(notes) > 0 {
		r.Status, r.Message = StatusWarn, strings.Join(notes, "; ")
	} else {
		r.Status, r.Message = StatusOK, fmt.Sprintf("no silent stretch over %s; the newest record of each partition is at most %s older than the cut (stale past %s)", humanSeconds(silence), humanSeconds(maxStale), humanSeconds(stale))
	}
	return r, nil
}

// withEmptyPartitions adds to rows (one per partition that holds records,
// by partition) a row for each partition the catalog knows that holds none,
// with records 0 and no newest time or staleness; it returns the rows in
// partition order and the empty partitions' numbers.
func withEmptyPartitions(ctx context.Context, e *Engine, topic string, rows []Row) ([]Row, []int64, error) {
	n, err := e.partitionCount(ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	all, err := e.run(ctx, "topic_partitions", sqlData{}, topic, n)
	if err != nil {
		return nil, nil, err
	}
	have := make(map[int64]Row, len(rows))
	for _, r := range rows {
		have[asInt(r.Get("partition"))] = r
	}
	var out []Row
	var empty []int64
	for _, p := range all {
		n := asInt(p.Get("partition"))
		if r, ok := have[n]; ok {
			out = append(out, r)
			delete(have, n)
			continue
		}
		empty = append(empty, n)
		out = append(out, *NewRow().Set("partition", n).Set("records", int64(0)).Set("newest", nil).Set("staleness_seconds", nil).Set("kind", "partition"))
	}
	for _, r := range rows { // a partition with records the catalog list lacks: kept, never dropped
		if _, ok := have[asInt(r.Get("partition"))]; ok {
			out = append(out, r)
		}
	}
	return out, empty, nil
}

// spans writes sorted numbers as runs: 0-2, 4, 6-23.
func spans(ns []int64) string {
	var b strings.Builder
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ns[i], ns[j])
		} else {
			fmt.Fprintf(&b, "%d", ns[i])
		}
		i = j + 1
	}
	return b.String()
}

// freshnessCharts draws the records per partition over time as a heat
// strip: a row per partition reads with 24 partitions as with 6; the
// silent stretches of the report are outlined.
func freshnessCharts(_ context.Context, in ChartInput) ([]chart.Chart, error) {
	r := in.Report
	var out []chart.Chart
	for _, c := range r.Charts {
		var sil []chart.Silence
		for _, row := range r.Rows {
			from, _ := row.Get("silent_from").(time.Time)
			to, _ := row.Get("silent_to").(time.Time)
			if row.Get("kind") != "silence" || from.IsZero() || to.IsZero() {
				continue
			}
			p := display.Text(row.Get("partition"))
			sil = append(sil, chart.Silence{Series: "p" + p, From: from, To: to, // the series are named p0, p1, ...
				Note: fmt.Sprintf("partition %s silent for %s from %s", p, display.Seconds(to.Sub(from).Seconds()), display.Time(from))})
		}
		out = append(out, chart.Chart{Title: "Records per partition over time",
			Note: c.Name + " per " + stepName(c.Step) + ", by broker timestamp; a row per partition, darker is more records, red is none, outlined are the silent stretches reported below",
			SVG:  chart.Heat("records per partition over time", "records per "+stepName(c.Step), c.Step, c.drawn(), sil)})
	}
	return out, nil
}
