package dump

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// divergence is where a partition's log no longer is the history the
// folder dumped, as divergenceOf finds it.
type divergence struct {
	kind     string
	first    int64 // first offset that may differ
	oldEpoch int32 // leader epoch of the last record dumped, -1 unknown
	epochEnd int64 // the leader's end offset of oldEpoch, -1 unknown
}

// checkRewrites looks, before an incremental dump appends to partitions
// that already have records in the folder, whether Kafka still holds the
// history the folder dumped, the way a consumer does after a leader change
// (KIP-320): each partition's leader is asked (one request per leader) for
// the end offset of the leader epoch of the last record dumped
// (OffsetForLeaderEpoch). An end below the next offset to dump, or an
// epoch the leader does not know, is a log truncated after the dump read
// it (an unclean leader election, a leader that lost its tail); an end
// offset of the log below the next offset to dump is a log whose offsets
// will be reused; a topic id other than the last cut's is a topic deleted
// and made again under its name. Either way the records at those offsets
// now are another history: the files from the divergence on are moved to
// the manifest's superseded files, the rewrite is recorded, and the
// manifest committed with its next offset set back to where the dump reads
// again, before anything is read. Two histories are never merged.
func (d *dumper) checkRewrites(ctx context.Context, c *cut, ms []*catalog.Manifest, known map[int32]epochEnd, sum *Summary) error {
	epochs, err := d.lastEpochEnds(ctx, c, ms, known)
	if err != nil {
		return err
	}
	ends := endsOf(epochs)
	for _, m := range ms {
		if !rewriteChecked(m) {
			continue
		}
		if dv := divergenceOf(c, m, ends); dv != nil {
			if err := d.recordRewrite(ctx, c, m, *dv); err != nil {
				return err
			}
			sum.Rewrites++
			sum.RewrittenOffsets += m.Rewrites[len(m.Rewrites)-1].Len()
		}
	}
	return nil
}

// rewriteChecked reports whether checkRewrites looks at m: a partition
// with records in the folder.
func rewriteChecked(m *catalog.Manifest) bool { return m.NextOffset > 0 && len(m.Files) > 0 }

// epochEnd is the leader's end offset of the epoch asked (-1: an epoch it
// does not know).
type epochEnd struct {
	epoch int32
	end   int64
}

// lastEpochEnds asks the leaders (one request per leader) for the end of
// the leader epoch of the last record dumped of each partition of ms that
// has one, unless known already holds the answer for that epoch. A leader
// that does not know the epoch answers the latest one below it that it
// knows and where that ends (a leader elected uncleanly that never had the
// folder's later epochs: a history that flipped back): the folder and the
// leader share that epoch's history only up to where the folder's records
// of it end, so the end is the smaller of the two. Taking the leader's
// alone merged two histories: the folder's records of the later epochs
// below it were taken for Kafka's.
func (d *dumper) lastEpochEnds(ctx context.Context, c *cut, ms []*catalog.Manifest, known map[int32]epochEnd) (map[int32]epochEnd, error) {
	out := map[int32]epochEnd{}
	byPart := map[int32]*catalog.Manifest{}
	var req kadm.OffsetForLeaderEpochRequest
	for _, m := range ms {
		if !rewriteChecked(m) {
			continue
		}
		e := m.Files[len(m.Files)-1].LastLeaderEpoch
		if e == nil || *e < 0 {
			continue
		}
		if k, ok := known[m.Partition]; ok && k.epoch == *e {
			out[m.Partition] = k
			continue
		}
		req.Add(m.Topic, m.Partition, *e)
		byPart[m.Partition] = m
	}
	if len(req) == 0 {
		return out, nil
	}
	ends, err := d.epochEnds(ctx, c.state.Topic, req)
	if err != nil {
		return nil, err
	}
	for p, e := range req[c.state.Topic] {
		le := ends[p]
		end := le.end
		if end >= 0 && le.epoch >= 0 && le.epoch < e {
			past, err := d.dir.FirstOffsetPastEpoch(ctx, byPart[p], le.epoch)
			if err != nil {
				return nil, fmt.Errorf("check that %s still holds the history dumped: %w", byPart[p].TP(), err)
			}
			end = min(end, past)
		}
		out[p] = epochEnd{epoch: e, end: end}
	}
	return out, nil
}

