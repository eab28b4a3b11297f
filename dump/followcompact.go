package dump

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// FollowCompact is how a --follow dump compacts its own files as it goes:
// between rounds, at most every Every, the partitions it holds (it holds
// their locks for its whole run, so `topicsnap catalog compact` skips
// them) are compacted by catalog.Dir.CompactHeld with Target, MinAge and
// Grace, under the same commit protocol as `catalog compact`: a kill at
// any point loses and duplicates nothing.
type FollowCompact struct {
	Target int64         // largest merged file (catalog.DefaultCompactTarget when 0)
	MinAge time.Duration // leave files younger than this
	Grace  time.Duration // keep replaced files this long for readers
	Every  time.Duration // at most one compaction pass per Every
}

// compactHeld runs a compaction pass over the partitions this dump holds,
// when Every has passed since the last one; it returns the time of this
// pass (last when none ran). A failure is told (Progress.Warn) and the
// dump goes on: compaction is housekeeping, the dump's files stand as
// committed.
func (d *dumper) compactHeld(ctx context.Context, last time.Time, now time.Time) time.Time {
	fc := d.opts.Compact
	if fc == nil || (!last.IsZero() && now.Sub(last) < fc.Every) {
		return last
	}
	d.lockMu.Lock()
	tps := make([]catalog.TopicPartition, 0, len(d.locks))
	for tp := range d.locks {
		tps = append(tps, tp)
	}
	d.lockMu.Unlock()
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	st, err := d.dir.CompactHeld(ctx, tps, catalog.CompactOptions{TargetBytes: fc.Target, MinAge: fc.MinAge, Grace: fc.Grace})
	if d.opts.Progress != nil {
		if err != nil && ctx.Err() == nil {
			d.opts.Progress.Warn(fmt.Sprintf("compaction between rounds stopped: %v (the dump goes on; its files stand as committed)", err))
		} else if st.Written > 0 {
			d.opts.Progress.Waiting(fmt.Sprintf("compacted %d files into %d (%d partitions); next pass in %s", st.Merged, st.Written, st.Partitions, fc.Every))
		}
	}
	return now
}
