package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

func init() {
	register(&Check{
		Name:      "keys",
		ReadsCuts: true,
		Summary:   "records not on murmur2(key) % n, explained by crc32, a custom partitioner or a partition count change (each record judged by the count when it was written; keys split at the seam), or not",
		Order:     60,
		Options:   []string{"limit"},
		run:       checkKeys,
	})
}

// resize is a partition count change the placement shows: the keyed
// records murmur2(key) % To does not explain are all on murmur2(key) %
// From, each key's old-placement records before its new ones.
type resize struct {
	From, To int64
	Source   string // "snapshots": a cut saw From; "inferred": from the placement alone
	Seam     Row    // the summary row of keys_seam
	Rows     []Row  // seam (per partition) and split_at_seam (per key) rows
	// BeforeMin and BeforeMax bound the keyed records that predate the
	// change (keys_before): written by seam_after, and before seam_before.
	BeforeMin, BeforeMax int64
}

// placement is what the keys check and the order check know of where the
// keys were put.
type placement struct {
	n      int64 // today's partition count
	counts Row   // the keys.sql row
	resize *resize
}

// maxInferredCount bounds the partition counts tried when no cut recorded
// the earlier count: each is a hash of every misplaced key.
const maxInferredCount = 256

func (e *Engine) placement(ctx context.Context, topic string, limit int) (*placement, error) {
	d := views(topic)
	n, err := e.partitionCount(ctx, topic)
	if err != nil {
		return nil, err
	}
	s, err := e.run(ctx, "keys", d, n)
	if err != nil {
		return nil, err
	}
	pl := &placement{n: n, counts: s[0]}
	mis, crcMis := asInt(pl.counts.Get("misplaced_records")), asInt(pl.counts.Get("crc32_misplaced_records"))
	if mis == 0 || crcMis == 0 {
		return pl, nil
	}
	// Earlier counts: those a cut of the topic as it is today recorded
	// below n (an old topic's, made again under the name, placed none of
	// today's records), else every count below n.
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	var cands []int64
	source := "snapshots"
	for _, s := range currentCuts(topic, snaps) {
		if c := int64(s.PartitionCount); c > 0 && c < n && !slices.Contains(cands, c) {
			cands = append(cands, c)
		}
	}
	slices.Sort(cands)
	if len(cands) == 0 && n <= maxInferredCount {
		source = "inferred"
		for m := int64(1); m < n; m++ {
			cands = append(cands, m)
		}
	}
	if len(cands) == 0 {
		return pl, nil
	}
	cb, _ := json.Marshal(cands)
	best, err := e.run(ctx, "keys_resize", d, n, string(cb))
	if err != nil {
		return nil, err
	}
	if len(best) == 0 || asInt(best[0].Get("explained")) != mis {
		return pl, nil // not every misplaced record is on an earlier count's partition
	}
	m := asInt(best[0].Get("old_count"))
	d.NoTimestamp = e.noTimestamp() // a record's -1 is no time: placed, not timed
	seam, err := e.run(ctx, "keys_seam", d, n, m, limit)
	if err != nil {
		return nil, err
	}
	sum := seam[0]
	after, _ := sum.Get("seam_after").(time.Time)
	before, ok := sum.Get("seam_before").(time.Time)
	if asInt(sum.Get("keys_against_the_seam")) > 0 || asInt(sum.Get("unexplained_records")) > 0 || !ok || after.After(before) {
		// Old placements after new ones, or no record on the new
		// placement at all: not one change of the count.
		return pl, nil
	}
	pre, err := e.run(ctx, "keys_before", d, after, before, n, m)
	if err != nil {
		return nil, err
	}
	pl.resize = &resize{From: m, To: n, Source: source, Seam: sum, Rows: seam[1:],
		BeforeMin: asInt(pre[0].Get("before_min")), BeforeMax: asInt(pre[0].Get("before_max"))}
	return pl, nil
}

