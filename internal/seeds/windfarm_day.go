package seeds

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// The wind farm's July Thursday exactly as seed 000 tells it, written by
// code ([WriteWindFarmDayFolder]); `topicsnap demo --scenario windfarm`
// writes it. The figures are the story's:
//
//   - twenty-one farms keyed by farm, each on the partition an explicit map
//     gives it (DayFarms: partitions 0–20), on twenty-four partitions, so
//     21–23 are spare;
//   - 1,240 turbines, a reading every two seconds each: 620 a second;
//     Kilmore Sands 140 turbines (70 a second), Ardnave Point 300 turbines
//     on one partition (150 a second, 5.08 times the 29.5 a second average
//     of a farm, and so a hot partition);
//   - the writers' group galewatch-writers, six members holding four
//     partitions each (range assignor) until two watcher processes join
//     with the writers' group id at 11:02: eight members, three partitions
//     each, and the watchers (whose member ids sort first) get partitions
//     0–5, six farms with 360 turbines, 180 readings a second, Kilmore Sands
//     among them, until they stop at 11:16;
//   - every member commits every five seconds what arrived before that
//     moment, so the watchers moved the group past exactly the readings
//     the ingest boxes stamped from 11:02:00 to 11:16:00 on partitions 0–5:
//     360 × 420 = 151,200, which never reached a database; a reset of
//     those partitions at 11:21 to 11:00 re-reads them and 360 × 210 =
//     75,600 more (11:00–11:02, 11:16–11:21) that the writers had stored;
//   - the folder holds readings from 10:58 (two minutes before the reset
//     target, so the reset's target is found, not the log start), a cut a
//     minute from 11:00 to 11:21 and one a second after each rebalance, the
//     group's commit log (a dump of __consumer_offsets, records in Kafka's
//     own format: the generations and every commit), the backfill lane
//     readings-backfill (Tarrow Ridge's flash from a link that dropped
//     10:40–10:50, replayed from 11:05: 18,000 readings whose recorded_at
//     is more than a minute behind received_at), and the compacted routing
//     topic (a key per farm: its partition and machines), with its history
//     since the broker went in on 25 June, so topic_state answers "what did
//     the routing table say last Tuesday?" (14 July: Ardnave Point on two
//     machines; it was split over three on Wednesday the 15th).
//
// A record's timestamp is the ingest box's stamp when it accepted the
// reading (received_at): recorded_at plus 15–400 ms. Each turbine reads at
// a fixed phase under 1.5 s into its two-second slot, so every turbine has
// exactly one reading stamped in every two-second slot and the counts
// between whole seconds are exact.

// Topics and times of the day.
const (
	TopicRouting     = "routing"
	TopicOffsets     = "__consumer_offsets"
	OffsetsTopicSize = 50 // offsets.topic.num.partitions out of the box

	// DayCommitInterval is how often every member commits (the consumer's
	// auto.commit.interval.ms).
	DayCommitInterval = 5 * time.Second
	// DayBackfillFarm's link dropped from DayBackfillFrom to
	// DayBackfillTo; its flash replays into readings-backfill from
	// DayBackfillReplay, one reading per turbine a second.
	DayBackfillFarm = "tarrow-ridge"
)

// The day's moments (UTC).
var (
	DayFirstReading   = time.Date(2026, time.July, 16, 10, 58, 0, 0, time.UTC)
	DayResetTo        = time.Date(2026, time.July, 16, 11, 0, 0, 0, time.UTC)
	DayWatchersJoin   = time.Date(2026, time.July, 16, 11, 2, 0, 0, time.UTC)
	DayWatchersLeave  = time.Date(2026, time.July, 16, 11, 16, 0, 0, time.UTC)
	DayResetAt        = time.Date(2026, time.July, 16, 11, 21, 0, 0, time.UTC) // the last cut
	DayBackfillFrom   = time.Date(2026, time.July, 16, 10, 40, 0, 0, time.UTC)
	DayBackfillTo     = time.Date(2026, time.July, 16, 10, 50, 0, 0, time.UTC)
	DayBackfillReplay = time.Date(2026, time.July, 16, 11, 5, 0, 0, time.UTC)
	DayLastTuesday    = time.Date(2026, time.July, 14, 12, 0, 0, 0, time.UTC)
	dayWritersJoined  = time.Date(2026, time.July, 16, 9, 12, 0, 0, time.UTC) // the morning's deploy
)

