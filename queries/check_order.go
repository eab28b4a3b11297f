package queries

import (
	"context"
	"fmt"
)

func init() {
	register(&Check{
		Name:    "order",
		Summary: "records of a key whose time goes backwards",
		Order:   70,
		Options: []string{"time", "limit"},
		run:     checkOrder,
	})
}

func checkOrder(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	t, _ := e.Topic(o.Topic)
	d.Parts = sortParts(t.Records)
	// The default time is the producer's: a record the broker stamped
	// (LogAppendTime) is in the log's order by construction, and -1 is no
	// time at all, so neither is judged (order_keys counts them).
	d.NoTimestamp = e.noTimestamp()
	d.Time = `CASE WHEN timestamp_type = 'log_append' OR ` + d.NoTimestamp + ` THEN NULL ELSE "timestamp" END`
	if o.Time != "" {
		d.NoTimestamp = "false"
		var err error
		if d.Time, err = e.Expr(ctx, "time", o.Time, o.Topic); err != nil {
			return nil, err
		}
	}
	rows, err := e.run(ctx, "order", d, o.Limit)
	if err != nil {
		return nil, err
	}
	var ooo int64
	if len(rows) > 0 {
		ooo = asInt(rows[0].Get("out_of_order_records"))
	}
	kr, err := e.run(ctx, "order_keys", d)
	if err != nil {
		return nil, err
	}
	keys, splitKeys := asInt(kr[0].Get("keys")), asInt(kr[0].Get("split_keys"))
	noTime, noKey := asInt(kr[0].Get("records_without_time")), asInt(kr[0].Get("records_without_key"))
	keyed := asInt(kr[0].Get("keyed_records"))
	var logAppend, noTS int64
	if o.Time == "" {
		logAppend, noTS = asInt(kr[0].Get("log_append_records")), asInt(kr[0].Get("no_timestamp_records"))
	}
	r := &Report{Summary: NewRow()}
	for _, x := range rows {
		ex := NewRow().Set("kind", "out_of_order")
		for _, k := range x.Keys {
			if k != "out_of_order_records" { // a summary figure, not the row's
				ex.Set(k, x.Get(k))
			}
		}
		r.Rows = append(r.Rows, *ex)
	}
	r.Summary.Set("keys", keys).Set("out_of_order_records", ooo).Set("records_without_time", noTime).Set("records_without_key", noKey)
	if o.Time == "" {
		r.Summary.Set("log_append_time_records", logAppend).Set("no_timestamp_records", noTS)
	}
	// A partition count change breaks the order of the keys it moves:
	// their new records are on another partition, which a consumer may
	// read before the old ones. That is the change, not the producer.
	var seam int64
	var pl *placement
	if splitKeys > 0 { // only a key on two partitions can be split at a seam
		if pl, err = e.placement(ctx, o.Topic, o.Limit); err != nil {
			return nil, err
		}
		if pl.resize != nil {
			seam = asInt(pl.resize.Seam.Get("split_at_seam"))
		}
	}
	r.Summary.Set("keys_split_by_partition_change", seam)
	switch {
	case keys == 0:
		// Order is per key: without keys there is nothing to judge.
		r.Status, r.Message = StatusWarn, fmt.Sprintf("no record has a key (%s), so no key's order is judged", plural(noKey, "record with a null key", "records, all with a null key"))
	case noTime == keyed:
		// Nothing was compared: no "only moves forward" of nothing.
		r.Status, r.Message = StatusWarn, fmt.Sprintf("no keyed record has a time to compare, so no key's order is judged (%s)", plural(keyed, "keyed record", "keyed records"))
	case ooo == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("the time of every one of %d keys only moves forward in offset order", keys)
	default:
		r.Status, r.Message = StatusWarn, fmt.Sprintf("%s earlier than the record before them of the same key", plural(ooo, "record is", "records are"))
	}
	if logAppend > 0 {
		r.Status = StatusWarn
		r.Message += fmt.Sprintf("; %s the broker's time (LogAppendTime), in the log's order whatever the producer did, not judged (--time EXPR takes an event time from the value)",
			plural(logAppend, "keyed record has", "keyed records have"))
	}
	if noTS > 0 {
		r.Status = StatusWarn
		r.Message += fmt.Sprintf("; %s no timestamp (-1), not judged", plural(noTS, "keyed record has", "keyed records have"))
	}
	if noTime -= logAppend + noTS; noTime > 0 {
		// A record with no time cannot be placed in time: said, not guessed.
		r.Status = StatusWarn
		timeName := o.Time
		if timeName == "" {
			timeName = "timestamp"
		}
		r.Message += fmt.Sprintf("; %s a key and no time (%s is NULL), not judged", plural(noTime, "record has", "records have"), timeName)
	}
	if seam > 0 {
		r.Status = StatusWarn
		r.Message += fmt.Sprintf("; the partition count changed from %d to %d, so %s records on two partitions and no order across the seam (not the producer's doing: see check keys)",
			pl.resize.From, pl.resize.To, plural(seam, "key has its", "keys have their"))
		for _, row := range pl.resize.Rows {
			if row.Get("kind") != "split_at_seam" {
				continue
			}
			ex := NewRow().Set("kind", "split_at_seam")
			for _, k := range []string{"key", "old_partition", "last_old_offset", "new_partition", "first_new_offset"} {
				ex.Set(k, row.Get(k))
			}
			r.Rows = append(r.Rows, *ex)
		}
	}
	return r, nil
}
