package queries

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

func init() {
	register(&Check{
		Name:      "lag",
		ReadsCuts: true,
		Empty:     EmptyStands,
		Summary:   "per group and partition: records and seconds behind, retention headroom, members; warns when a cut could not read every group",
		Order:     50,
		Options:   []string{"group", "limit"},
		Charts:    lagCharts,
		run:       checkLag,
	})
}

func checkLag(ctx context.Context, e *Engine, o CheckOptions) (*Report, error) {
	d := views(o.Topic)
	d.NoTimestamp = e.noTimestamp() // a record with no timestamp has no age
	// A group's commits at cuts of an old topic of the name (deleted and
	// made again) are not lag on today's.
	from := e.firstCurrentCut(o.Topic)
	ss := []stmt{
		{"lag", d, []any{o.Topic, from}},
		{"lag_members", d, []any{o.Topic}},
		// Partitions no member owns and no commit covers (after a
		// partition count change the group did not rebalance onto).
		{"lag_unowned", d, []any{o.Topic, from}},
	}
	// Two statements whose rows the cuts alone decide are run only when a
	// cut has any (each is a job, and on Spark a catalog table made, for
	// a rare answer): a cut whose principal could not read every group
	// does not prove there were none; share groups (KIP-932) commit no
	// offsets, Kafka's own count of what they have not acknowledged is
	// their answer.
	unreadAt, shareAt := -1, -1
	if e.cutsSay(o.Topic, func(s *catalog.ClusterSnapshot) bool { return s.GroupsError != "" }) {
		unreadAt, ss = len(ss), append(ss, stmt{"lag_unread", d, []any{o.Topic}})
	}
	if e.cutsSay(o.Topic, hasShareGroup) {
		shareAt, ss = len(ss), append(ss, stmt{"lag_share", d, []any{o.Topic, from}})
	}
	all, err := e.runAll(ctx, ss...)
	if err != nil {
		return nil, err
	}
	at := func(i int) []Row {
		if i < 0 {
			return nil
		}
		return all[i]
	}
	rows, members, unowned := ofGroup(all[0], o.Group), ofGroup(all[1], o.Group), all[2]
	unread, shares := at(unreadAt), ofGroup(at(shareAt), o.Group)
	// A restore's progress group on its target commits source offsets,
	// not positions in the topic: no consumer's, so no lag (lag_at says
	// the same in its reason). Named, left out.
	progress := RestoreProgressGroup(o.Topic)
	if o.Group == progress {
		r := &Report{Summary: NewRow(), Status: StatusWarn, Message: restoreProgressSentence(o.Topic) + ": no lag to judge"}
		r.Summary.Set("groups", int64(0)).Set("restore_progress_groups", int64(1))
		return r, nil
	}
	rows, progressRows := withoutGroup(rows, progress)
	members, _ = withoutGroup(members, progress)
	groups := map[string]bool{}
	var maxRec, skipped int64
	var outOfRange []Row // committed below the log start: the next fetch is out of range
	var pastEnd []Row    // committed past the end offset the cut read
	var noOffset []Row   // Kafka answered no committed offset (-1)
	maxSec, minHead := 0.0, math.Inf(1)
	var ageUnknown int64 // partitions behind whose lag in time is not known
	var knownAge bool    // some partition behind has a known lag in time
	for i := range rows {
		rows[i].Set("kind", "offset")
		groups[rows[i].Get("group_id").(string)] = true
		if rows[i].Get("committed_offset") == nil {
			noOffset = append(noOffset, rows[i])
			continue
		}
		maxRec = max(maxRec, asInt(rows[i].Get("lag_records")))
		switch sec := rows[i].Get("lag_seconds"); {
		case sec != nil:
			maxSec = math.Max(maxSec, asFloat(sec))
			knownAge = knownAge || asInt(rows[i].Get("lag_records")) > 0
		case asInt(rows[i].Get("lag_records")) > 0 && asInt(rows[i].Get("skipped_records")) == 0:
			// Behind, and the record at the committed offset has no
			// time (-1) or is not in the folder: its age is not known.
			ageUnknown++
		}
		if h := rows[i].Get("retention_headroom_seconds"); h != nil {
			minHead = math.Min(minHead, asFloat(h))
		}
		if n := asInt(rows[i].Get("skipped_records")); n > 0 {
			skipped += n
			outOfRange = append(outOfRange, rows[i])
		}
		if end := rows[i].Get("end_offset"); end != nil && asInt(rows[i].Get("committed_offset")) > asInt(end) {
			pastEnd = append(pastEnd, rows[i])
		}
	}
	r := &Report{Summary: NewRow(), Rows: rows}
	r.Summary.Set("groups", int64(len(groups))).Set("max_lag_records", maxRec).Set("max_lag_seconds", maxSec).
		Set("out_of_range_partitions", int64(len(outOfRange))).Set("skipped_records", skipped).
		Set("past_end_partitions", int64(len(pastEnd))).Set("no_committed_offset_partitions", int64(len(noOffset))).
		Set("restore_progress_groups", int64(min(len(progressRows), 1))).Set("lag_age_unknown_partitions", ageUnknown)
	if maxRec > 0 && !knownAge {
		r.Summary.Set("max_lag_seconds", nil) // behind by records, by no known time
	}
	age := humanSeconds(maxSec)
	if !knownAge {
		age = "an age not known"
	}
	if len(rows) > 0 && len(noOffset) == len(rows) {
		// No offset known: no lag is known either, not 0.
		r.Summary.Set("max_lag_records", nil).Set("max_lag_seconds", nil)
	}
	if math.IsInf(minHead, 1) {
		r.Summary.Set("min_retention_headroom_seconds", nil)
	} else {
		r.Summary.Set("min_retention_headroom_seconds", minHead)
	}
	for _, m := range members {
		m.Set("kind", "member")
		r.Rows = append(r.Rows, m)
	}
	r.Tables = append(r.Tables, rowsTable("Members", members))
	// A cut whose principal could not read every group does not prove there
	// were none: say so rather than "no group".
	r.Summary.Set("snapshots_with_unreadable_groups", int64(len(unread)))
	for _, u := range unread {
		u.Set("kind", "groups_unreadable")
		r.Rows = append(r.Rows, u)
	}
	// Partitions no member owns and no commit covers: nobody reads them.
	unowned, _ = withoutGroup(ofGroup(unowned, o.Group), progress)
	r.Summary.Set("unowned_partitions", int64(len(unowned)))
	for _, u := range unowned {
		u.Set("kind", "unowned")
		r.Rows = append(r.Rows, u)
	}
	shareStatus, shareMessage := judgeShareGroups(r, shares)
	switch {
	case len(groups) == 0 && len(shares) > 0:
		// Only share groups read the topic: theirs is the answer.
		r.Status, r.Message = shareStatus, shareMessage
		shareMessage = ""
		if len(unread) > 0 {
			r.Status = Worse(r.Status, StatusWarn)
			r.Message += fmt.Sprintf("; no committed offsets recorded, but the consumer groups could not all be read at %s: %v",
				plural(int64(len(unread)), "snapshot", "snapshots"), unread[0].Get("groups_error"))
		}
	case len(groups) == 0 && len(unread) > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("no committed offsets recorded, but the consumer groups could not all be read at %s: %v",
			plural(int64(len(unread)), "snapshot", "snapshots"), unread[0].Get("groups_error"))
	case len(groups) == 0 && o.Group != "":
		// A group a cut saw, but not with offsets on this topic.
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("group %s had no committed offset on %s at the snapshots: nothing to judge", o.Group, o.Topic)
	case len(groups) == 0 && !e.hasCut(o.Topic):
		// No cut recorded the groups (a topic imported from segments or
		// kcat, or a folder handed over without its snapshots): nothing
		// said there were none. It said "OK ... no consumer group had
		// committed offsets on the topic at the snapshots" of no snapshot.
		r.Status, r.Message = StatusWarn, noCutSentence(o.Topic)+": no consumer group's committed offsets were recorded, so lag is not judged"
		r.Summary.Set("cuts", int64(0))
	case len(groups) == 0:
		r.Status, r.Message = StatusOK, "no consumer group had committed offsets on the topic at the snapshots"
	case len(noOffset) == len(rows):
		// Every offset the cuts hold is Kafka's "none": no lag to judge.
		r.Status, r.Message = StatusWarn, noOffsetSentence(noOffset)
		noOffset = nil
	case len(outOfRange) > 0:
		// Its next record is already deleted: no headroom is left, and
		// the consumer's auto.offset.reset, not the log, decides where it
		// goes on (earliest: the log start; latest: the end; none: an error).
		f := outOfRange[0]
		r.Status = StatusFail
		r.Message = fmt.Sprintf("group %s committed offset %d on partition %v, below its log start %d: the group's next fetch is out of range and auto.offset.reset decides what it skips; "+
			"%s it had not read are deleted and will be skipped (log start minus committed offset, on %s)",
			f.Get("group_id"), asInt(f.Get("committed_offset")), f.Get("partition"), asInt(f.Get("log_start_offset")),
			plural(skipped, "record", "records"), plural(int64(len(outOfRange)), "partition", "partitions"))
	case !math.IsInf(minHead, 1) && minHead < 3600:
		r.Status = StatusFail
		r.Message = fmt.Sprintf("a group is %d records and %s behind; its next record is deleted by retention in %s", maxRec, age, humanSeconds(max(minHead, 0)))
	case maxRec > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s; the furthest behind is %d records and %s", plural(int64(len(groups)), "group", "groups"), maxRec, age)
	case len(pastEnd) > 0:
		r.Status = StatusWarn
		r.Message = fmt.Sprintf("%s, none behind the end offset", plural(int64(len(groups)), "group", "groups"))
	default:
		r.Status = StatusOK
		r.Message = fmt.Sprintf("%s, all caught up at the cut", plural(int64(len(groups)), "group", "groups"))
	}
	if len(pastEnd) > 0 {
		// Not caught up: a fetch past the high watermark is out of range
		// (kafka-consumer-groups shows a negative lag).
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
		f := pastEnd[0]
		r.Message += fmt.Sprintf("; group %s committed offset %d on partition %v, past its end offset %d at the cut (on %s): unless the group committed after the cut read the end (one consuming as the cut was taken can be a little ahead; the next cut says), "+
			"its next fetch is out of range and auto.offset.reset decides where it goes on (earliest: the log start, re-reading the partition; latest: the end, skipping what was written until then)",
			f.Get("group_id"), asInt(f.Get("committed_offset")), f.Get("partition"), asInt(f.Get("end_offset")), plural(int64(len(pastEnd)), "partition", "partitions"))
	}
	if ageUnknown > 0 {
		r.Message += fmt.Sprintf("; the lag in time is not known on %s behind (the record at the committed offset has no timestamp, -1, or is not in the folder)",
			plural(ageUnknown, "partition", "partitions"))
	}
	if len(noOffset) > 0 {
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
		r.Message += "; " + noOffsetSentence(noOffset)
	}
	if len(unowned) > 0 {
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
		r.Message += "; " + unownedSentence(unowned)
	}
	if shareMessage != "" {
		r.Status = Worse(r.Status, shareStatus)
		r.Message += "; " + shareMessage
	}
	if len(progressRows) > 0 {
		r.Message += "; " + restoreProgressSentence(o.Topic) + ": left out"
	}
	return r, nil
}