// DayFarm is one farm of the day: its name, turbine code, the partition the
// explicit map gives it, and its turbines.
type DayFarm struct {
	Name, Code string
	Partition  int32
	Turbines   int
}

// DayFarms is Galewatch's explicit farm → partition map. Partitions 0–5
// (360 turbines) are the ones the watchers were handed.
var DayFarms = []DayFarm{
	{"ballycran-moor", "BM", 0, 40}, {"carrick-head", "CH", 1, 40}, {"dunmore-moss", "DM", 2, 60},
	{"kilmore-sands", "KS", 3, 140}, {"eskdale-fell", "EF", 4, 40}, {"fannich-ridge", "FR", 5, 40},
	{"ardnave-point", "AP", 6, 300}, {"glenbeg-flats", "GF", 7, 40}, {"hollin-edge", "HE", 8, 40},
	{"inverkip-shore", "IS", 9, 40}, {"jarrow-banks", "JB", 10, 40}, {"lochcarron-west", "LW", 11, 40},
	{"maiden-rigg", "MR", 12, 40}, {"nethermuir", "NM", 13, 40}, {"orwell-sands", "OS", 14, 40},
	{"portnahaven", "PN", 15, 40}, {"quarry-hill", "QH", 16, 40}, {"tarrow-ridge", "TR", 17, 60},
	{"rannoch-high", "RH", 18, 40}, {"stromay", "ST", 19, 40}, {"ullapool-brae", "UB", 20, 40},
}

// DayWatchedPartitions are the partitions the watchers held 11:02–11:16.
var DayWatchedPartitions = []int32{0, 1, 2, 3, 4, 5}

// RoutingValue is the value of a routing record: the farm's partition of
// readings and the Postgres machines its readings go to.
type RoutingValue struct {
	Farm      string   `json:"farm"`
	Partition int32    `json:"partition"`
	Machines  []string `json:"machines"`
}

// WindFarmDay is what WriteWindFarmDayFolder wrote.
type WindFarmDay struct {
	Readings         map[int32][]Record // readings, by partition, in offset order
	Backfill         map[int32][]Record // readings-backfill, likewise
	Routing          []Record           // routing (one partition), in offset order
	Offsets          []Record           // the group's partition of __consumer_offsets, in offset order
	OffsetsPartition int32
	Cuts             []IncidentCut // the cuts of readings, with the group at each
	Members          []catalog.GroupMember
}

// dayMembers are the six writers and the two watchers. A classic member id
// is the client id, a dash and a UUID the coordinator gives it; the
// watchers' sort before the writers', so the range assignor hands them the
// first partitions.
func dayMembers() (writers, watchers []catalog.GroupMember) {
	uuid := func(i int) string {
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", 0x3f1c0a52+i*0x1011, 0x6b2e+i, 0x1a0+i, 0x2b7+i, 0x5e0d4c3b2a10+i*0x101)
	}
	for i := range 6 {
		c := fmt.Sprintf("galewatch-writer-%d", i+1)
		writers = append(writers, catalog.GroupMember{MemberID: c + "-" + uuid(i), ClientID: c, Host: fmt.Sprintf("/10.20.0.%d", 11+i)})
	}
	for i := range 2 {
		c := fmt.Sprintf("galewatch-watcher-%d", i+1)
		watchers = append(watchers, catalog.GroupMember{MemberID: c + "-" + uuid(10+i), ClientID: c, Host: fmt.Sprintf("/10.20.3.%d", 40+i)})
	}
	return writers, watchers
}