func checkKeys(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	pl, err := e.placement(ctx, o.Topic, o.Limit)
	if err != nil {
		return nil, err
	}
	n, x := pl.n, pl.counts
	records, mis, crcMis, unexplained := asInt(x.Get("records")), asInt(x.Get("misplaced_records")), asInt(x.Get("crc32_misplaced_records")), asInt(x.Get("unexplained_records"))
	split := asInt(x.Get("split_keys"))
	if rs := pl.resize; rs != nil {
		return resizeReport(rs, x), nil
	}
	// The partitioner that placed the keys, as far as the placement tells:
	// one known hash explains every record, or both do between them
	// (mixed), or every key still sits on one partition that neither
	// explains (custom: an explicit map, the wind farm's design).
	part := "unknown"
	switch {
	case records == 0:
		part = "unknown"
	case mis == 0:
		part = "murmur2"
	case crcMis == 0:
		part = "crc32"
	case unexplained == 0:
		part = "mixed"
	case split == 0:
		part = "custom"
	}
	r := &Report{Summary: NewRow()}
	r.Summary.Set("keys", asInt(x.Get("keys"))).Set("misplaced_records", mis).Set("split_keys", asInt(x.Get("split_keys"))).
		Set("partitioner", part).Set("explained_by_crc32", asInt(x.Get("explained_by_crc32"))).
		Set("unexplained_records", unexplained).Set("null_keys", asInt(x.Get("null_keys")))
	ex, err := e.run(ctx, "keys_examples", d, n, o.Limit)
	if err != nil {
		return nil, err
	}
	for _, x := range ex {
		row := NewRow().Set("kind", "misplaced")
		for _, k := range x.Keys {
			row.Set(k, x.Get(k))
		}
		r.Rows = append(r.Rows, *row)
	}
	switch {
	case records == 0:
		r.Status, r.Message = StatusWarn, "no keyed records: placement cannot be judged"
	case mis == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every keyed record sits on murmur2(key) %% %d, the Java default partitioner", n)
	case crcMis == 0:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every keyed record sits on crc32(key) %% %d: librdkafka's consistent partitioner (kcat, librdkafka clients), not the Java default", n)
	case split > 0 && part == "mixed":
		r.Status, r.Message = StatusFail, fmt.Sprintf("two partitioners write this topic: %s placed by murmur2 (Java) and %s by crc32 (librdkafka), and %s are split across partitions",
			plural(records-mis, "record", "records"), plural(asInt(x.Get("explained_by_crc32")), "record", "records"), plural(split, "key", "keys"))
	case split > 0:
		r.Status, r.Message = StatusFail, fmt.Sprintf("%s split across partitions; %s on a partition neither murmur2 nor crc32 explains",
			plural(split, "key is", "keys are"), plural(unexplained, "record is", "records are"))
	case part == "mixed":
		r.Status, r.Message = StatusWarn, fmt.Sprintf("two partitioners write this topic (%s by crc32, the rest by murmur2); no key is split yet, but a key written by both would be",
			plural(asInt(x.Get("explained_by_crc32")), "record", "records"))
	default:
		r.Status, r.Message = StatusOK, fmt.Sprintf("every key sits on one partition, placed by a custom partitioner: %s are on a partition neither murmur2 nor crc32 gives",
			plural(unexplained, "record", "records"))
	}
	return r, nil
}

// resizeReport says a partition count change: the records before it are
// where murmur2 put them under the old count, and the keys with records
// on both sides are split at the seam (a consumer may read a key's new
// records before its old ones).
func resizeReport(rs *resize, x Row) *Report {
	r := &Report{Summary: NewRow()}
	split := asInt(rs.Seam.Get("split_at_seam"))
	old := asInt(rs.Seam.Get("old_placement_records"))
	r.Summary.Set("keys", asInt(x.Get("keys"))).Set("misplaced_records", int64(0)).Set("split_keys", asInt(x.Get("split_keys"))).
		Set("partitioner", "murmur2").Set("explained_by_crc32", int64(0)).Set("unexplained_records", int64(0)).
		Set("null_keys", asInt(x.Get("null_keys"))).
		Set("partition_count_from", rs.From).Set("partition_count_to", rs.To).Set("partition_count_source", rs.Source).
		Set("records_before_change_min", rs.BeforeMin).Set("records_before_change_max", rs.BeforeMax).
		Set("old_placement_records", old).Set("split_at_seam", split).
		Set("seam_after", rs.Seam.Get("seam_after")).Set("seam_before", rs.Seam.Get("seam_before"))
	for _, row := range rs.Rows {
		out := NewRow().Set("kind", row.Get("kind"))
		for _, k := range []string{"key", "old_partition", "last_old_offset", "new_partition", "first_new_offset", "seam_after", "seam_before"} {
			if row.Get("kind") == "seam" && (k == "key" || k == "new_partition") {
				continue
			}
			if row.Get("kind") == "seam" && k == "old_partition" {
				out.Set("partition", row.Get(k))
				continue
			}
			out.Set(k, row.Get(k))
		}
		r.Rows = append(r.Rows, *out)
	}
	when := func(v any) string {
		if t, ok := v.(time.Time); ok {
			return FormatTime(t)
		}
		return "?"
	}
	how := "the snapshots recorded both counts"
	if rs.Source == "inferred" {
		how = "inferred from where the keys are: no cut recorded the earlier count"
	}
	r.Status = StatusWarn
	// Both figures: the records that predate the change, and the subset
	// whose placement under the old count differs from the new one's.
	predate := plural(rs.BeforeMin, "keyed record predates", "keyed records predate")
	if rs.BeforeMax != rs.BeforeMin {
		predate = fmt.Sprintf("between %d and %d keyed records predate", rs.BeforeMin, rs.BeforeMax)
	}
	r.Message = fmt.Sprintf("the partition count changed from %d to %d (%s) between %v and %v: %s the change, placed by murmur2(key) %% %d; "+
		"%d of them sit where %% %d and %% %d differ, the rest where both agree; later records are placed by %% %d; %s split at the seam, so a consumer may read their new records before their old ones",
		rs.From, rs.To, how, when(rs.Seam.Get("seam_after")), when(rs.Seam.Get("seam_before")), predate, rs.From,
		old, rs.From, rs.To, rs.To, plural(split, "key is", "keys are"))
	return r
}
