package queries

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/display"
)

func init() {
	register(&Check{
		Name:      "durability",
		ReadsCuts: true,
		Empty:     EmptyNotedKeepsFail,
		Summary:   "could Kafka have lost records without a hole: replication factor, min.insync.replicas, unclean election, ISR below the minimum at a cut, leader elections, records without idempotence, offsets rewritten after a dump",
		Order:     15,
		run:       checkDurability,
	})
}

// What the durability check cannot see, said in every verdict.
const (
	// notSeenAcks: acks is a producer's setting; no record says it.
	notSeenAcks = "acks (a producer's setting, not in the log: with acks=1 a record the leader confirmed can vanish with it whatever the topic's settings)"
)

// checkDurability judges, per partition, whether a path to silent loss was
// open while the cuts watched: the topic's settings as the cuts recorded
// them (a cut records the value Kafka answered for the topic, its own or
// the broker's default, without saying which; a setting no cut recorded is
// unknown), the ISR against min.insync.replicas at each cut, the leader
// epochs the cuts and records show, and the records written without
// idempotence.
func checkDurability(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	n, err := e.partitionCount(ctx, o.Topic)
	if err != nil {
		return nil, err
	}
	parts, err := e.run(ctx, "durability", views(o.Topic), o.Topic, n)
	if err != nil {
		return nil, err
	}
	var cuts int64
	if len(parts) > 0 {
		cuts = asInt(parts[0].Get("topic_cuts"))
	}
	// Offsets the dump found rewritten after it read them (a truncated
	// log), from the manifests the engine loaded.
	rewrittenBy, recreatedBy := map[int64]int64{}, map[int64]int64{}
	tf, _ := e.topicFilesOf(o.Topic)
	for _, m := range tf.manifests {
		// A topic deleted and made again (another topic id) is someone's
		// doing, not a broker's loss: said apart, a warning.
		for _, rw := range m.Rewrites {
			if rw.Kind == catalog.RewriteRecreated {
				recreatedBy[int64(m.Partition)] += rw.Len()
			} else {
				rewrittenBy[int64(m.Partition)] += rw.Len()
			}
		}
	}
	r := &Report{Summary: NewRow()}
	var (
		rewritten                                        int64
		rewrittenOn                                      []string
		recreatedOn                                      []string
		recreated                                        int64
		atRisk, toWatch, records, nonIdem, leaderChanges int64
		below                                            any
		minRF                                            any
		minISR, unclean                                  any
		rfOne, lowISR, uncleanOne, unseen, changed       []string
		sameLeader                                       []string // of changed: the cuts saw one broker leading
		noEpoch                                          []string
		unjudged                                         int64
		epochsSeen                                       bool
	)
	for i, p := range parts {
		part := asInt(p.Get("partition"))
		rf, misr, ucl := intOrNil(p.Get("replication_factor")), intOrNil(p.Get("min_insync_replicas")), boolOrNil(p.Get("unclean_leader_election"))
		if i == 0 {
			minISR, unclean = misr, ucl
		}
		bl := intOrNil(p.Get("isr_below_min_cuts"))
		first, last := intOrNil(p.Get("first_leader_epoch")), intOrNil(p.Get("last_leader_epoch"))
		var changes any
		if first != nil && last != nil {
			// Each election bumps the epoch by one, whoever it elects (a
			// broker restarted and elected again bumps it too): the span
			// counts those no cut or record happened to see.
			changes = last.(int64) - first.(int64)
			leaderChanges += changes.(int64)
			epochsSeen = true
		}
		n, ni := asInt(p.Get("records")), asInt(p.Get("non_idempotent_records"))
		records += n
		nonIdem += ni
		var share any
		if n > 0 {
			share = round4(float64(ni) / float64(n))
		}
		var fails, warns []string
		name := fmt.Sprint(part)
		switch {
		case rf == nil:
			warns = append(warns, "no cut saw its replicas")
			unseen = append(unseen, name)
		case rf.(int64) == 1:
			fails = append(fails, "replication factor 1: one broker held the only copy")
			rfOne = append(rfOne, name)
		case rf.(int64) < 3:
			warns = append(warns, fmt.Sprintf("replication factor %d", rf))
		}
		if minRF == nil || (rf != nil && rf.(int64) < minRF.(int64)) {
			if rf != nil {
				minRF = rf
			}
		}
		switch {
		case misr == nil:
			warns = append(warns, "min.insync.replicas not recorded")
		case misr.(int64) <= 1 && ucl == true:
			fails = append(fails, "min.insync.replicas 1 with unclean leader election on")
			uncleanOne = append(uncleanOne, name)
		case misr.(int64) <= 1:
			warns = append(warns, fmt.Sprintf("min.insync.replicas %d", misr))
		}
		switch ucl {
		case nil:
			warns = append(warns, "unclean.leader.election.enable not recorded")
		case true:
			if misr == nil || misr.(int64) > 1 {
				warns = append(warns, "unclean leader election on")
			}
		}
		if skipped := asInt(p.Get("cuts")) - asInt(p.Get("isr_judged_cuts")); skipped > 0 && misr != nil {
			// Some cuts recorded min.insync.replicas, this one did not.
			warns = append(warns, fmt.Sprintf("ISR not judged at %s that recorded no min.insync.replicas", plural(skipped, "cut", "cuts")))
			unjudged += skipped
		}
		if bl != nil {
			if below == nil {
				below = int64(0)
			}
			below = below.(int64) + bl.(int64)
			if bl.(int64) > 0 {
				fails = append(fails, fmt.Sprintf("ISR below min.insync.replicas at %s", plural(bl.(int64), "cut", "cuts")))
				lowISR = append(lowISR, name)
			}
		}
		if changes == nil {
			warns = append(warns, "no leader epoch seen")
			noEpoch = append(noEpoch, name)
		}
		sameBroker := intOrNil(p.Get("same_cut_leader"))
		if changes != nil && changes.(int64) > 0 {
			f := fmt.Sprintf("%s (leader epochs %d to %d)", plural(changes.(int64), "leader election", "leader elections"), first, last)
			if sameBroker != nil {
				f += fmt.Sprintf("; the same leader, broker %d, at every cut (leader epochs %d to %d)", sameBroker,
					intOrNil(p.Get("same_cut_leader_first_epoch")), intOrNil(p.Get("same_cut_leader_last_epoch")))
				sameLeader = append(sameLeader, name)
			}
			warns = append(warns, f)
			changed = append(changed, name)
		}
		if ni > 0 {
			warns = append(warns, fmt.Sprintf("%s without idempotence", plural(ni, "record", "records")))
		}
		if n := recreatedBy[part]; n > 0 {
			warns = append(warns, fmt.Sprintf("%s of a topic deleted and made again under its name", plural(n, "offset", "offsets")))
			recreated += n
			recreatedOn = append(recreatedOn, name)
		}
		rw := rewrittenBy[part]
		if rw > 0 {
			fails = append(fails, fmt.Sprintf("%s rewritten after they were dumped", plural(rw, "offset", "offsets")))
			rewritten += rw
			rewrittenOn = append(rewrittenOn, name)
		}
		risk := StatusOK
		switch {
		case len(fails) > 0:
			risk = StatusFail
			atRisk++
		case len(warns) > 0:
			risk = StatusWarn
			toWatch++
		}
		row := NewRow().Set("kind", "partition").Set("partition", p.Get("partition")).Set("risk", risk).
			Set("replication_factor", rf).Set("min_insync_replicas", misr).Set("unclean_leader_election", ucl).
			Set("cuts", asInt(p.Get("cuts"))).Set("isr_below_min_cuts", bl).
			Set("leader_changes", changes).Set("same_cut_leader", sameBroker).Set("leader_epochs", intOrNil(p.Get("leader_epochs"))).
			Set("first_leader_epoch", first).Set("last_leader_epoch", last).
			Set("records", n).Set("non_idempotent_records", ni).Set("non_idempotent_share", share).
			Set("rewritten_offsets", rw).Set("recreated_offsets", recreatedBy[part]).Set("findings", strings.Join(append(fails, warns...), "; "))
		r.Rows = append(r.Rows, *row)
		delete(recreatedBy, part)
		delete(rewrittenBy, part)
	}
	// An old topic's partition that the topic made again lacks is no
	// partition today (no row), but what the folder kept of it is said.
	for _, part := range slices.Sorted(maps.Keys(recreatedBy)) {
		recreated += recreatedBy[part]
		recreatedOn = append(recreatedOn, fmt.Sprint(part))
	}
	for _, part := range slices.Sorted(maps.Keys(rewrittenBy)) {
		rewritten += rewrittenBy[part]
		rewrittenOn = append(rewrittenOn, fmt.Sprint(part))
	}
	var share any
	if records > 0 {
		share = round4(float64(nonIdem) / float64(records))
	}
	notSeen := []string{"acks"}
	if unclean == nil {
		notSeen = append(notSeen, "unclean.leader.election.enable")
	}
	if minISR == nil {
		notSeen = append(notSeen, "min.insync.replicas")
	}
	r.Summary.Set("partitions", int64(len(parts))).Set("partitions_at_risk", atRisk).Set("partitions_to_watch", toWatch).
		Set("cuts", cuts).Set("replication_factor", minRF).Set("min_insync_replicas", minISR).Set("unclean_leader_election", unclean).
		Set("isr_below_min_cuts", below).Set("isr_unjudged_cuts", unjudged).Set("leader_changes", leaderChangesOrNil(epochsSeen, leaderChanges)).
		Set("records", records).Set("non_idempotent_records", nonIdem).Set("non_idempotent_share", share).
		Set("rewritten_offsets", rewritten).Set("recreated_offsets", recreated).Set("not_seen", notSeen)

	// The verdict: what opened a path to silent loss, then the weaker
	// findings, then what the check could not see.
	var said []string
	on := func(ps []string) string {
		return plural(int64(len(ps)), "partition", "partitions") + " (" + strings.Join(first10(ps), ", ") + ")"
	}
	if len(rfOne) > 0 {
		said = append(said, "replication factor 1 on "+on(rfOne)+": one broker held the only copy, and a broken disk or an unclean restart loses records without a hole")
	}
	if len(uncleanOne) > 0 {
		said = append(said, "min.insync.replicas 1 with unclean leader election on, "+on(uncleanOne)+": an out-of-sync replica may become leader and the next records take the lost ones' offsets")
	}
	if len(rewrittenOn) > 0 {
		said = append(said, fmt.Sprintf("%s rewritten after they were dumped on %s: Kafka truncated its log there (an unclean leader election, a leader that lost its tail) and wrote other records at the same offsets; the records dumped from the old history are kept in the view %s, Kafka no longer has them",
			plural(rewritten, "offset was", "offsets were"), on(rewrittenOn), quoteIdent(o.Topic+"$superseded")))
	}
	if len(lowISR) > 0 {
		said = append(said, fmt.Sprintf("the ISR was below min.insync.replicas (%v) at %s on %s: writes with acks=all were refused then, writes with acks=1 were at risk", minISR, plural(below.(int64), "cut", "cuts"), on(lowISR)))
	}
	var weak []string
	if len(recreatedOn) > 0 {
		weak = append(weak, fmt.Sprintf("the topic was deleted and made again under its name (another topic id) after %s on %s were dumped: someone's doing, not a broker's loss; the old records are kept in the view %s",
			plural(recreated, "offset", "offsets"), on(recreatedOn), quoteIdent(o.Topic+"$superseded")))
	}
	switch {
	case cuts == 0:
		weak = append(weak, "no cut recorded the topic, so its replicas, ISR and settings are unknown (a dump records one)")
	case len(unseen) > 0:
		weak = append(weak, "no cut saw the replicas of "+on(unseen))
	}
	switch {
	case minRF != nil && minRF.(int64) == 2:
		weak = append(weak, "replication factor 2 (3 survives one broken machine while another is down)")
	}
	// A setting no cut recorded: the cuts could not read the topic's
	// configs (say why), or were taken before topicsnap recorded it.
	unreadConfigs, whyUnread := e.configsUnread(o.Topic)
	if unreadConfigs > 0 {
		r.Summary.Set("cuts_without_configs", int64(unreadConfigs))
	}
	notRecorded := func(key, older string) string {
		if unreadConfigs > 0 {
			return fmt.Sprintf("%s not recorded by any cut (%s could not read the topic's configs: %s)", key,
				plural(int64(unreadConfigs), "cut", "cuts"), whyUnread)
		}
		return key + " not recorded by any cut" + older
	}
	bothUnread := cuts > 0 && minISR == nil && unclean == nil && unreadConfigs > 0
	switch {
	case cuts == 0:
	case bothUnread:
		weak = append(weak, notRecorded("min.insync.replicas and unclean.leader.election.enable", ""))
	case minISR == nil:
		weak = append(weak, notRecorded("min.insync.replicas", ""))
	case minISR.(int64) <= 1 && unclean != true:
		weak = append(weak, fmt.Sprintf("min.insync.replicas %d (with acks=all, a write is kept by the leader alone when the others fall behind)", minISR))
	}
	switch {
	case cuts == 0:
	case bothUnread:
	case unclean == nil:
		weak = append(weak, notRecorded("unclean.leader.election.enable", " (cuts of dumps older than topicsnap's recording of it)"))
	case unclean == true && minISR != nil && minISR.(int64) > 1:
		weak = append(weak, "unclean leader election on")
	}
	if unjudged > 0 {
		weak = append(weak, fmt.Sprintf("the ISR was not judged at %s (cuts that recorded no min.insync.replicas, counted per partition)", plural(unjudged, "cut", "cuts")))
	}
	if len(noEpoch) > 0 {
		weak = append(weak, "no cut or record showed a leader epoch of "+on(noEpoch)+", so leader elections are unknown there")
	}
	if len(changed) > 0 {
		// An election bumps the epoch whoever it elects: one that gives the
		// leadership back to the same broker (a restart) is still one.
		same := ""
		switch {
		case len(sameLeader) == len(changed) && len(changed) == 1:
			same = "; there, the cuts saw the same broker leading before and after (elected again, as after its restart)"
		case len(sameLeader) == len(changed):
			same = "; on each, the cuts saw the same broker leading before and after (elected again, as after its restart)"
		case len(sameLeader) > 0:
			same = "; on " + on(sameLeader) + ", the cuts saw the same broker leading before and after (elected again, as after its restart)"
		}
		weak = append(weak, fmt.Sprintf("%s on %s (each bumps the leader epoch, even one that elects the same broker again; a leader elected while in sync loses nothing; one that was not, or a record written with acks=1, can)%s", plural(leaderChanges, "leader election", "leader elections"), on(changed), same))
	}
	if nonIdem > 0 {
		weak = append(weak, fmt.Sprintf("%s of %s (%.1f%%) written without idempotence, which a retry can duplicate or reorder", plural(nonIdem, "record", "records"), display.Number(float64(records)), 100*float64(nonIdem)/float64(records)))
	}
	// A cut that could not be read is no cut seen: it may be this topic's,
	// and the one with the ISR short.
	if bad := e.unreadableCuts(o.Topic); bad > 0 {
		weak = append(weak, plural(int64(bad), "cut of the folder could not be read and is", "cuts of the folder could not be read and are")+
			" not judged (topicsnap catalog verify names them)")
		r.Summary.Set("unreadable_cuts", int64(bad))
	}
	cannot := "; not seen: " + notSeenAcks
	switch {
	case atRisk > 0:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("%s at risk of silent loss: %s", plural(atRisk, "partition was", "partitions were"), strings.Join(said, "; "))
		if len(weak) > 0 {
			r.Message += "; also " + strings.Join(weak, "; ")
		}
	case len(weak) > 0:
		r.Status = StatusWarn
		r.Message = "no path to silent loss seen, but " + strings.Join(weak, "; ")
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("each of %s was kept safely at every one of %s: replication factor %v, min.insync.replicas %v, no unclean leader election, the ISR never below the minimum, no leader election, every record from an idempotent producer",
			plural(int64(len(parts)), "partition", "partitions"), plural(cuts, "cut", "cuts"), minRF, minISR)
	}
	r.Message += cannot
	return r, nil
}

