package queries

import (
	"context"
	"fmt"
	"math"
	"strings"
)

func init() {
	register(&Check{
		Name:    "freshness",
		Summary: "staleness at the cut, silent stretches, late records",
		Order:   80,
		Options: []string{"stale", "silence", "event_time", "late", "limit"},
		run:     checkFreshness,
	})
}

func checkFreshness(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	silence := o.Silence
	if silence <= 0 {
		silence = 300
	}
	parts, err := e.run(ctx, "freshness", d, o.Topic)
	if err != nil {
		return nil, err
	}
	maxStale := 0.0
	for i := range parts {
		parts[i].Set("kind", "partition")
		maxStale = math.Max(maxStale, asFloat(parts[i].Get("staleness_seconds")))
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
	var late int64
	if o.EventTime != "" {
		var err error
		if d.EventTime, err = e.Expr(ctx, "event_time", o.EventTime, o.Topic); err != nil {
			return nil, err
		}
		th := o.Late
		if th <= 0 {
			th = 60
		}
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
	if stale <= 0 {
		stale = 3600
	}
	var staleParts []string
	for _, p := range parts {
		if asFloat(p.Get("staleness_seconds")) > stale {
			staleParts = append(staleParts, fmt.Sprint(p.Get("partition")))
		}
	}
	r.Summary.Set("max_staleness_seconds", maxStale).Set("stale_partitions", int64(len(staleParts))).
		Set("silent_stretches", stretches).Set("late_records", late)
	var notes []string
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
	if len(notes) > 0 {
		r.Status, r.Message = StatusWarn, strings.Join(notes, "; ")
	} else {
		r.Status, r.Message = StatusOK, fmt.Sprintf("no silent stretch over %s; the newest record of each partition is at most %s older than the cut (stale past %s)", humanSeconds(silence), humanSeconds(maxStale), humanSeconds(stale))
	}
	return r, nil
}
