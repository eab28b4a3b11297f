package queries

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/chart"
)

func init() {
	register(&Check{
		Name:      "gaps",
		ReadsCuts: true,
		// A topic with no records keeps a fail: offsets missing,
		// damaged, deleted between snapshots or not dumped are data the
		// folder does not know, not "no data", and fail the same with
		// records or without.
		Empty:   EmptyNotedKeepsFail,
		Summary: "holes per partition, explained (markers, aborted, compaction, retention) or missing",
		Order:   10,
		Options: []string{"limit"},
		Charts:  gapsCharts,
		run:     checkGaps,
	})
}

// hole is a range of absent offsets and what explains it.
type hole struct {
	partition int32
	from, to  int64
	kind      string
	// Of an undumped hole: the cut whose high watermark it reaches, and
	// why the folder stops short of it when the manifest says ("" when
	// nothing does).
	cut, why string
}

// holeUndumped is the kind of a hole past the folder's data: offsets a cut
// says Kafka held (below its high watermark) that the partition's manifest
// never reached (its next_offset is lower).
const holeUndumped = "undumped"

// undumpedHoles compares, for each partition of ms, the high watermark of
// the latest cut of topic that dumped it with where the folder's dump of
// it reached (the manifest's next_offset: past any transaction marker or
// compacted tail, which hold no record but were read): offsets from there
// (or the cut's log start, when higher) up to the high watermark are
// records Kafka had that the folder does not hold. The dump writes its cut
// only once every partition reached it, so such a hole is a folder edited
// or put back from an older copy, or a dump stopped short (--until) of the
// cut: why says the latter when the manifest's record of that cut does.
//
// A cut taken before the partition's log was rewritten (the topic deleted
// and made again, a truncation) recorded the old log's high watermark,
// which says nothing of the data of the history after it: only the cut
// that found the rewrite, or a later one, is compared. A partition without
// such a cut (the dump that found the rewrite did not finish: the topic
// deleted again while it was read) is in uncut, with the offset its data
// reaches: what Kafka held past it is not known.
func undumpedHoles(topic string, ms []*catalog.Manifest, snaps []*catalog.ClusterSnapshot) (out []hole, uncut []hole) {
	for _, m := range ms {
		var cut *catalog.ClusterSnapshot
		var st catalog.PartitionState
		since := ""
		for _, rw := range m.Rewrites {
			since = max(since, rw.Snapshot)
		}
		for _, s := range snaps {
			if s.Topic != topic || (cut != nil && s.ID < cut.ID) || s.ID < since {
				continue
			}
			if len(s.Dumped) > 0 && !slices.Contains(s.Dumped, m.Partition) {
				continue
			}
			for _, ps := range s.Partitions {
				if ps.Partition == m.Partition {
					cut, st = s, ps
				}
			}
		}
		if cut == nil {
			if since != "" {
				uncut = append(uncut, hole{partition: m.Partition, from: m.NextOffset, cut: since})
			}
			continue
		}
		from := max(m.NextOffset, st.LogStart, 0)
		// A rewrite found after the cut was taken, by the dump of that
		// very cut (a partition stopped mid-read, its rewrite recorded at
		// once): the cut's high watermark counted the history Kafka since
		// rewrote, whose offsets the folder dumped up to the rewrite's
		// last and keeps (superseded, said as rewritten), not a hole. (A
		// rewrite found by a dump that wrote no cut leaves the partition
		// uncut, above.)
		for _, rw := range m.Rewrites {
			if rw.DetectedAt.After(cut.AsOf) {
				from = max(from, rw.Last+1)
			}
		}
		if st.HighWatermark <= from {
			continue
		}
		h := hole{partition: m.Partition, from: from, to: st.HighWatermark - 1, kind: holeUndumped, cut: cut.ID}
		for _, ps := range m.Snapshots {
			if ps.ID == cut.ID && ps.Until < st.HighWatermark && ps.Until <= m.NextOffset {
				h.why = fmt.Sprintf("the dump of cut %s stopped at offset %d (--until), short of the cut's high watermark", cut.ID, ps.Until)
			}
		}
		out = append(out, h)
	}
	return out, uncut
}

