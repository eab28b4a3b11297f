package queries

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/topicsnap/topicsnap/catalog"
)

// currentCuts returns the cuts of topic that recorded the topic as it is
// today: a topic deleted and made again under its name is another topic (another
// id), and the cuts of the old one say nothing of today's partitions. They
// are the cuts after the last one whose topic id is known and differs from
// the latest known id (every cut of topic when no two known ids differ: a
// cut written by older code records none, and then nothing tells the
// topics apart), oldest first.
func currentCuts(topic string, snaps []*catalog.ClusterSnapshot) []*catalog.ClusterSnapshot {
	var cuts []*catalog.ClusterSnapshot
	for _, s := range snaps {
		if s.Topic == topic {
			cuts = append(cuts, s)
		}
	}
	sort.SliceStable(cuts, func(i, j int) bool {
		if !cuts[i].AsOf.Equal(cuts[j].AsOf) {
			return cuts[i].AsOf.Before(cuts[j].AsOf)
		}
		return cuts[i].ID < cuts[j].ID
	})
	cur := ""
	for i := len(cuts) - 1; i >= 0 && cur == ""; i-- {
		cur = cuts[i].TopicID
	}
	for i := len(cuts) - 1; i >= 0; i-- {
		if id := cuts[i].TopicID; id != "" && id != cur {
			return cuts[i+1:]
		}
	}
	return cuts
}

// hasCut reports whether the folder holds a cut of topic (a dump writes
// one each run; an import writes none).
func (e *Engine) hasCut(topic string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, s := range e.snaps {
		if s.Topic == topic {
			return true
		}
	}
	return false
}

// noCutSentence says that the folder holds no cut of topic, and why that
// may be.
func noCutSentence(topic string) string {
	return fmt.Sprintf("the folder holds no cut of %s (the cluster's state at a dump: imported topics have none, and a folder handed over may lack its snapshots folder)", topic)
}

// firstCurrentCut is the id of the first cut of topic as it is today
// (currentCuts), "" when there is none: cut ids sort as their times.
func (e *Engine) firstCurrentCut(topic string) string {
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	if cs := currentCuts(topic, snaps); len(cs) > 0 {
		return cs[0].ID
	}
	return ""
}

// partitionCount is topic's partition count today: the largest a cut of
// the topic as it is today recorded (partitions are only ever added to a
// topic; one made again with fewer is another topic, see currentCuts),
// else, when no cut recorded one, one past the highest partition the
// folder holds that is not an old topic's vanished one.
func (e *Engine) partitionCount(ctx context.Context, topic string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	tf, _ := e.topicFilesOf(topic)
	return currentPartitionCount(topic, tf.manifests, snaps), nil
}

// currentPartitionCount is partitionCount of topic, whose manifests are
// ms, the folder's cuts snaps.
func currentPartitionCount(topic string, ms []*catalog.Manifest, snaps []*catalog.ClusterSnapshot) int64 {
	var n int64
	for _, s := range currentCuts(topic, snaps) {
		n = max(n, int64(s.PartitionCount))
	}
	if n > 0 {
		return n
	}
	for _, m := range ms {
		if !recreatedAway(m) {
			n = max(n, int64(m.Partition)+1)
		}
	}
	return n
}

// OldTopicPartitions returns the partitions among ms (the manifests of
// topic) that are an old topic's only: the topic was deleted and made
// again with fewer partitions, and the dump superseded all their files
// (history, in the view "T$superseded"), with snaps the folder's cuts.
// Nothing counts them among the topic's partitions (ls, the server's
// topic list, the checks: currentManifests).
func OldTopicPartitions(topic string, ms []*catalog.Manifest, snaps []*catalog.ClusterSnapshot) []int32 {
	n := currentPartitionCount(topic, ms, snaps)
	cur := currentManifests(ms, n)
	var old []int32
	for _, m := range ms {
		if !slices.Contains(cur, m) {
			old = append(old, m.Partition)
		}
	}
	slices.Sort(old)
	return old
}

// recreatedAway reports whether m is a partition of an old topic only: a
// topic made again under its name lacks it, and the dump superseded all
// its files (dump's supersedeVanished: a topic-recreated rewrite, no
// current file).
func recreatedAway(m *catalog.Manifest) bool {
	return len(m.Files) == 0 && len(m.Rewrites) > 0 && m.Rewrites[len(m.Rewrites)-1].Kind == catalog.RewriteRecreated
}

// currentManifests returns the manifests of ms that are partitions of the
// topic today (n partitions; 0: unknown, every partition with a current
// file or none vanished): an old topic's partition that the topic made
// again lacks is history (its rewrites said as such), never a partition
// to judge.
func currentManifests(ms []*catalog.Manifest, n int64) []*catalog.Manifest {
	out := make([]*catalog.Manifest, 0, len(ms))
	for _, m := range ms {
		if recreatedAway(m) && (n == 0 || int64(m.Partition) >= n) {
			continue
		}
		out = append(out, m)
	}
	return out
}
