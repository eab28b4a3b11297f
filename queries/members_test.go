package queries

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

// The members fixture: a wind farm's writers' group on "readings" (four
// partitions of 50 records, one every six seconds from 11:00), whose
// commit log holds three generations: the two writers; then two watchers
// with client ids the group had not had, holding partitions 2 and 3; then
// the writers again. Three cuts saw the group, one in each generation.
const (
	membersTopic = "readings"
	membersGroup = "galewatch-writers"
	membersRecs  = 50
)

var membersT0 = time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)

type membersGen struct {
	at      time.Duration
	holders map[int32]offsetstest.Member // partition: its holder
}

type membersCommit struct {
	at  time.Duration
	off map[int32]int64
}

var (
	mWriter1  = offsetstest.Member{ID: "writer-1-a1", ClientID: "galewatch-writer", Host: "/10.0.0.1", SessionMs: 45000, RebalanceMs: 60000, Topics: []string{membersTopic}}
	mWriter2  = offsetstest.Member{ID: "writer-2-b2", ClientID: "galewatch-writer", Host: "/10.0.0.2", SessionMs: 45000, RebalanceMs: 60000, Topics: []string{membersTopic}}
	mWatcher1 = offsetstest.Member{ID: "watcher-1-c3", ClientID: "galewatch-watcher-1", Host: "/10.0.0.9", SessionMs: 45000, RebalanceMs: 60000, Topics: []string{membersTopic}}
	mWatcher2 = offsetstest.Member{ID: "watcher-2-d4", ClientID: "galewatch-watcher-2", Host: "/10.0.0.10", SessionMs: 45000, RebalanceMs: 60000, Topics: []string{membersTopic}}

	membersGens = []membersGen{
		{0, map[int32]offsetstest.Member{0: mWriter1, 1: mWriter1, 2: mWriter2, 3: mWriter2}},
		{60 * time.Second, map[int32]offsetstest.Member{0: mWriter1, 1: mWriter2, 2: mWatcher1, 3: mWatcher2}},
		{180 * time.Second, map[int32]offsetstest.Member{0: mWriter1, 1: mWriter1, 2: mWriter2, 3: mWriter2}},
	}
	// Commits, each after the generation before it.
	membersCommits = []membersCommit{
		{5 * time.Second, map[int32]int64{0: 5, 1: 5, 2: 5, 3: 5}},
		{90 * time.Second, map[int32]int64{0: 15, 1: 15, 2: 15, 3: 15}},
		{120 * time.Second, map[int32]int64{2: 25, 3: 20}},
		{240 * time.Second, map[int32]int64{0: 40, 1: 40, 2: 40, 3: 40}},
	}
	// The cuts: when, and the generation whose members they list.
	membersCuts = []struct {
		at  time.Duration
		gen int
	}{{10 * time.Second, 0}, {100 * time.Second, 1}, {300 * time.Second, 2}}
)

// genAt is the index of the generation current at d.
func genAt(d time.Duration) int {
	g := 0
	for i, x := range membersGens {
		if x.at <= d {
			g = i
		}
	}
	return g
}

// committedAt is the group's committed offset of p at d (0: none yet).
func committedAt(p int32, d time.Duration) int64 {
	var o int64
	for _, c := range membersCommits {
		if c.at <= d {
			if x, ok := c.off[p]; ok {
				o = x
			}
		}
	}
	return o
}

func ms(d time.Duration) int64 { return membersT0.Add(d).UnixMilli() }

// membersFixture writes the folder; withLog adds the dump of
// __consumer_offsets.
func membersFixture(t *testing.T, withLog bool) string {
	t.Helper()
	return membersFixtureDamaged(t, withLog, nil)
}