func checkGaps(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	all, err := e.runAll(ctx, stmt{"gaps_partitions", d, nil}, stmt{"gaps_holes", d, nil})
	if err != nil {
		return nil, err
	}
	parts, holesRows := all[0], all[1]
	// The catalog as the engine loaded it (the views' version), never the
	// folder read again: one report describes one catalog version.
	tf, _ := e.topicFilesOf(o.Topic)
	// The partitions the topic has today; an old topic's partition that
	// the topic made again lacks (all its files superseded) is history:
	// its rewrites are said below, never holes or a partition to count.
	count, err := e.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	ms := currentManifests(tf.manifests, count)
	compacted := false
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	for _, s := range snaps {
		if s.Topic == o.Topic {
			compacted = strings.Contains(s.Configs["cleanup.policy"], "compact")
		}
	}
	lostBy := map[int32][]catalog.LostRange{}
	for _, m := range ms {
		lostBy[m.Partition] = m.Lost
	}
	lastBy := map[int32]int64{}
	for _, p := range parts {
		lastBy[int32(asInt(p.Get("partition")))] = asInt(p.Get("last_offset"))
	}
	var raw []hole
	for _, h := range holesRows {
		raw = append(raw, hole{partition: int32(asInt(h.Get("partition"))), from: asInt(h.Get("hole_from")), to: asInt(h.Get("hole_to"))})
	}
	// Holes before the first stored offset (from where the first snapshot
	// started reading) and after the last one (up to where the dump stopped).
	firstBy := map[int32]int64{}
	for _, p := range parts {
		firstBy[int32(asInt(p.Get("partition")))] = asInt(p.Get("first_offset"))
	}
	for _, m := range ms {
		from := int64(-1)
		for _, s := range m.Snapshots {
			if from < 0 || s.From < from {
				from = s.From
			}
		}
		first, hasRows := firstBy[m.Partition]
		last := lastBy[m.Partition]
		switch {
		case !hasRows && from >= 0 && m.NextOffset > from:
			raw = append(raw, hole{partition: m.Partition, from: from, to: m.NextOffset - 1})
		case hasRows:
			if from >= 0 && first > from {
				raw = append(raw, hole{partition: m.Partition, from: from, to: first - 1})
			}
			if m.NextOffset > last+1 {
				raw = append(raw, hole{partition: m.Partition, from: last + 1, to: m.NextOffset - 1})
			}
		}
	}
	duplicated := int64(0)
	var holes []hole
	for _, h := range raw {
		if h.to < h.from { // lead() equal to offset: stored twice
			duplicated++
			continue
		}
		holes = append(holes, splitHole(h, lostBy[h.partition], compacted)...)
	}
	// Offsets Kafka held at the last cut that the folder's data never
	// reached.
	undumped, uncut := undumpedHoles(o.Topic, ms, snaps)
	holes = append(holes, undumped...)
	// Lost ranges outside the stored span (before the first snapshot) count too.
	sum := map[string]int64{}
	for p, ls := range lostBy {
		for _, l := range ls {
			covered := false
			for _, h := range holes {
				if h.partition == p && h.kind == l.Kind && h.from >= l.From && h.to <= l.To {
					covered = true
				}
			}
			if !covered {
				holes = append(holes, hole{partition: p, from: l.From, to: l.To, kind: l.Kind})
			}
		}
	}
	sort.Slice(holes, func(i, j int) bool {
		if holes[i].partition != holes[j].partition {
			return holes[i].partition < holes[j].partition
		}
		return holes[i].from < holes[j].from
	})
	var records, control, aborted int64
	for _, p := range parts {
		records += asInt(p.Get("records"))
		control += asInt(p.Get("control_records"))
		aborted += asInt(p.Get("aborted_records"))
	}
	missingBy, undumpedBy := map[int32]int64{}, map[int32]int64{}
	for _, h := range holes {
		n := h.to - h.from + 1
		switch h.kind {
		case holeUndumped:
			undumpedBy[h.partition] += n
			if h.why == "" {
				sum["undumped"] += n
			} else {
				sum["undumped_until"] += n
			}
		case "missing":
			sum["missing"] += n
			missingBy[h.partition] += n
		case "compacted":
			sum["compacted"] += n
		case catalog.LostDamaged:
			sum["damaged"] += n
		case catalog.LostNotInFile:
			sum["notinfile"] += n
		default:
			sum["expired"] += n
			if h.kind == catalog.LostBetween {
				sum["between"] += n
			}
		}
	}
	// Offsets Kafka rewrote after they were dumped (catalog.Rewrite): the
	// views hold the current history, the superseded versions are kept;
	// either way the log the folder dumped is not the log Kafka holds.
	// A topic deleted and made again under its name (a new topic id) is
	// said apart: someone did it, no broker lost anything.
	var rewritten, recreated int64
	rewrittenParts, recreatedParts := map[int32]bool{}, map[int32]bool{}
	var rewrites []Row
	for _, m := range tf.manifests {
		for _, rw := range m.Rewrites {
			if rw.Kind == catalog.RewriteRecreated {
				recreated += rw.Len()
				recreatedParts[m.Partition] = true
			} else {
				rewritten += rw.Len()
				rewrittenParts[m.Partition] = true
			}
			rewrites = append(rewrites, *NewRow().Set("kind", "rewritten").Set("rewrite_kind", rw.Kind).Set("partition", m.Partition).
				Set("from_offset", rw.First).Set("to_offset", rw.Last).Set("offsets", rw.Len()).
				Set("old_leader_epoch", rw.OldEpoch).Set("new_leader_epoch", rw.NewEpoch).Set("history", rw.History).
				Set("detected_at", rw.DetectedAt.UTC()))
		}
	}
	r := &Report{Summary: NewRow()}
	nParts := int64(len(ms))
	r.Summary.Set("partitions", nParts).Set("records", records).
		Set("missing_offsets", sum["missing"]).Set("control_records", control).
		Set("aborted_records", aborted).Set("compacted_offsets", sum["compacted"]).
		Set("expired_offsets", sum["expired"]).Set("duplicated_offsets", duplicated).
		Set("rewritten_offsets", rewritten).Set("recreated_offsets", recreated).
		Set("undumped_offsets", sum["undumped"]+sum["undumped_until"])
	// Only an import (topicsnap import) records these kinds.
	if sum["damaged"] > 0 {
		r.Summary.Set("damaged_offsets", sum["damaged"])
	}
	if sum["notinfile"] > 0 {
		r.Summary.Set("not_in_file_offsets", sum["notinfile"])
	}
	for _, p := range parts {
		pn := int32(asInt(p.Get("partition")))
		first, last, n := asInt(p.Get("first_offset")), asInt(p.Get("last_offset")), asInt(p.Get("records"))
		row := NewRow().Set("kind", "partition").Set("partition", pn).Set("first_offset", first).Set("last_offset", last).
			Set("records", n).Set("naive_missing", last-first+1-n).
			Set("control_records", p.Get("control_records")).Set("aborted_records", p.Get("aborted_records")).
			Set("missing_offsets", missingBy[pn]).Set("undumped_offsets", undumpedBy[pn])
		r.Rows = append(r.Rows, *row)
	}
	for _, h := range holes {
		row := NewRow().Set("kind", h.kind).Set("partition", h.partition).Set("from_offset", h.from).Set("to_offset", h.to).Set("offsets", h.to-h.from+1)
		if h.kind == holeUndumped {
			why := h.why
			if why == "" {
				why = "the folder's data for the partition ends below the high watermark its cut recorded (a folder edited or put back from an older copy)"
			}
			row.Set("snapshot", h.cut).Set("high_watermark", h.to+1).Set("reason", why)
		}
		r.Rows = append(r.Rows, *row)
	}
	r.Rows = append(r.Rows, rewrites...)
	rewrote := ""
	if rewritten > 0 {
		rewrote = fmt.Sprintf("%s on %d of %d partitions rewritten by Kafka after they were dumped (a truncated log, e.g. an unclean leader election: the records dumped there are not in Kafka any more; the views hold Kafka's current records, the superseded ones in the view %s)",
			plural(rewritten, "offset", "offsets"), len(rewrittenParts), nParts, quoteIdent(o.Topic+"$superseded"))
	}
	remade := ""
	if recreated > 0 {
		// Said of the old topic's partitions, which may be more than
		// today's.
		remade = fmt.Sprintf("the topic was deleted and made again under its name (another topic id) after %s on %s of the old topic were dumped: the views hold the new topic's records, the old ones are kept in the view %s",
			plural(recreated, "offset", "offsets"), plural(int64(len(recreatedParts)), "partition", "partitions"), quoteIdent(o.Topic+"$superseded"))
	}
	defer func() {
		// Said beside any verdict, and a warning at least: the folder's
		// history of the topic is two topics'.
		if remade == "" {
			return
		}
		r.Message += "; " + remade
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
	}()
	switch {
	case sum["missing"] > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s unexplained on %d of %d partitions", plural(sum["missing"], "missing offset", "missing offsets"), len(missingBy), nParts)
		if rewrote != "" {
			r.Message += "; " + rewrote
		}
	case sum["damaged"] > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s in batches the import could not read (the damaged rows name the file, bytes and reason)", plural(sum["damaged"], "offset", "offsets"))
	case rewritten > 0:
		r.Status = StatusFail
		r.Message = "0 missing offsets, but " + rewrote
	case sum["between"] > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s deleted by Kafka between snapshots before they were dumped", plural(sum["between"], "offset was", "offsets were"))
	case sum["notinfile"] > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s not in the imported kcat file (kcat prints no transaction markers nor, read_committed, aborted records; the rest it did not read)", plural(sum["notinfile"], "offset", "offsets"))
	case duplicated > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("0 missing offsets, but %s stored twice", plural(duplicated, "offset", "offsets"))
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("0 missing offsets on all %d partitions", nParts)
		if nParts == 1 {
			r.Message = "0 missing offsets on its one partition"
		}
	}
	if n := sum["undumped"] + sum["undumped_until"]; n > 0 {
		// Records Kafka held at the cut that the folder does not: said
		// beside any verdict; unexplained they fail it, stopped short by
		// --until they warn.
		var where []string
		for _, h := range holes {
			if h.kind == holeUndumped {
				where = append(where, fmt.Sprintf("partition %d offsets %d-%d (cut %s)", h.partition, h.from, h.to, h.cut))
			}
		}
		if len(where) > 3 {
			where = append(where[:3], fmt.Sprintf("%d more", len(where)-3))
		}
		said := fmt.Sprintf("%s Kafka held at the partition's last cut %s not in the folder on %d of %d partitions: %s",
			plural(n, "offset", "offsets"), map[bool]string{true: "is", false: "are"}[n == 1], len(undumpedBy), nParts, strings.Join(where, ", "))
		if r.Status == StatusOK {
			r.Message = "0 missing offsets in the folder's data, but " + said
		} else {
			r.Message += "; " + said
		}
		switch {
		case sum["undumped"] > 0:
			r.Message += " (its data ends below the high watermark the cut recorded: the folder was edited or put back from an older copy; dump again while Kafka still has them)"
			r.Status = StatusFail
		default:
			r.Message += " (the dump stopped there: --until)"
			if r.Status == StatusOK {
				r.Status = StatusWarn
			}
		}
	}
	if len(uncut) > 0 {
		// The data of a history no cut describes: how far Kafka's log
		// went is not known, so the verdict is not OK.
		var where []string
		var ps []int32
		for _, h := range uncut {
			ps = append(ps, h.partition)
			where = append(where, fmt.Sprintf("partition %d (its data ends before offset %d; the rewrite was found by the dump of cut %s, which did not finish)", h.partition, h.from, h.cut))
		}
		if len(where) > 3 {
			where = append(where[:3], fmt.Sprintf("%d more", len(where)-3))
		}
		r.Message += fmt.Sprintf("; not judged: whether Kafka held more than the folder on %s, whose log was rewritten after its last complete cut: %s; dump the topic again",
			plural(int64(len(uncut)), "partition", "partitions"), strings.Join(where, ", "))
		r.Summary.Set("uncut_partitions", ps)
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
	}
	var explained []string
	if control > 0 {
		explained = append(explained, plural(control, "transaction marker", "transaction markers"))
	}
	if aborted > 0 {
		explained = append(explained, plural(aborted, "aborted record", "aborted records"))
	}
	if sum["compacted"] > 0 {
		explained = append(explained, plural(sum["compacted"], "compacted offset", "compacted offsets"))
	}
	if sum["expired"] > 0 {
		explained = append(explained, plural(sum["expired"], "offset Kafka deleted (retention or DeleteRecords) before it was read", "offsets Kafka deleted (retention or DeleteRecords) before they were read"))
	}
	if len(explained) > 0 {
		r.Message += "; explained: " + strings.Join(explained, ", ")
	}
	return r, nil
}