// configsUnread is how many cuts of topic could not read its configs
// (configs_error: no DESCRIBE_CONFIGS), and the newest one's reason.
func (e *Engine) configsUnread(topic string) (n int, why string) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var newest *catalog.ClusterSnapshot
	for _, s := range e.snaps {
		if s.Topic != topic || s.ConfigsError == "" {
			continue
		}
		n++
		if newest == nil || s.AsOf.After(newest.AsOf) {
			newest = s
		}
	}
	if newest != nil {
		why = newest.ConfigsError
	}
	return n, why
}

// unreadableCuts counts the cluster snapshots of topic the engine's last
// refresh could not read (catalog.SnapshotError, or the snapshots folder
// itself): a damaged cut hides only itself. One in topic's folder of cuts
// is topic's; one whose topic is not known (in a folder written before
// cuts were kept by topic, or the snapshots folder) may be any topic's.
func (e *Engine) unreadableCuts(topic string) int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.badCuts[""] + e.badCuts[topic]
}

// leaderChangesOrNil is the topic's leader elections (epoch bumps; the
// summary key is leader_changes, a contract), or nil when no cut or
// record showed a leader epoch: none seen is not none made.
func leaderChangesOrNil(seen bool, n int64) any {
	if !seen {
		return nil
	}
	return n
}

// first10 keeps a verdict short: the first ten names, then how many more.
func first10(names []string) []string {
	if len(names) <= 10 {
		return names
	}
	return append(append([]string(nil), names[:10]...), fmt.Sprintf("%d more", len(names)-10))
}

// intOrNil is a whole number as int64, or nil for NULL: both engines' drivers
// give their own integer types.
func intOrNil(v any) any {
	if v == nil {
		return nil
	}
	return asInt(v)
}

// boolOrNil is a boolean, or nil for NULL.
func boolOrNil(v any) any {
	if b, ok := v.(bool); ok {
		return b
	}
	return nil
}
