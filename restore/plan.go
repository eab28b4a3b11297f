package restore

import (
	"cmp"
	"context"
	"slices"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// plan is one partition's work.
type plan struct {
	m       *catalog.Manifest
	markers catalog.Markers // decides transactions left open in a file; nil when none are
	part    *Partition
}

// planRestore sets the partition's source range: from the committed
// progress, --from or the first stored offset (the latest of them) to
// --until or the end of the stored data.
func planRestore(ctx context.Context, dir *catalog.Dir, pl *plan, from, until kafkaconn.Position, progress map[int32]int64) error {
	m, p := pl.m, pl.part
	if len(m.Files) == 0 || m.NextOffset < 0 {
		return nil
	}
	p.From, p.Until = m.Files[0].FirstOffset, m.NextOffset
	switch {
	case from.IsOffset():
		p.From = max(p.From, from.Offset)
	case from.IsTime():
		off, err := offsetAtTime(ctx, dir, m, from.At)
		if err != nil {
			return err
		}
		p.From = max(p.From, off)
	}
	switch {
	case until.IsOffset():
		p.Until = min(p.Until, until.Offset)
	case until.IsTime():
		off, err := offsetAtTime(ctx, dir, m, until.At)
		if err != nil {
			return err
		}
		p.Until = min(p.Until, off)
	}
	if next, ok := progress[m.Partition]; ok && next > p.From {
		p.From, p.Resumed = next, true
	}
	p.Until = max(p.Until, p.From)
	for _, f := range m.Files {
		if f.OpenTxnRecords > 0 && f.LastOffset >= p.From && f.FirstOffset < p.Until {
			ms, err := dir.ReadMarkers(ctx, m, p.From)
			if err != nil {
				return err
			}
			pl.markers = ms
			break
		}
	}
	return nil
}

// count is the number of stored rows in the planned range, for a progress
// bar's total (the records produced are fewer by markers and aborted ones).
func (pl *plan) count(*catalog.Dir) int64 {
	var n int64
	for _, f := range pl.m.Files {
		if f.LastOffset >= pl.part.From && f.FirstOffset < pl.part.Until {
			n += f.Records - f.ControlRecords
		}
	}
	return n
}

// shareOut splits plans into n shares of about equal weight, the
// heaviest first to the lightest share, each share in partition order.
func shareOut(plans []*plan, n int, weight func(*plan) int64) [][]*plan {
	type weighed struct {
		pl *plan
		w  int64
	}
	byWeight := make([]weighed, len(plans))
	for i, pl := range plans {
		byWeight[i] = weighed{pl, weight(pl)}
	}
	slices.SortStableFunc(byWeight, func(a, b weighed) int { return cmp.Compare(b.w, a.w) })
	shares := make([][]*plan, n)
	load := make([]int64, n)
	for _, x := range byWeight {
		least := 0
		for i := range load {
			if load[i] < load[least] {
				least = i
			}
		}
		shares[least] = append(shares[least], x.pl)
		load[least] += x.w
	}
	for _, sh := range shares {
		slices.SortFunc(sh, func(a, b *plan) int { return cmp.Compare(a.m.Partition, b.m.Partition) })
	}
	return shares
}