// splitHole classifies a hole's offsets: those inside lost ranges are
// expired (of the range's kind), the rest compacted on a compacted topic,
// missing otherwise.
func splitHole(h hole, lost []catalog.LostRange, compacted bool) []hole {
	rest := []hole{h}
	var out []hole
	for _, l := range lost {
		var next []hole
		for _, r := range rest {
			lo, hi := max(r.from, l.From), min(r.to, l.To)
			if lo > hi {
				next = append(next, r)
				continue
			}
			out = append(out, hole{partition: r.partition, from: lo, to: hi, kind: l.Kind})
			if r.from < lo {
				next = append(next, hole{partition: r.partition, from: r.from, to: lo - 1})
			}
			if hi < r.to {
				next = append(next, hole{partition: r.partition, from: hi + 1, to: r.to})
			}
		}
		rest = next
	}
	for _, r := range rest {
		r.kind = "missing"
		if compacted {
			r.kind = "compacted"
		}
		out = append(out, r)
	}
	return out
}

// gapsCharts draws the folder's offset coverage of the topic beside the
// report: what was snapshotted, and what Kafka deleted first.
func gapsCharts(ctx context.Context, in ChartInput) ([]chart.Chart, error) {
	cov, err := in.Coverage(ctx, in.Options.Topic)
	if err != nil {
		return nil, err
	}
	return []chart.Chart{{Title: "Offset coverage", Note: "snapshotted offset ranges per partition; red ranges were deleted by Kafka before they were dumped",
		SVG: chart.Coverage(in.Options.Topic, cov)}}, nil
}