// rangeAssign is the range assignor: members sorted by member id, each
// taking a run of consecutive partitions, the first ones one more when
// the partitions do not divide evenly.
func rangeAssign(members []catalog.GroupMember, partitions int32) map[int32]catalog.GroupMember {
	ms := slices.Clone(members)
	slices.SortFunc(ms, func(a, b catalog.GroupMember) int {
		if a.MemberID < b.MemberID {
			return -1
		}
		return 1
	})
	out := map[int32]catalog.GroupMember{}
	n := int32(len(ms))
	per, extra := partitions/n, partitions%n
	p := int32(0)
	for i, m := range ms {
		k := per
		if int32(i) < extra {
			k++
		}
		for range k {
			out[p] = m
			p++
		}
	}
	return out
}

// javaStringHash is Java's String.hashCode, which picks a group's partition
// of __consumer_offsets.
func javaStringHash(s string) int32 {
	var h int32
	for _, c := range s {
		h = 31*h + int32(c)
	}
	return h
}

// OffsetsPartitionOf is the partition of __consumer_offsets (50
// partitions) holding group's records: abs(hashCode) % 50, as Kafka picks it.
func OffsetsPartitionOf(group string) int32 {
	h := javaStringHash(group)
	if h == math.MinInt32 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % OffsetsTopicSize
}

// appendDayReading appends a reading's JSON value, as encoding/json would
// write it. The strings are plain ASCII, nothing to escape.
func appendDayReading(b []byte, turbineID, farm string, recordedAt, receivedAt time.Time, powerKW, windMS float64) []byte {
	b = append(b, `{"turbine_id":"`...)
	b = append(b, turbineID...)
	b = append(b, `","farm":"`...)
	b = append(b, farm...)
	b = append(b, `","recorded_at":"`...)
	b = recordedAt.UTC().AppendFormat(b, TimeLayout)
	b = append(b, `","received_at":"`...)
	b = receivedAt.UTC().AppendFormat(b, TimeLayout)
	b = append(b, `","power_kw":`...)
	b = strconv.AppendFloat(b, powerKW, 'f', -1, 64)
	b = append(b, `,"wind_ms":`...)
	b = strconv.AppendFloat(b, windMS, 'f', -1, 64)
	return append(b, '}')
}

// turbineID is the farm's code, a dash and the turbine's number, three
// digits on a farm of a hundred turbines or more ("AP-001", "DM-11").
func turbineID(f DayFarm, i int) string {
	if f.Turbines >= 100 {
		return fmt.Sprintf("%s-%03d", f.Code, i+1)
	}
	return fmt.Sprintf("%s-%02d", f.Code, i+1)
}

