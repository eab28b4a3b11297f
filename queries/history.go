package queries

import (
	"sort"

	"github.com/topicsnap/topicsnap/catalog"
)

// Membership history: who held which partition of which group, from cut to
// cut, and how far the group's committed offset moved between cuts.
//
// A cut is one cluster snapshot of a topic (dump --follow takes one every
// interval). At each cut the snapshot holds, per group, the committed
// offset of every partition and the members with their assignments. Two
// tables are derived from them, per topic:
//
//   - group_history_cuts (read through the view group_history, which
//     answers from the commit log where the folder holds it:
//     sql/group_history.sql): runs of consecutive cuts at which one member held a
//     partition (member_id, client_id, host, from_as_of, to_as_of: the
//     first and last cut of the run; until_as_of: the first cut at which it
//     no longer held it, NULL while it still did at the latest cut), with
//     the committed offset at the first and last cut of the run.
//   - group_commits: one row per partition and pair of consecutive cuts:
//     the committed offset before and after and the records between. The
//     member is named only when the same member held the partition at both
//     cuts; when the holder changed (a rebalance between the cuts) or no
//     member held it (an inactive group, a reset), the commits cannot be
//     attributed and member_id is NULL, with attribution saying why.
//
// A cut whose principal could not read every group (groups_error) and that
// lacks a group says nothing about that group: it is skipped for it, never
// read as "no members".

// Attributions of a group_commits row.
const (
	attrMember  = "member"         // the same member held the partition at both cuts
	attrChanged = "holder changed" // a rebalance between the cuts: not attributable
	attrNone    = "no member"      // no member held it at one of the cuts
)

type historyRow struct {
	Topic       string  `json:"topic"`
	Group       string  `json:"group_id"`
	Partition   int32   `json:"partition"`
	MemberID    string  `json:"member_id"`
	InstanceID  string  `json:"instance_id"`
	ClientID    string  `json:"client_id"`
	Host        string  `json:"host"`
	FromSnap    string  `json:"from_snapshot_id"`
	FromAsOf    string  `json:"from_as_of"`
	ToSnap      string  `json:"to_snapshot_id"`
	ToAsOf      string  `json:"to_as_of"`
	UntilAsOf   *string `json:"until_as_of"`
	Cuts        int     `json:"cuts"`
	FirstOffset *int64  `json:"first_committed_offset"`
	LastOffset  *int64  `json:"last_committed_offset"`
}

type commitRow struct {
	Topic       string  `json:"topic"`
	Group       string  `json:"group_id"`
	Partition   int32   `json:"partition"`
	FromSnap    string  `json:"from_snapshot_id"`
	FromAsOf    string  `json:"from_as_of"`
	ToSnap      string  `json:"to_snapshot_id"`
	ToAsOf      string  `json:"to_as_of"`
	FromOffset  int64   `json:"from_offset"`
	ToOffset    int64   `json:"to_offset"`
	Records     int64   `json:"records"`
	MemberID    *string `json:"member_id"`
	ClientID    *string `json:"client_id"`
	Host        *string `json:"host"`
	Attribution string  `json:"attribution"`
}

var historyColumns = []string{"topic VARCHAR", "group_id VARCHAR", "partition INTEGER", "member_id VARCHAR", "instance_id VARCHAR",
	"client_id VARCHAR", "host VARCHAR", "from_snapshot_id VARCHAR", "from_as_of TIMESTAMPTZ", "to_snapshot_id VARCHAR",
	"to_as_of TIMESTAMPTZ", "until_as_of TIMESTAMPTZ", "cuts INTEGER", "first_committed_offset BIGINT", "last_committed_offset BIGINT"}

var commitColumns = []string{"topic VARCHAR", "group_id VARCHAR", "partition INTEGER", "from_snapshot_id VARCHAR", "from_as_of TIMESTAMPTZ",
	"to_snapshot_id VARCHAR", "to_as_of TIMESTAMPTZ", "from_offset BIGINT", "to_offset BIGINT", "records BIGINT",
	"member_id VARCHAR", "client_id VARCHAR", "host VARCHAR", "attribution VARCHAR"}

// groupCut is one group's state at one cut.
type groupCut struct {
	snap    *catalog.ClusterSnapshot
	offsets map[int32]int64
	holders map[int32]catalog.GroupMember
}