// membersFixtureDamaged is membersFixture with damage applied to the log's
// records (in log order) before they are written.
func membersFixtureDamaged(t *testing.T, withLog bool, damage func(rows []catalog.Row)) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 4; p++ {
		var rows []catalog.Row
		for i := int64(0); i < membersRecs; i++ {
			rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: ms(time.Duration(i) * 6 * time.Second), TimestampType: catalog.TimestampCreate,
				Key: []byte(fmt.Sprintf("t%d", p)), Value: []byte(fmt.Sprintf(`{"farm":%d,"n":%d}`, p, i))})
		}
		writePartition(t, d, membersTopic, p, "s1", membersRecs, rows)
	}
	for i, c := range membersCuts {
		at := membersT0.Add(c.at)
		s := &catalog.ClusterSnapshot{ID: fmt.Sprintf("cut%d", i), Topic: membersTopic, AsOf: at, PartitionCount: 4, ReplicationFactor: 1,
			Dumped: []int32{0, 1, 2, 3}}
		g := catalog.GroupState{Group: membersGroup, State: "Stable", Protocol: "range", ProtocolType: "consumer"}
		byID := map[string]*catalog.GroupMember{}
		var ids []string
		for p := int32(0); p < 4; p++ {
			s.Partitions = append(s.Partitions, catalog.PartitionState{Partition: p, HighWatermark: membersRecs, LastStable: membersRecs, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1})
			if o := committedAt(p, c.at); o > 0 {
				g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: o, LeaderEpoch: -1})
			}
			m := membersGens[c.gen].holders[p]
			if byID[m.ID] == nil {
				byID[m.ID] = &catalog.GroupMember{MemberID: m.ID, ClientID: m.ClientID, Host: m.Host}
				ids = append(ids, m.ID)
			}
			byID[m.ID].Assigned = append(byID[m.ID].Assigned, p)
		}
		sort.Strings(ids)
		for _, id := range ids {
			g.Members = append(g.Members, *byID[id])
		}
		s.Groups = []catalog.GroupState{g}
		if err := d.WriteClusterSnapshot(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	if !withLog {
		return dir
	}
	type ev struct {
		at       time.Duration
		key, val []byte
	}
	var evs []ev
	for gi, g := range membersGens {
		byID := map[string]*offsetstest.Member{}
		var ids []string
		for p := int32(0); p < 4; p++ {
			m := g.holders[p]
			if byID[m.ID] == nil {
				mm := m
				mm.Assigned = map[string][]int32{}
				byID[m.ID] = &mm
				ids = append(ids, m.ID)
			}
			byID[m.ID].Assigned[membersTopic] = append(byID[m.ID].Assigned[membersTopic], p)
		}
		sort.Strings(ids)
		var members []offsetstest.Member
		for _, id := range ids {
			members = append(members, *byID[id])
		}
		k, v := offsetstest.Group(membersGroup, int32(gi+1), "range", ids[0], ms(g.at), members...)
		evs = append(evs, ev{g.at, k, v})
	}
	for _, c := range membersCommits {
		for p := int32(0); p < 4; p++ {
			if o, ok := c.off[p]; ok {
				k, v := offsetstest.Commit(membersGroup, membersTopic, p, o, 0, "", ms(c.at))
				evs = append(evs, ev{c.at, k, v})
			}
		}
	}
	// Another group's record, which the check must not read.
	k, v := offsetstest.Group("other", 7, "range", "x", ms(0), offsetstest.Member{ID: "x", ClientID: "galewatch-watcher-1", Host: "/10.0.0.3",
		Assigned: map[string][]int32{membersTopic: {0}}})
	evs = append(evs, ev{0, k, v})
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	var rows []catalog.Row
	for i, x := range evs {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: ms(x.at), TimestampType: catalog.TimestampCreate, Key: x.key, Value: x.val})
	}
	if damage != nil {
		damage(rows)
	}
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	return dir
}

// membersResetExpectation computes, from the fixture's definition alone (no
// SQL), the client id each record a reset to membersT0 re-reads is
// attributed to: with the log, the holder (in the generation current at
// the commit) of the latest commit whose step covers the record; else, or
// where no commit step covers it, the holder at both ends of the cut step
// covering it when it is one member; "" when neither knows.
func membersResetExpectation(withLog bool) map[string]int64 {
	out := map[string]int64{}
	for p := int32(0); p < 4; p++ {
		last := committedAt(p, time.Hour)
		for off := int64(0); off < last; off++ {
			who := ""
			if withLog {
				prev := int64(-1)
				for _, c := range membersCommits {
					o, ok := c.off[p]
					if !ok {
						continue
					}
					if prev >= 0 && prev <= off && off < o {
						who = membersGens[genAt(c.at)].holders[p].ClientID
					}
					prev = o
				}
			}
			if who == "" {
				for i := 1; i < len(membersCuts); i++ {
					a, b := membersCuts[i-1], membersCuts[i]
					if committedAt(p, a.at) <= off && off < committedAt(p, b.at) {
						if ha, hb := membersGens[a.gen].holders[p], membersGens[b.gen].holders[p]; ha.ID == hb.ID {
							who = hb.ClientID
						}
					}
				}
			}
			out[who]++
		}
	}
	return out
}