// windFarmDayRecords generates the day's records (no folder): readings and
// readings-backfill by partition, in offset order.
func windFarmDayRecords(seed uint64) (readings, backfill map[int32][]Record) {
	rng := rand.New(rand.NewPCG(seed, 0x47616c6577617463)) // "Galewatc"
	steps := int(DayResetAt.Sub(DayFirstReading) / ReadingInterval)
	readings, backfill = map[int32][]Record{}, map[int32][]Record{}
	for _, f := range DayFarms {
		type turbine struct {
			id     string
			phase  time.Duration
			factor float64
		}
		ts := make([]turbine, f.Turbines)
		for i := range ts {
			ts[i] = turbine{id: turbineID(f, i), phase: between(rng, 0, 1500*time.Millisecond), factor: 0.93 + 0.14*rng.Float64()}
		}
		mean := 5 + 8*rng.Float64()
		wind := mean
		key := []byte(f.Name)
		recs := make([]Record, 0, steps*f.Turbines)
		for s := range steps {
			wind = max(0, wind+0.05*(mean-wind)+0.08*rng.NormFloat64())
			for i := range ts {
				tb := &ts[i]
				recordedAt := DayFirstReading.Add(time.Duration(s)*ReadingInterval + tb.phase)
				receivedAt := recordedAt.Add(between(rng, 15*time.Millisecond, 400*time.Millisecond))
				v := max(0, wind*tb.factor+0.4*rng.NormFloat64())
				recs = append(recs, Record{Topic: TopicReadings, Partition: f.Partition, Key: key, Timestamp: receivedAt,
					Value: appendDayReading(make([]byte, 0, 160), tb.id, f.Name, recordedAt, receivedAt, math.Round(powerKW(v)*10)/10, math.Round(v*100)/100)})
			}
		}
		sortByTime(recs, func(r *Record) time.Time { return r.Timestamp }, func(r *Record) int32 { return r.Partition })
		readings[f.Partition] = recs
		if f.Name != DayBackfillFarm {
			continue
		}
		// The flash of the link's ten minutes, one reading per turbine a
		// second from DayBackfillReplay, turbines 16 ms apart.
		n := int(DayBackfillTo.Sub(DayBackfillFrom) / ReadingInterval)
		var bf []Record
		for j := range n {
			for i := range ts {
				recordedAt := DayBackfillFrom.Add(time.Duration(j)*ReadingInterval + ts[i].phase)
				receivedAt := DayBackfillReplay.Add(time.Duration(j)*time.Second + time.Duration(i)*16*time.Millisecond)
				v := max(0, mean*ts[i].factor+0.4*rng.NormFloat64())
				bf = append(bf, Record{Topic: TopicReadingsBackfill, Partition: f.Partition, Key: key, Timestamp: receivedAt,
					Value: appendDayReading(make([]byte, 0, 160), ts[i].id, f.Name, recordedAt, receivedAt, math.Round(powerKW(v)*10)/10, math.Round(v*100)/100)})
			}
		}
		backfill[f.Partition] = bf
	}
	return readings, backfill
}

// routingRecords is the routing topic's history: every farm placed when
// the broker went in (25 June), Dunmore Moss moved on Monday 13 July, and
// Ardnave Point split from two machines to three on Wednesday 15 July.
func routingRecords() []Record {
	var out []Record
	add := func(at time.Time, v RoutingValue) {
		b, _ := json.Marshal(v)
		out = append(out, Record{Topic: TopicRouting, Partition: 0, Key: []byte(v.Farm), Value: b, Timestamp: at})
	}
	placed := time.Date(2026, time.June, 25, 9, 0, 0, 0, time.UTC)
	for i, f := range DayFarms {
		m := []string{fmt.Sprintf("pg-%02d", 1+i%19)}
		if f.Name == "ardnave-point" {
			m = []string{"pg-07", "pg-08"}
		}
		add(placed.Add(time.Duration(i)*time.Second), RoutingValue{f.Name, f.Partition, m})
	}
	add(time.Date(2026, time.July, 13, 15, 30, 0, 0, time.UTC), RoutingValue{"dunmore-moss", 2, []string{"pg-18"}})
	add(time.Date(2026, time.July, 15, 14, 0, 0, 0, time.UTC), RoutingValue{"ardnave-point", 6, []string{"pg-07", "pg-08", "pg-19"}})
	return out
}

// countBefore is how many of rs (in timestamp order) have a timestamp
// before t: the committed offset of a member that has handled everything
// stamped before t.
func countBefore(rs []Record, t time.Time) int64 {
	i, _ := slices.BinarySearchFunc(rs, t, func(r Record, t time.Time) int { return r.Timestamp.Compare(t) })
	return int64(i)
}

// dayHolders is who held each partition at t: the writers until the
// rebalance at 11:02 (inclusive: a cut on the minute sees the group before
// it), all eight from then to 11:16 inclusive, the writers again after.
func dayHolders(t time.Time, writers, watchers []catalog.GroupMember) map[int32]catalog.GroupMember {
	if t.After(DayWatchersJoin) && !t.After(DayWatchersLeave) {
		return rangeAssign(append(slices.Clone(writers), watchers...), ReadingsPartitions)
	}
	return rangeAssign(writers, ReadingsPartitions)
}