// cutsSay says whether any cut of topic in the folder satisfies f.
func (e *Engine) cutsSay(topic string, f func(*catalog.ClusterSnapshot) bool) bool {
	e.mu.RLock()
	snaps := e.snaps
	e.mu.RUnlock()
	for _, s := range snaps {
		if s.Topic == topic && f(s) {
			return true
		}
	}
	return false
}

// hasShareGroup says whether cut s recorded a share group's state on a
// partition (the rows of share_group_offsets).
func hasShareGroup(s *catalog.ClusterSnapshot) bool {
	for _, g := range s.Groups {
		if len(g.Share) > 0 {
			return true
		}
	}
	return false
}

// judgeShareGroups adds the share groups' rows (kind "share") and summary
// to r, and says what they show: a share group commits no offsets, so its
// lag is Kafka's own count of the records not yet acknowledged, and a
// start offset below the log start means records deleted before the group
// acknowledged them (never delivered to it again).
func judgeShareGroups(r *Report, shares []Row) (status, message string) {
	groups := map[string]bool{}
	var maxLag, skipped, unknown int64
	var below []Row
	for _, s := range shares {
		s.Set("kind", "share")
		r.Rows = append(r.Rows, s)
		groups[s.Get("group_id").(string)] = true
		if l := s.Get("share_lag_records"); l != nil {
			maxLag = max(maxLag, asInt(l))
		} else {
			unknown++
		}
		if n := asInt(s.Get("skipped_records")); n > 0 {
			skipped += n
			below = append(below, s)
		}
	}
	r.Summary.Set("share_groups", int64(len(groups))).Set("max_share_lag_records", maxLag).
		Set("share_skipped_records", skipped).Set("share_lag_unknown_partitions", unknown)
	if len(shares) == 0 {
		r.Summary.Set("max_share_lag_records", nil)
		return StatusOK, ""
	}
	if unknown == int64(len(shares)) {
		r.Summary.Set("max_share_lag_records", nil)
	}
	n := plural(int64(len(groups)), "share group", "share groups")
	switch {
	case len(below) > 0:
		f := below[0]
		status = StatusFail
		message = fmt.Sprintf("share group %s starts at offset %d on partition %v, below its log start %d: %s it had not acknowledged were deleted by retention and will never be delivered to it (log start minus start offset, on %s)",
			f.Get("group_id"), asInt(f.Get("start_offset")), f.Get("partition"), asInt(f.Get("log_start_offset")),
			plural(skipped, "record", "records"), plural(int64(len(below)), "partition", "partitions"))
	case maxLag > 0:
		status = StatusWarn
		message = fmt.Sprintf("%s (which commit no offsets): Kafka counts up to %s not yet acknowledged on a partition", n, plural(maxLag, "record", "records"))
	case unknown > 0:
		status = StatusWarn
		message = fmt.Sprintf("%s (which commit no offsets), none behind where Kafka said", n)
	default:
		status = StatusOK
		message = fmt.Sprintf("%s (which commit no offsets), every record acknowledged by Kafka's count", n)
	}
	if unknown > 0 {
		message += fmt.Sprintf("; Kafka gave no share lag on %s (no state there yet, or a broker before KIP-1226)", plural(unknown, "partition", "partitions"))
	}
	return status, message
}

