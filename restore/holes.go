package restore

import (
	"fmt"
	"strings"
)

// hole is a range of source offsets of a partition's planned range that
// no data file of its manifest holds: deleted by Kafka before they were
// dumped (kind: the lost range's), or not known to be (kind "").
type hole struct {
	from, to int64 // inclusive
	kind     string
}

// planHoles are the holes between the data files of pl's planned range
// (and after the last, up to its end), split by the manifest's lost ranges.
// Offsets inside a file are the file's: RowCheck holds them to its entry.
func planHoles(pl *plan) []hole {
	p := pl.part
	var raw []hole
	at := p.From
	for _, f := range pl.m.Files {
		if f.LastOffset < p.From || f.FirstOffset >= p.Until {
			continue
		}
		if f.FirstOffset > at {
			raw = append(raw, hole{from: at, to: f.FirstOffset - 1})
		}
		at = max(at, f.LastOffset+1)
	}
	if len(raw) == 0 && at >= p.Until {
		return nil
	}
	if at < p.Until {
		raw = append(raw, hole{from: at, to: p.Until - 1})
	}
	var out []hole
	for _, h := range raw {
		rest := []hole{h}
		for _, l := range pl.m.Lost {
			var next []hole
			for _, r := range rest {
				lo, hi := max(r.from, l.From), min(r.to, l.To)
				if lo > hi {
					next = append(next, r)
					continue
				}
				out = append(out, hole{from: lo, to: hi, kind: l.Kind})
				if r.from < lo {
					next = append(next, hole{from: r.from, to: lo - 1})
				}
				if hi < r.to {
					next = append(next, hole{from: hi + 1, to: r.to})
				}
			}
			rest = next
		}
		out = append(out, rest...)
	}
	return out
}

// sayHoles warns, per partition, of the offsets of the planned range the
// restore will not produce because the folder holds no record of them:
// those Kafka deleted before the dump (a lost range), and, unless the
// source topic was compacted at its last cut (the log cleaner leaves such
// holes), those no lost range explains: a file taken out of the folder
// with its manifest entry. `check gaps` says the same of the folder; a
// restore never passes over them in silence.
func sayHoles(opts Options, src *source, plans []*plan, warn func(string)) {
	compacted, known, policy := false, false, ""
	if src.snap != nil {
		if pol, ok := src.snap.Configs["cleanup.policy"]; ok {
			compacted, known, policy = strings.Contains(pol, "compact"), true, pol
		}
	}
	for _, pl := range plans {
		var lost, missing []string
		var nLost, nMissing int64
		for _, h := range planHoles(pl) {
			n := h.to - h.from + 1
			switch {
			case h.kind != "":
				nLost += n
				lost = appendRange(lost, h, " "+h.kind)
			case !compacted:
				nMissing += n
				missing = appendRange(missing, h, "")
			}
		}
		tp := fmt.Sprintf("%s/%d", opts.Topic, pl.m.Partition)
		if nMissing > 0 {
			why := fmt.Sprintf("topic %s was not compacted at its last cut (cleanup.policy=%s)", opts.Topic, policy)
			if !known {
				why = fmt.Sprintf("the folder does not say whether topic %s was compacted (no cluster snapshot records its cleanup.policy)", opts.Topic)
			}
			warn(fmt.Sprintf("%s: %s (%s) %s in no data file of %s and in no lost range, and %s: the folder lacks those records (a data file taken out with its manifest entry?), so they are not restored; topicsnap check gaps --dir %s --topic %s names them",
				tp, plural(nMissing, "offset"), strings.Join(missing, ", "), isAre(nMissing), opts.Dir, why, opts.Dir, opts.Topic))
		}
		if nLost > 0 {
			warn(fmt.Sprintf("%s: %s (%s) %s in lost ranges of the manifest (deleted by Kafka before the dump, or not found by an import): not in the snapshot, so not restored",
				tp, plural(nLost, "offset"), strings.Join(lost, ", "), isAre(nLost)))
		}
	}
}

// appendRange adds h as "FROM-TO" (or "AT") to rs, past 5 ranges as one
// "and N more".
func appendRange(rs []string, h hole, note string) []string {
	const shown = 5
	s := fmt.Sprintf("%d-%d%s", h.from, h.to, note)
	if h.from == h.to {
		s = fmt.Sprintf("%d%s", h.from, note)
	}
	switch {
	case len(rs) < shown:
		return append(rs, s)
	case len(rs) == shown:
		return append(rs, "and 1 more range")
	}
	var n int
	fmt.Sscanf(rs[shown], "and %d more", &n)
	rs[shown] = fmt.Sprintf("and %d more ranges", n+1)
	return rs
}

func isAre(n int64) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func plural(n int64, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
