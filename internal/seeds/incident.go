package seeds

import (
	"context"
	"fmt"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// The wind farm's incident as `dump --follow` would have recorded it: the
// readings topic with a cut every minute from 11:00 to 11:21 (the minute
// before the group was reset), and the writers' group at each cut.
//
//   - Until 11:02 six writers (galewatch-writer-1 … -6) hold four partitions
//     each.
//   - At 11:02 two watcher processes join with the writers' group id: eight
//     members, three partitions each; galewatch-watcher-1 holds 18–20 and
//     galewatch-watcher-2 holds 21–23.
//   - At 11:16 the watchers stop; the writers hold four partitions each again.
//
// At every cut each member has committed everything that arrived before the
// minute began. The rebalances fall between a cut on the minute and one a
// second later, before the new holder commits, so each commit between two
// cuts was made by one known member: the figures of the story follow from
// the cuts alone. Each partition's records are those of WindFarm with a
// timestamp before the last cut (the dump's end offsets at that cut).

// Incident times, from Start.
const (
	IncidentWatchersJoin  = 2 * time.Minute
	IncidentWatchersLeave = 16 * time.Minute
	IncidentLastCut       = 21 * time.Minute
	// IncidentGroup is the writers' consumer group.
	IncidentGroup = "galewatch-writers"
)

// IncidentCut is one cut of the incident folder.
type IncidentCut struct {
	AsOf      time.Time
	Committed map[int32]int64               // the group's committed offset per partition
	Holder    map[int32]catalog.GroupMember // who held each partition
}

// WindFarmIncident is what WriteWindFarmIncidentFolder wrote: the records
// per partition and the cuts, for tests to compute their expectations from.
type WindFarmIncident struct {
	Start   time.Time
	Records map[int32][]Record // the readings topic, by partition, in offset order
	Cuts    []IncidentCut
}

// WriteWindFarmIncidentFolder writes the incident folder in dir (see the
// comment above). cfg.Minutes is raised to cover the last cut.
func WriteWindFarmIncidentFolder(ctx context.Context, dir string, cfg WindFarmConfig) (*WindFarmIncident, error) {
	cfg.Minutes = max(cfg.Minutes, int(IncidentLastCut/time.Minute)+1)
	data := WindFarm(cfg)
	start := ms(cfg.Start)
	if cfg.Start.IsZero() {
		start = DefaultWindFarmStart
	}
	last := start.Add(IncidentLastCut)
	inc := &WindFarmIncident{Start: start, Records: map[int32][]Record{}}
	for _, r := range data.Readings {
		if r.Timestamp.Before(last) {
			inc.Records[r.Partition] = append(inc.Records[r.Partition], r)
		}
	}
	writers := make([]catalog.GroupMember, 6)
	for i := range writers {
		writers[i] = catalog.GroupMember{MemberID: fmt.Sprintf("galewatch-writer-%d-%04x", i+1, 0x5f0c+i), ClientID: fmt.Sprintf("galewatch-writer-%d", i+1),
			Host: fmt.Sprintf("/10.20.0.%d", 11+i)}
	}
	watchers := []catalog.GroupMember{
		{MemberID: "galewatch-watcher-1-9a1e", ClientID: "galewatch-watcher-1", Host: "/10.20.3.40"},
		{MemberID: "galewatch-watcher-2-77b3", ClientID: "galewatch-watcher-2", Host: "/10.20.3.41"},
	}
	holders := func(at time.Duration) map[int32]catalog.GroupMember {
		h := map[int32]catalog.GroupMember{}
		if at > IncidentWatchersJoin && at <= IncidentWatchersLeave {
			for p := int32(0); p < ReadingsPartitions; p++ {
				if p < 18 {
					h[p] = writers[p/3]
				} else {
					h[p] = watchers[(p-18)/3]
				}
			}
			return h
		}
		for p := int32(0); p < ReadingsPartitions; p++ {
			h[p] = writers[p/4]
		}
		return h
	}
	countBefore := func(p int32, t time.Time) int64 {
		var n int64
		for _, r := range inc.Records[p] {
			if !r.Timestamp.Before(t) {
				break
			}
			n++
		}
		return n
	}
	var ats []time.Duration
	for m := time.Duration(0); m <= IncidentLastCut; m += time.Minute {
		ats = append(ats, m)
		if m == IncidentWatchersJoin || m == IncidentWatchersLeave {
			ats = append(ats, m+time.Second) // just after the rebalance
		}
	}
	d, err := catalog.CreateAt(ctx, dir, catalog.S3Config{})
	if err != nil {
		return nil, err
	}
	lastID := ""
	for _, at := range ats {
		asOf := start.Add(at)
		c := IncidentCut{AsOf: asOf, Committed: map[int32]int64{}, Holder: holders(at)}
		id := catalog.NewSnapshotID(asOf)
		cs := &catalog.ClusterSnapshot{ID: id, Topic: TopicReadings, AsOf: asOf, PartitionCount: ReadingsPartitions, ReplicationFactor: 1,
			Configs: map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}}
		g := catalog.GroupState{Group: IncidentGroup, State: "Stable", Protocol: "range", ProtocolType: "consumer"}
		members := map[string]*catalog.GroupMember{}
		var order []string
		for p := int32(0); p < ReadingsPartitions; p++ {
			hw := countBefore(p, asOf)
			cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: hw, LastStable: hw,
				Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
			cs.Dumped = append(cs.Dumped, p)
			// A member commits what arrived before the minute began.
			committed := countBefore(p, start.Add(at.Truncate(time.Minute)))
			c.Committed[p] = committed
			g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: committed, LeaderEpoch: -1})
			m := c.Holder[p]
			if members[m.MemberID] == nil {
				mm := m
				members[m.MemberID] = &mm
				order = append(order, m.MemberID)
			}
			members[m.MemberID].Assigned = append(members[m.MemberID].Assigned, p)
		}
		for _, id := range order {
			g.Members = append(g.Members, *members[id])
		}
		cs.Groups = []catalog.GroupState{g}
		if err := d.WriteClusterSnapshot(ctx, cs); err != nil {
			return nil, err
		}
		inc.Cuts = append(inc.Cuts, c)
		lastID = id
	}
	for p := int32(0); p < ReadingsPartitions; p++ {
		var rows []catalog.Row
		for i, r := range inc.Records[p] {
			rows = append(rows, catalog.Row{Partition: p, Offset: int64(i), Timestamp: r.Timestamp.UnixMilli(),
				TimestampType: catalog.TimestampCreate, Key: r.Key, Value: r.Value})
		}
		if err := writePartition(ctx, d, TopicReadings, p, lastID, int64(len(rows)), rows); err != nil {
			return nil, err
		}
	}
	return inc, nil
}