// TestResetAttributesFromTheCommitLog: where the cuts leave records
// unattributed (the holder changed between two cuts), the commit log
// attributes every one of them to the member that held the partition when
// the commit past it was made, exactly; without the log the check says what
// it said before.
func TestResetAttributesFromTheCommitLog(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		withLog bool
		o       Options
	}{{false, Options{}}, {true, Options{}}, {true, Options{Lazy: true}}, {true, Options{Locked: true}}} {
		withLog := c.withLog
		t.Run(fmt.Sprintf("log=%v/%+v", withLog, c.o), func(t *testing.T) {
			e, err := Open(ctx, membersFixture(t, withLog), c.o)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "reset", CheckOptions{Topic: membersTopic, Group: membersGroup, ToTime: membersT0})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, row := range r.Rows {
				if row.Get("kind") == "member" {
					c, _ := row.Get("client_id").(string)
					got[c] = asInt(row.Get("records"))
				}
			}
			want := membersResetExpectation(withLog)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("records by client id:\n got %v\nwant %v\n%s", got, want, r.Message)
			}
			if asInt(r.Summary.Get("records_to_reread")) != 4*40 {
				t.Fatalf("records_to_reread %v", r.Summary.Get("records_to_reread"))
			}
			if withLog && (want["galewatch-watcher-1"] != 20 || want["galewatch-watcher-2"] != 15 || want[""] != 20) {
				t.Fatalf("the fixture no longer says what the test is about: %v", want)
			}
			if !withLog && want[""] != 125 {
				t.Fatalf("the cuts alone should leave 125 records unattributed: %v", want)
			}
			if withLog != strings.Contains(r.Message, "neither the commit log nor a cut") {
				t.Fatalf("message: %s", r.Message)
			}
			compareGolden(t, fmt.Sprintf("members-reset-log-%v", withLog), r)
		})
	}
}

// TestMembersGolden: the members check from the commit log, from the cuts
// when the folder has no log; a group neither knows is unknown.
func TestMembersGolden(t *testing.T) {
	ctx := context.Background()
	for _, withLog := range []bool{true, false} {
		e, err := Open(ctx, membersFixture(t, withLog), Options{})
		if err != nil {
			t.Fatal(err)
		}
		src := "cuts"
		if withLog {
			src = "log"
		}
		res := runGolden(t, e, "members-"+src+"-", []goldenCase{
			{"watchers", "members", CheckOptions{Topic: membersTopic, Group: membersGroup}},
		})
		// A group no cut recorded is an unknown group (exit 4 on the
		// command line), with the folder's groups to choose from.
		if _, err := e.RunCheck(ctx, "members", CheckOptions{Topic: membersTopic, Group: "nobody"}); !errors.Is(err, ErrUnknownGroup) {
			t.Errorf("%s: members of a group nothing knows: %v, want ErrUnknownGroup", src, err)
		}
		e.Close()
		r := res["watchers"]
		if r == nil {
			continue
		}
		if r.Status != StatusWarn || asInt(r.Summary.Get("new_client_ids")) != 2 ||
			!strings.Contains(r.Message, "galewatch-watcher-1 on 10.0.0.9") || !strings.Contains(r.Message, "galewatch-watcher-2 on 10.0.0.10") {
			t.Errorf("%s: %s %s", src, r.Status, r.Message)
		}
		// The watchers' records, exactly: what their own commits moved.
		want := map[string]int64{"watcher-1-c3": 20, "watcher-2-d4": 15}
		if !withLog {
			want = map[string]int64{"watcher-1-c3": 0, "watcher-2-d4": 0} // the cuts attribute none of it
		}
		for _, row := range r.Rows {
			id, _ := row.Get("member_id").(string)
			if w, ok := want[id]; ok && asInt(row.Get("records_committed_past")) != w {
				t.Errorf("%s: %s committed past %v, want %d", src, id, row.Get("records_committed_past"), w)
			}
		}
	}
}