// endsOf is the end offsets of epochs, by partition, as divergenceOf takes them.
func endsOf(epochs map[int32]epochEnd) map[int32]int64 {
	out := make(map[int32]int64, len(epochs))
	for p, e := range epochs {
		out[p] = e.end
	}
	return out
}

// divergenceOf finds where the log diverged from the folder's history, or
// nil when it did not; ends are the leader's end offsets of the epochs
// asked (-1: an epoch it does not know).
func divergenceOf(c *cut, m *catalog.Manifest, ends map[int32]int64) *divergence {
	p := m.Partition
	next := m.NextOffset
	last := m.Files[len(m.Files)-1]
	dv := divergence{first: next, oldEpoch: -1, epochEnd: -1}
	if end, ok := ends[p]; ok && last.LastLeaderEpoch != nil {
		dv.oldEpoch, dv.epochEnd = *last.LastLeaderEpoch, end
		switch {
		case end < 0:
			// The leader does not know the epoch: its log holds none of
			// the last file's history, which is read again whole.
			dv.kind, dv.first = catalog.RewriteTruncated, last.FirstOffset
		case end < next:
			dv.kind, dv.first = catalog.RewriteTruncated, end
		}
	}
	moved := func(to int64) {
		if to < dv.first {
			if dv.kind == "" {
				dv.kind = catalog.RewriteEndBack
			}
			dv.first = to
		}
	}
	// The log's end below the next offset: records the folder holds are
	// gone, and the next ones will take their offsets. (A log start below
	// the one the last cut saw is no such sign: each replica deletes its
	// own segments, so a clean leader change can move it back.)
	moved(c.ends[p])
	// A topic made again under the same name has another id: none of the
	// folder's offsets is known to be Kafka's record any more.
	if n := len(m.Snapshots); n > 0 && m.Snapshots[n-1].TopicID != "" && c.state.TopicID != "" && m.Snapshots[n-1].TopicID != c.state.TopicID {
		dv.kind, dv.first = catalog.RewriteRecreated, m.Files[0].FirstOffset
	}
	if dv.kind == "" {
		return nil
	}
	dv.first = max(dv.first, m.Files[0].FirstOffset)
	if dv.first >= next {
		return nil
	}
	return &dv
}

// leaderEnd is a leader's answer to OffsetForLeaderEpoch: the epoch it
// answers for (the one asked, or the latest below it the leader knows)
// and where that epoch ends; -1 and -1 for an epoch it does not know.
type leaderEnd struct {
	epoch int32
	end   int64
}