// RestoreProgressGroup is the consumer group whose committed offsets on
// topic are the progress of restores into it (restore.ID): the next
// source offset of each partition, not a position in topic.
func RestoreProgressGroup(topic string) string { return "topicsnap-restore-" + topic }

// restoreProgressSentence says what the restore's progress group on topic is.
func restoreProgressSentence(topic string) string {
	return fmt.Sprintf("group %s is the progress of a topicsnap restore into %s (its committed offsets are the snapshot's source offsets, not positions in %s; no consumer's)",
		RestoreProgressGroup(topic), topic, topic)
}

// withoutGroup splits rows into those of other groups and those of group.
func withoutGroup(rows []Row, group string) (others, of []Row) {
	for _, r := range rows {
		if r.Get("group_id") == group {
			of = append(of, r)
		} else {
			others = append(others, r)
		}
	}
	return others, of
}

// noOffsetSentence names, group by group, the partitions where Kafka
// answered that the group has no committed offset.
func noOffsetSentence(rows []Row) string {
	var says []string
	byGroup := map[string][]string{}
	for _, u := range rows {
		g := u.Get("group_id").(string)
		if byGroup[g] == nil {
			says = append(says, g)
		}
		byGroup[g] = append(byGroup[g], fmt.Sprint(u.Get("partition")))
	}
	for i, g := range says {
		word := "partition"
		if len(byGroup[g]) > 1 {
			word = "partitions"
		}
		says[i] = fmt.Sprintf("group %s on %s %s", g, word, strings.Join(byGroup[g], ", "))
	}
	return fmt.Sprintf("no committed offset (Kafka answered -1; kafka-consumer-groups shows \"-\") for %s: the lag is not known, and auto.offset.reset decides where the group starts",
		strings.Join(says, "; "))
}