// WriteWindFarmDayFolder writes seed 000's day (see the comment above) as a
// snapshot folder in dir. seed varies the wind, never a figure of the story.
func WriteWindFarmDayFolder(ctx context.Context, dir string, seed uint64) (*WindFarmDay, error) {
	readings, backfill := windFarmDayRecords(seed)
	writers, watchers := dayMembers()
	day := &WindFarmDay{Readings: readings, Backfill: backfill, Routing: routingRecords(),
		OffsetsPartition: OffsetsPartitionOf(IncidentGroup), Members: append(slices.Clone(writers), watchers...)}
	d, err := catalog.CreateAt(ctx, dir, catalog.S3Config{})
	if err != nil {
		return nil, err
	}
	snapID := func(t time.Time, tag string) string { return t.UTC().Format("20060102T150405.000Z") + "-" + tag }
	retention := map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}

	// The cuts of readings, with the group at each.
	var ats []time.Time
	for t := DayResetTo; !t.After(DayResetAt); t = t.Add(time.Minute) {
		ats = append(ats, t)
		if t.Equal(DayWatchersJoin) || t.Equal(DayWatchersLeave) {
			ats = append(ats, t.Add(time.Second))
		}
	}
	for _, at := range ats {
		c := IncidentCut{AsOf: at, Committed: map[int32]int64{}, Holder: dayHolders(at, writers, watchers)}
		cs := &catalog.ClusterSnapshot{ID: snapID(at, "readings"), Topic: TopicReadings, AsOf: at, Brokers: []string{"127.0.0.1:9092"},
			PartitionCount: ReadingsPartitions, ReplicationFactor: 1, Configs: retention}
		g := catalog.GroupState{Group: IncidentGroup, State: "Stable", Protocol: "range", ProtocolType: "consumer"}
		lastCommit := at.Truncate(DayCommitInterval)
		members := map[string]*catalog.GroupMember{}
		var order []string
		for p := int32(0); p < ReadingsPartitions; p++ {
			hw := countBefore(readings[p], at)
			cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: hw, LastStable: hw,
				Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
			cs.Dumped = append(cs.Dumped, p)
			c.Committed[p] = countBefore(readings[p], lastCommit)
			g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: c.Committed[p], LeaderEpoch: 0})
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
		day.Cuts = append(day.Cuts, c)
	}
	last := snapID(DayResetAt, "readings")
	for p := int32(0); p < ReadingsPartitions; p++ {
		if err := writeDayPartition(ctx, d, TopicReadings, p, last, readings[p]); err != nil {
			return nil, err
		}
	}

	// readings-backfill and routing: one cut each, at the last.
	bs := &catalog.ClusterSnapshot{ID: snapID(DayResetAt, "backfill"), Topic: TopicReadingsBackfill, AsOf: DayResetAt, Brokers: []string{"127.0.0.1:9092"},
		PartitionCount: ReadingsPartitions, ReplicationFactor: 1, Configs: retention}
	for p := int32(0); p < ReadingsPartitions; p++ {
		n := int64(len(backfill[p]))
		bs.Partitions = append(bs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: n, LastStable: n, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
		bs.Dumped = append(bs.Dumped, p)
		if err := writeDayPartition(ctx, d, TopicReadingsBackfill, p, bs.ID, backfill[p]); err != nil {
			return nil, err
		}
	}
	if err := d.WriteClusterSnapshot(ctx, bs); err != nil {
		return nil, err
	}
	n := int64(len(day.Routing))
	rs := &catalog.ClusterSnapshot{ID: snapID(DayResetAt, "routing"), Topic: TopicRouting, AsOf: DayResetAt, Brokers: []string{"127.0.0.1:9092"},
		PartitionCount: 1, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "compact"},
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: n, LastStable: n, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}}},
		Dumped:     []int32{0}}
	if err := writeDayPartition(ctx, d, TopicRouting, 0, rs.ID, day.Routing); err != nil {
		return nil, err
	}
	if err := d.WriteClusterSnapshot(ctx, rs); err != nil {
		return nil, err
	}

	// The group's commit log.
	day.Offsets = dayCommitLog(readings, writers, watchers)
	ofs := &catalog.ClusterSnapshot{ID: snapID(DayResetAt, "offsets"), Topic: TopicOffsets, AsOf: DayResetAt, Brokers: []string{"127.0.0.1:9092"},
		PartitionCount: OffsetsTopicSize, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "compact"}}
	for p := int32(0); p < OffsetsTopicSize; p++ {
		var recs []Record
		if p == day.OffsetsPartition {
			recs = day.Offsets
		}
		n := int64(len(recs))
		ofs.Partitions = append(ofs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: n, LastStable: n, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
		ofs.Dumped = append(ofs.Dumped, p)
		if err := writeDayPartition(ctx, d, TopicOffsets, p, ofs.ID, recs); err != nil {
			return nil, err
		}
	}
	if err := d.WriteClusterSnapshot(ctx, ofs); err != nil {
		return nil, err
	}
	return day, nil
}