// epochEnds asks the leaders for the end offsets of the epochs in req.
// Retriable answers (a leader moving) are asked again for a while.
func (d *dumper) epochEnds(ctx context.Context, topic string, req kadm.OffsetForLeaderEpochRequest) (map[int32]leaderEnd, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := map[int32]leaderEnd{}
		res, err := d.adm.OffsetForLeaderEpoch(ctx, req)
		perr := err
		if err == nil {
			for p := range req[topic] {
				r, ok := res[topic][p]
				switch {
				case !ok:
					perr = fmt.Errorf("no answer for partition %d", p)
				case r.Err != nil:
					perr = fmt.Errorf("partition %d: %w", p, r.Err)
				case r.LeaderEpoch < 0 || r.EndOffset < 0:
					out[p] = leaderEnd{epoch: -1, end: -1}
				default:
					out[p] = leaderEnd{epoch: r.LeaderEpoch, end: r.EndOffset}
				}
			}
		}
		if perr == nil {
			return out, nil
		}
		if ae := d.denied(fmt.Sprintf("ask the leaders of topic %q for the end of a leader epoch", topic), topic, "DESCRIBE", perr); ae != nil {
			return nil, ae
		}
		var ke *kerr.Error
		retriable := errors.As(perr, &ke) && ke.Retriable || transient(perr)
		if !retriable || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("check that %s still holds the history dumped (OffsetForLeaderEpoch): %w", topic, kafkaconn.Classify(perr))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// recordRewrite moves the files of the old history from dv.first on
// (whole: a file dv.first falls in is superseded and its earlier offsets
// read again) to m.Superseded, records the rewrite, and commits the
// manifest with the next offset set back to where the dump reads again.
func (d *dumper) recordRewrite(ctx context.Context, c *cut, m *catalog.Manifest, dv divergence) error {
	rw, files, superseded := planRewrite(c, m, dv)
	var lost []catalog.LostRange
	for _, l := range m.Lost {
		if l.To >= rw.Redumped {
			rw.SupersededLost = append(rw.SupersededLost, l)
		} else {
			lost = append(lost, l)
		}
	}
	m.Lost = lost
	m.Superseded = append(m.Superseded, superseded...)
	m.Files = files
	m.Rewrites = append(m.Rewrites, rw)
	m.NextOffset = rw.Redumped
	if err := d.dir.WriteManifest(ctx, m); err != nil {
		return fmt.Errorf("record the rewritten log of %s: %w", m.TP(), err)
	}
	d.warn(fmt.Sprintf("%s: the log was rewritten after it was dumped (%s): offsets %d-%d of the folder are another history than Kafka's now (leader epoch %d, the leader ends it at %d; epoch now %d); both versions are kept (check gaps, check durability)",
		m.TP(), dv.kind, rw.First, rw.Last, rw.OldEpoch, rw.EpochEnd, rw.NewEpoch))
	return nil
}

// planRewrite is the rewrite dv makes of m: the files kept (those ending
// before dv.first) and the files superseded (whole: one dv.first falls in
// has its earlier offsets read again).
func planRewrite(c *cut, m *catalog.Manifest, dv divergence) (rw catalog.Rewrite, files, superseded []catalog.FileEntry) {
	redump := dv.first
	keep := len(m.Files)
	for keep > 0 && m.Files[keep-1].LastOffset >= dv.first {
		keep--
		redump = min(redump, m.Files[keep].FirstOffset)
	}
	newEpoch := int32(-1)
	for _, ps := range c.state.Partitions {
		if ps.Partition == m.Partition {
			newEpoch = ps.LeaderEpoch
		}
	}
	rw = catalog.Rewrite{Kind: dv.kind, First: dv.first, Last: m.NextOffset - 1, Redumped: redump,
		OldEpoch: dv.oldEpoch, NewEpoch: newEpoch, EpochEnd: dv.epochEnd, History: m.History() + 1,
		DetectedAt: c.asOf, Snapshot: c.id}
	return rw, m.Files[:keep:keep], append([]catalog.FileEntry(nil), m.Files[keep:]...)
}

// supersedeVanished handles the partitions a topic made again with fewer
// partitions no longer has: the folder holds records of the old topic's
// partition N, which the new topic (another topic id) lacks. Left alone,
// they stayed in the current views as if Kafka still held them, and a
// restore mixed them into the new topic. Each is recorded as a rewrite of
// kind topic-recreated (its files superseded, kept in T$superseded), under
// its lock, as a partition whose topic was made again is. A partition
// whose last dump recorded no topic id, or the current one, is left alone:
// nothing says it is another topic's.
func (d *dumper) supersedeVanished(ctx context.Context, c *cut, sum *Summary) error {
	if d.parts != nil || c.state.TopicID == "" {
		return nil // only the partitions asked for are this dump's
	}
	have, err := d.dir.PartitionFolders(ctx, c.state.Topic)
	if err != nil {
		return err
	}
	current := map[int32]bool{}
	for _, ps := range c.state.Partitions {
		current[ps.Partition] = true
	}
	for _, p := range have {
		if current[p] {
			continue
		}
		tp := catalog.TopicPartition{Topic: c.state.Topic, Partition: p}
		m, err := d.dir.ReadManifest(ctx, tp)
		if err != nil || !anotherTopic(c, m) {
			continue // a damaged manifest is named by the readers; nothing is decided from it
		}
		if !d.holds(tp) {
			if err := d.lock(ctx, tp); err != nil {
				return err
			}
			if m, err = d.dir.ReadManifest(ctx, tp); err != nil {
				return err
			}
			if !anotherTopic(c, m) {
				continue
			}
		}
		dv := divergence{kind: catalog.RewriteRecreated, first: m.Files[0].FirstOffset, oldEpoch: -1, epochEnd: -1}
		if err := d.recordRewrite(ctx, c, m, dv); err != nil {
			return err
		}
		sum.Rewrites++
		sum.RewrittenOffsets += m.Rewrites[len(m.Rewrites)-1].Len()
	}
	return nil
}

// anotherTopic reports whether m holds records dumped from a topic of
// another id than the cut's (the same name, made again).
func anotherTopic(c *cut, m *catalog.Manifest) bool {
	n := len(m.Snapshots)
	return rewriteChecked(m) && n > 0 && m.Snapshots[n-1].TopicID != "" && m.Snapshots[n-1].TopicID != c.state.TopicID
}