// unownedSentence names, group by group, the partitions no member owns and
// the group never committed on.
func unownedSentence(rows []Row) string {
	var parts []string
	byGroup := map[string][]string{}
	var records int64
	for _, u := range rows {
		g := u.Get("group_id").(string)
		if byGroup[g] == nil {
			parts = append(parts, g)
		}
		byGroup[g] = append(byGroup[g], fmt.Sprint(u.Get("partition")))
		records += asInt(u.Get("records"))
	}
	var says []string
	for _, g := range parts {
		ps := byGroup[g]
		word := "partition"
		if len(ps) > 1 {
			word = "partitions"
		}
		says = append(says, fmt.Sprintf("group %s: %s %s", g, word, strings.Join(ps, ", ")))
	}
	return fmt.Sprintf("no member owns and no committed offset covers %s (%s at the cut): nobody in the group reads them",
		strings.Join(says, "; "), plural(records, "record", "records"))
}

// ofGroup keeps the rows of group (every row when group is "").
func ofGroup(rows []Row, group string) []Row {
	if group == "" {
		return rows
	}
	var out []Row
	for _, r := range rows {
		if r.Get("group_id") == group {
			out = append(out, r)
		}
	}
	return out
}

// lagCharts draws the lag of each group on each partition.
func lagCharts(_ context.Context, in ChartInput) ([]chart.Chart, error) {
	var bars []chart.Bar
	none := 0 // rows without a committed offset: no lag to draw, not 0
	for _, row := range in.Report.Rows {
		if row.Get("kind") != "offset" {
			continue
		}
		if row.Get("lag_records") == nil {
			none++
			continue
		}
		lag := asFloat(row.Get("lag_records"))
		bars = append(bars, chart.Bar{Label: display.Text(row.Get("group_id")) + " · p" + display.Text(row.Get("partition")), Value: lag, Note: display.Number(lag)})
	}
	noneNote := ""
	if none > 0 {
		noneNote = fmt.Sprintf("; %s without a committed offset (Kafka answered -1) not drawn: their lag is not known", plural(int64(none), "partition", "partitions"))
	}
	if len(bars) == 0 {
		return []chart.Chart{{Title: "Lag per group and partition", Note: "no consumer group has committed offsets on this topic" + noneNote}}, nil
	}
	return []chart.Chart{{Title: "Lag per group and partition", Note: "end offset minus committed offset, at the latest snapshot with the group" + noneNote,
		SVG: chart.Bars("lag per group and partition", bars, 0, "")}}, nil
}