// dayCommitLog is the group's records in __consumer_offsets, as the
// coordinator appends them: the writers' generation of the morning's
// deploy, then a commit of every partition by its holder every five
// seconds from the first reading to the reset, the watchers' generation
// just after the writers' commit at 11:02:00, and the writers' again just
// after the watchers' last commit at 11:16:00.
func dayCommitLog(readings map[int32][]Record, writers, watchers []catalog.GroupMember) []Record {
	part := OffsetsPartitionOf(IncidentGroup)
	var out []Record
	add := func(at time.Time, k, v []byte) {
		out = append(out, Record{Topic: TopicOffsets, Partition: part, Key: k, Value: v, Timestamp: at})
	}
	gen := int32(41)
	generation := func(at time.Time, ms []catalog.GroupMember) {
		held := rangeAssign(ms, ReadingsPartitions)
		var members []offsetstest.Member
		sorted := slices.Clone(ms)
		slices.SortFunc(sorted, func(a, b catalog.GroupMember) int {
			if a.MemberID < b.MemberID {
				return -1
			}
			return 1
		})
		for _, m := range sorted {
			om := offsetstest.Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.Host, SessionMs: 45000, RebalanceMs: 300000,
				Topics: []string{TopicReadings}, Assigned: map[string][]int32{}}
			for p := int32(0); p < ReadingsPartitions; p++ {
				if held[p].MemberID == m.MemberID {
					om.Assigned[TopicReadings] = append(om.Assigned[TopicReadings], p)
				}
			}
			members = append(members, om)
		}
		k, v := offsetstest.Group(IncidentGroup, gen, "range", sorted[0].MemberID, at.UnixMilli(), members...)
		add(at, k, v)
		gen++
	}
	generation(dayWritersJoined, writers)
	for c := DayFirstReading.Add(DayCommitInterval); !c.After(DayResetAt); c = c.Add(DayCommitInterval) {
		for p := int32(0); p < ReadingsPartitions; p++ {
			k, v := offsetstest.Commit(IncidentGroup, TopicReadings, p, countBefore(readings[p], c), 0, "", c.UnixMilli())
			add(c, k, v)
		}
		switch {
		case c.Equal(DayWatchersJoin):
			generation(c.Add(250*time.Millisecond), append(slices.Clone(writers), watchers...))
		case c.Equal(DayWatchersLeave):
			generation(c.Add(250*time.Millisecond), writers)
		}
	}
	return out
}

// writeDayPartition commits rs, with offsets from 0, as one data file of
// topic's partition p, and its manifest.
func writeDayPartition(ctx context.Context, d *catalog.Dir, topic string, p int32, snapshot string, rs []Record) error {
	rows := make([]catalog.Row, len(rs))
	for i, r := range rs {
		rows[i] = catalog.Row{Partition: p, Offset: int64(i), Timestamp: r.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: r.Key, Value: r.Value}
	}
	return writePartition(ctx, d, topic, p, snapshot, int64(len(rows)), rows)
}