// groupHistory derives group_history_cuts and group_commits from the snapshots.
func groupHistory(snaps []*catalog.ClusterSnapshot) ([]historyRow, []commitRow) {
	byTopic := map[string][]*catalog.ClusterSnapshot{}
	for _, s := range snaps {
		byTopic[s.Topic] = append(byTopic[s.Topic], s)
	}
	topics := make([]string, 0, len(byTopic))
	for t := range byTopic {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	hist, commits := []historyRow{}, []commitRow{}
	for _, topic := range topics {
		ss := byTopic[topic]
		sort.SliceStable(ss, func(i, j int) bool {
			if !ss[i].AsOf.Equal(ss[j].AsOf) {
				return ss[i].AsOf.Before(ss[j].AsOf)
			}
			return ss[i].ID < ss[j].ID
		})
		groups := map[string]bool{}
		for _, s := range ss {
			for _, g := range s.Groups {
				groups[g.Group] = true
			}
		}
		names := make([]string, 0, len(groups))
		for g := range groups {
			names = append(names, g)
		}
		sort.Strings(names)
		for _, g := range names {
			cuts := cutsOf(ss, g)
			h, c := historyOf(topic, g, cuts)
			hist = append(hist, h...)
			commits = append(commits, c...)
		}
	}
	return hist, commits
}

// cutsOf lists group g's state at each cut that says something about it.
func cutsOf(ss []*catalog.ClusterSnapshot, g string) []groupCut {
	var out []groupCut
	for _, s := range ss {
		c := groupCut{snap: s, offsets: map[int32]int64{}, holders: map[int32]catalog.GroupMember{}}
		found := false
		for _, gs := range s.Groups {
			if gs.Group != g {
				continue
			}
			found = true
			for _, o := range gs.Offsets {
				if o.NoOffset() {
					continue // no committed offset: no position to follow
				}
				c.offsets[o.Partition] = o.Offset
			}
			for _, m := range gs.Members {
				for _, p := range m.Assigned {
					c.holders[p] = m
				}
			}
		}
		if !found && s.GroupsError != "" {
			continue // the cut could not read every group: it says nothing of g
		}
		out = append(out, c)
	}
	return out
}

func historyOf(topic, group string, cuts []groupCut) ([]historyRow, []commitRow) {
	ts := catalogTime
	parts := map[int32]bool{}
	for _, c := range cuts {
		for p := range c.offsets {
			parts[p] = true
		}
		for p := range c.holders {
			parts[p] = true
		}
	}
	ps := make([]int32, 0, len(parts))
	for p := range parts {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	var hist []historyRow
	var commits []commitRow
	offsetAt := func(c groupCut, p int32) *int64 {
		if o, ok := c.offsets[p]; ok {
			return &o
		}
		return nil
	}
	for _, p := range ps {
		var run *historyRow
		for i, c := range cuts {
			m, held := c.holders[p]
			if run != nil && (!held || m.MemberID != run.MemberID) {
				u := ts(c.snap.AsOf)
				run.UntilAsOf = &u
				hist = append(hist, *run)
				run = nil
			}
			if held {
				if run == nil {
					run = &historyRow{Topic: topic, Group: group, Partition: p, MemberID: m.MemberID, InstanceID: m.InstanceID,
						ClientID: m.ClientID, Host: m.Host, FromSnap: c.snap.ID, FromAsOf: ts(c.snap.AsOf), FirstOffset: offsetAt(c, p)}
				}
				run.ToSnap, run.ToAsOf, run.LastOffset = c.snap.ID, ts(c.snap.AsOf), offsetAt(c, p)
				run.Cuts++
			}
			if i == 0 {
				continue
			}
			prev := cuts[i-1]
			from, ok1 := prev.offsets[p]
			to, ok2 := c.offsets[p]
			if !ok1 || !ok2 {
				continue
			}
			r := commitRow{Topic: topic, Group: group, Partition: p, FromSnap: prev.snap.ID, FromAsOf: ts(prev.snap.AsOf),
				ToSnap: c.snap.ID, ToAsOf: ts(c.snap.AsOf), FromOffset: from, ToOffset: to, Records: to - from}
			pm, pheld := prev.holders[p]
			switch {
			case !held || !pheld:
				r.Attribution = attrNone
			case pm.MemberID != m.MemberID:
				r.Attribution = attrChanged
			default:
				r.Attribution = attrMember
				id, client, host := m.MemberID, m.ClientID, m.Host
				r.MemberID, r.ClientID, r.Host = &id, &client, &host
			}
			commits = append(commits, r)
		}
		if run != nil {
			hist = append(hist, *run)
		}
	}
	return hist, commits
}