// TestMembersOnTheWindFarmIncident: the second seed's folder holds cuts and
// no commit log: members names the two watchers from the cuts, with the
// partitions they held, and says what it cannot see.
func TestMembersOnTheWindFarmIncident(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmIncidentFolder(ctx, dir, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: seeds.TopicReadings, Group: seeds.IncidentGroup})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || r.Summary.Get("source") != "cuts" || asInt(r.Summary.Get("new_client_ids")) != 2 ||
		!strings.Contains(r.Message, "a member that joined and left between two cuts is not seen") {
		t.Fatalf("%s %v: %s", r.Status, r.Summary.Vals, r.Message)
	}
	held := map[string]string{}
	for _, row := range r.Rows {
		if b, _ := row.Get("new_client_id").(bool); b {
			held[fmt.Sprint(row.Get("client_id"))] = fmt.Sprint(row.Get("partitions"))
		}
	}
	if want := "map[galewatch-watcher-1:[18 19 20] galewatch-watcher-2:[21 22 23]]"; fmt.Sprint(held) != want {
		t.Fatalf("new members held %v, want %s", held, want)
	}
}

// TestMembersWithUndecodableLog: a record of the group coordinator's log
// that does not decode may be a generation or a commit of the group, so
// members never says ok over it: it warns "not judged" with the count
// (undecodable_log_records), and a damaged record of another group is not
// counted. Before, the watchers' generation record with a garbled key
// left members ok: "no client id joined".
func TestMembersWithUndecodableLog(t *testing.T) {
	ctx := context.Background()
	isGroupRecord := func(r catalog.Row, group string) bool {
		return len(r.Key) > 2 && r.Key[1] == 2 && strings.Contains(string(r.Key), group)
	}
	cases := []struct {
		name   string
		damage func(rows []catalog.Row)
		want   int64
	}{
		{"the watchers' generation record's key garbled", func(rows []catalog.Row) {
			n := 0
			for i := range rows {
				if isGroupRecord(rows[i], membersGroup) {
					if n++; n == 2 { // the second generation: the watchers'
						rows[i].Key = []byte{0, 2, 0x7f, 0xff}
					}
				}
			}
		}, 1},
		{"a commit's value garbled", func(rows []catalog.Row) {
			for i := range rows {
				if len(rows[i].Key) > 2 && rows[i].Key[1] == 1 {
					rows[i].Value = []byte{0xff, 0xff, 1, 2, 3}
					return
				}
			}
		}, 1},
		{"another group's value garbled", func(rows []catalog.Row) {
			for i := range rows {
				if isGroupRecord(rows[i], "other") {
					rows[i].Value = []byte{0xff, 0xff, 1, 2, 3}
				}
			}
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := Open(ctx, membersFixtureDamaged(t, true, c.damage), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: membersTopic, Group: membersGroup})
			if err != nil {
				t.Fatal(err)
			}
			got := asInt(r.Summary.Get("undecodable_log_records"))
			if got != c.want || r.Summary.Get("source") != "commit log" {
				t.Fatalf("undecodable_log_records %d (source %v), want %d: %s", got, r.Summary.Get("source"), c.want, r.Message)
			}
			if c.want > 0 && (r.Status == StatusOK || !strings.Contains(r.Message, "not judged: 1 record of the log could not be decoded")) {
				t.Fatalf("%s %s; want not ok, saying what it did not judge", r.Status, r.Message)
			}
			// reset attributes re-read records from the same log: it says
			// the attribution is not whole.
			r, err = e.RunCheck(ctx, "reset", CheckOptions{Topic: membersTopic, Group: membersGroup, ToTime: membersT0})
			if err != nil {
				t.Fatal(err)
			}
			if got := asInt(r.Summary.Get("undecodable_log_records")); got != c.want ||
				strings.Contains(r.Message, "who committed them is not judged whole: 1 record of the group's commit log could not be decoded") != (c.want > 0) {
				t.Fatalf("reset: undecodable_log_records %d, want %d: %s", got, c.want, r.Message)
			}
		})
	}
}
