package queries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// durabilityTopic is one topic of the durability fixture: its cuts (each a
// map from partition to its state at that cut, and the configs the cut
// recorded) and the records of each partition.
type durabilityTopic struct {
	name  string
	cuts  []durabilityCut
	parts int32
	// records of each partition: count, producer id and leader epoch of
	// each (epochs[i] for the i-th record, the last one repeating).
	records    int64
	producerID func(p int32, i int64) int64
	epochs     []int32
}

type durabilityCut struct {
	configs      map[string]string
	configsError string
	state        func(p int32) catalog.PartitionState
}

// rf3 is a partition on brokers 1, 2 and 3, all in sync, led by 1 at epoch.
func rf3(epoch int32, isr ...int32) func(p int32) catalog.PartitionState {
	if len(isr) == 0 {
		isr = []int32{1, 2, 3}
	}
	return func(p int32) catalog.PartitionState {
		return catalog.PartitionState{Partition: p, Leader: isr[0], LeaderEpoch: epoch, Replicas: []int32{1, 2, 3}, ISR: isr}
	}
}

var safeConfigs = map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "false", "cleanup.policy": "delete"}

func idempotent(p int32, i int64) int64 { return 1000 + int64(p) }

// durabilityFolder writes the topics' cuts and records into a new folder.
func durabilityFolder(t *testing.T, topics []durabilityTopic) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 9, 14, 9, 0, 0, 0, time.UTC)
	for _, tp := range topics {
		for c, cut := range tp.cuts {
			id := fmt.Sprintf("%s-%d", tp.name, c+1)
			s := &catalog.ClusterSnapshot{ID: id, Topic: tp.name, AsOf: at.Add(time.Duration(c) * time.Hour), PartitionCount: int(tp.parts),
				Configs: map[string]string{}, ConfigsError: cut.configsError}
			for k, v := range cut.configs {
				s.Configs[k] = v
			}
			for p := int32(0); p < tp.parts; p++ {
				st := cut.state(p)
				st.HighWatermark = tp.records
				s.ReplicationFactor = max(s.ReplicationFactor, len(st.Replicas))
				s.Partitions = append(s.Partitions, st)
				s.Dumped = append(s.Dumped, p)
			}
			if err := d.WriteClusterSnapshot(t.Context(), s); err != nil {
				t.Fatal(err)
			}
		}
		for p := int32(0); p < tp.parts; p++ {
			var rows []catalog.Row
			for i := int64(0); i < tp.records; i++ {
				epoch := tp.epochs[min(int(i), len(tp.epochs)-1)]
				rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: at.UnixMilli() + i*1000, TimestampType: catalog.TimestampCreate,
					Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i)),
					LeaderEpoch: epoch, ProducerID: tp.producerID(p, i), ProducerEpoch: 0})
			}
			writePartition(t, d, tp.name, p, fmt.Sprintf("%s-1", tp.name), tp.records, rows)
		}
	}
	return dir
}

// TestGoldenDurability: the durability check on cuts made by code, one
// topic a case: replication factor 1 (fail), RF 3 with min.insync.replicas
// 2 and every record idempotent (ok), the ISR shrinking below the minimum
// at one cut (fail), a leader epoch change (warn), min.insync.replicas 1
// with unclean election on (fail; with 2, warn), no cut of the topic at all
// (warn: unknown), records without producer ids (warn),
// configs the cut could not read (warn: unknown, never ok), and a topic
// with RF 1 and no records (still fail, and says no records).
func TestGoldenDurability(t *testing.T) {
	nonIdem := func(p int32, i int64) int64 {
		if i%4 == 0 {
			return -1
		}
		return 1000
	}
	topics := []durabilityTopic{
		{name: "rf1", parts: 2, records: 4, producerID: func(int32, int64) int64 { return -1 }, epochs: []int32{0},
			cuts: []durabilityCut{{configs: map[string]string{"min.insync.replicas": "1"}, state: func(p int32) catalog.PartitionState {
				return catalog.PartitionState{Partition: p, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}}
			}}}},
		{name: "safe", parts: 2, records: 3, producerID: idempotent, epochs: []int32{7},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(7)}, {configs: safeConfigs, state: rf3(7)}}},
		{name: "shrunk", parts: 2, records: 3, producerID: idempotent, epochs: []int32{2},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(2)}, {configs: safeConfigs, state: func(p int32) catalog.PartitionState {
				if p == 1 {
					return rf3(2, 1)(p) // only the leader in sync: below 2
				}
				return rf3(2)(p)
			}}, {configs: safeConfigs, state: rf3(2)}}},
		{name: "elected", parts: 1, records: 4, producerID: idempotent, epochs: []int32{4, 4, 5},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(4)}, {configs: safeConfigs, state: rf3(6, 2, 3, 1)}}},
		// A broker restarted and elected leader again: two elections per
		// partition, the cuts see broker 1 leading before and after. They
		// are elections (each bumps the epoch), said as such, with the
		// same leader named; it was "6 leader changes".
		{name: "reelected", parts: 3, records: 4, producerID: idempotent, epochs: []int32{4, 4, 5},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(4)}, {configs: safeConfigs, state: rf3(6)}}},
		{name: "unclean", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0},
			cuts: []durabilityCut{{configs: map[string]string{"min.insync.replicas": "1", "unclean.leader.election.enable": "true"}, state: rf3(0)}}},
		{name: "unclean-min2", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0},
			cuts: []durabilityCut{{configs: map[string]string{"min.insync.replicas": "2", "unclean.leader.election.enable": "true"}, state: rf3(0)}}},
		{name: "noepochs", parts: 1, records: 2, producerID: idempotent, epochs: []int32{-1},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(-1)}}},
		{name: "partconfigs", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(0)}, {configsError: "the configs could not be read", state: rf3(0)}}},
		{name: "nocut", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0}},
		{name: "noprod", parts: 2, records: 8, producerID: nonIdem, epochs: []int32{1},
			cuts: []durabilityCut{{configs: safeConfigs, state: rf3(1)}}},
		{name: "noconfigs", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0},
			cuts: []durabilityCut{{configsError: "topicsnap may not read the configs of topic noconfigs (DESCRIBE_CONFIGS)", state: rf3(0)}}},
		{name: "empty-rf1", parts: 1, records: 0, producerID: idempotent, epochs: []int32{0},
			cuts: []durabilityCut{{configs: map[string]string{"min.insync.replicas": "1"}, state: func(p int32) catalog.PartitionState {
				return catalog.PartitionState{Partition: p, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}}
			}}}},
	}
	e, err := Open(context.Background(), durabilityFolder(t, topics), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var cases []goldenCase
	for _, tp := range topics {
		cases = append(cases, goldenCase{tp.name, "durability", CheckOptions{Topic: tp.name}})
	}
	got := runGolden(t, e, "durability-", cases)
	want := map[string]struct {
		status                 string
		atRisk, nonIdem, below any
	}{
		"rf1":          {StatusFail, int64(2), int64(8), int64(0)},
		"safe":         {StatusOK, int64(0), int64(0), int64(0)},
		"shrunk":       {StatusFail, int64(1), int64(0), int64(1)},
		"elected":      {StatusWarn, int64(0), int64(0), int64(0)},
		"reelected":    {StatusWarn, int64(0), int64(0), int64(0)},
		"unclean":      {StatusFail, int64(1), int64(0), int64(0)},
		"unclean-min2": {StatusWarn, int64(0), int64(0), int64(0)},
		"nocut":        {StatusWarn, int64(0), int64(0), nil},
		"partconfigs":  {StatusWarn, int64(0), int64(0), int64(0)},
		"noepochs":     {StatusWarn, int64(0), int64(0), int64(0)},
		"noprod":       {StatusWarn, int64(0), int64(4), int64(0)},
		"noconfigs":    {StatusWarn, int64(0), int64(0), nil},
		"empty-rf1":    {StatusFail, int64(1), int64(0), int64(0)},
	}
	for name, w := range want {
		r := got[name]
		if r == nil {
			continue // its subtest failed
		}
		if r.Status != w.status || r.Summary.Get("partitions_at_risk") != w.atRisk || r.Summary.Get("non_idempotent_records") != w.nonIdem ||
			r.Summary.Get("isr_below_min_cuts") != w.below {
			t.Errorf("%s: %s at_risk=%v non_idempotent=%v isr_below_min_cuts=%v, want %+v: %s", name, r.Status,
				r.Summary.Get("partitions_at_risk"), r.Summary.Get("non_idempotent_records"), r.Summary.Get("isr_below_min_cuts"), w, r.Message)
		}
		// It always says what it cannot see.
		if !strings.Contains(r.Message, "not seen: acks") {
			t.Errorf("%s does not say what it cannot see: %s", name, r.Message)
		}
		// No fixture's folder holds a rewrite (TestClusterUncleanElection
		// makes one on a real cluster): 0 seen, never unknown.
		if r.Summary.Get("rewritten_offsets") != int64(0) {
			t.Errorf("%s: rewritten_offsets %v, want 0", name, r.Summary.Get("rewritten_offsets"))
		}
	}
	if r := got["elected"]; r != nil && (r.Rows[0].Get("leader_changes") != int64(2) || r.Rows[0].Get("same_cut_leader") != nil ||
		!strings.Contains(r.Message, "2 leader elections on 1 partition (0) (each bumps the leader epoch, even one that elects the same broker again; a leader elected while in sync loses nothing; one that was not, or a record written with acks=1, can);") || strings.Contains(r.Message, "leader change")) {
		t.Errorf("elected: leader_changes %v, same_cut_leader %v, want 2 (epochs 4 to 6) and none (broker 1, then 2): %s", r.Rows[0].Get("leader_changes"), r.Rows[0].Get("same_cut_leader"), r.Message)
	}
	if r := got["reelected"]; r != nil {
		if r.Summary.Get("leader_changes") != int64(6) || !strings.Contains(r.Message, "6 leader elections on 3 partitions (0, 1, 2) (each bumps the leader epoch, even one that elects the same broker again; a leader elected while in sync loses nothing; one that was not, or a record written with acks=1, can); on each, the cuts saw the same broker leading before and after (elected again, as after its restart)") ||
			strings.Contains(r.Message, "leader change") {
			t.Errorf("reelected: leader_changes %v: %s", r.Summary.Get("leader_changes"), r.Message)
		}
		for _, row := range r.Rows {
			if row.Get("same_cut_leader") != int64(1) || !strings.Contains(fmt.Sprint(row.Get("findings")), "2 leader elections (leader epochs 4 to 6); the same leader, broker 1, at every cut (leader epochs 4 to 6)") {
				t.Errorf("reelected partition %v: same_cut_leader %v, %v", row.Get("partition"), row.Get("same_cut_leader"), row.Get("findings"))
			}
		}
	}
	// Settings no cut recorded because the cuts could not read the configs
	// are said so, with the cut's reason, not as cuts of older dumps.
	if r := got["noconfigs"]; r != nil && (!strings.Contains(r.Message, "min.insync.replicas and unclean.leader.election.enable not recorded by any cut (1 cut could not read the topic's configs: topicsnap may not read the configs of topic noconfigs (DESCRIBE_CONFIGS))") ||
		strings.Contains(r.Message, "older than") || r.Summary.Get("cuts_without_configs") != int64(1)) {
		t.Errorf("noconfigs does not say its cut could not read the configs (cuts_without_configs %v): %s", r.Summary.Get("cuts_without_configs"), r.Message)
	}
	if r := got["empty-rf1"]; r != nil && !strings.Contains(r.Message, "no records") {
		t.Errorf("empty-rf1 does not say it holds no records: %s", r.Message)
	}
}

// TestDurabilityOnTheBroker: a topic created with replication factor 1 on
// the cluster under test (the real broker in make test, kfake otherwise),
// written by a producer without idempotence, dumped: the check fails on
// replication factor 1 and counts every record as written without
// idempotence, exactly.
func TestDurabilityOnTheBroker(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := fmt.Sprintf("durability_%d", time.Now().UnixNano())
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if r, err := adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil || r.Err != nil {
		t.Fatalf("create %s: %v %v", topic, err, r.Err)
	}
	const n = 1037 // past 999: the message's counts are both written 1,037
	var recs []*kgo.Record
	for i := 0; i < n; i++ {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: []byte(fmt.Sprint(i)), Value: []byte(fmt.Sprintf(`{"i":%d}`, i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := dump.Run(ctx, dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(ctx, "durability", CheckOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", r.Status, r.Message)
	if r.Status != StatusFail || r.Summary.Get("replication_factor") != int64(1) || r.Summary.Get("partitions_at_risk") != int64(2) ||
		r.Summary.Get("records") != int64(n) || r.Summary.Get("non_idempotent_records") != int64(n) || r.Summary.Get("non_idempotent_share") != 1.0 {
		t.Fatalf("%s: %v", r.Status, r.Summary.Vals)
	}
	if !strings.Contains(r.Message, "replication factor 1 on 2 partitions (0, 1)") || !strings.Contains(r.Message, "1,037 records of 1,037 (100.0%) written without idempotence") {
		t.Fatalf("message: %s", r.Message)
	}
	for _, row := range r.Rows {
		if row.Get("replication_factor") != int64(1) || row.Get("risk") != StatusFail || row.Get("non_idempotent_records") == int64(0) {
			t.Errorf("partition row: %v", row.Vals)
		}
	}
}

// TestDurabilityUnreadableCut: a cut that cannot be read may be the one
// that saw the ISR short: a topic otherwise safe is warn, never ok, and the
// summary counts it. One in another topic's folder of cuts is that topic's,
// not this one's; one of a folder written before cuts were kept by topic
// (snapshots/ID.json) may be any topic's. The same on an engine limited to
// the topic.
func TestDurabilityUnreadableCut(t *testing.T) {
	cases := []struct {
		name, rel string
		counted   bool
	}{
		{"old layout", "snapshots/safe-2.json", true},
		{"its own folder", "snapshots/topic=safe/safe-2.json", true},
		{"another topic's folder", "snapshots/topic=other/other-1.json", false},
	}
	for _, c := range cases {
		for _, limited := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/limited=%v", c.name, limited), func(t *testing.T) {
				dir := durabilityFolder(t, []durabilityTopic{{name: "safe", parts: 1, records: 2, producerID: idempotent, epochs: []int32{0},
					cuts: []durabilityCut{{configs: safeConfigs, state: rf3(0)}}}})
				p := filepath.Join(dir, filepath.FromSlash(c.rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("{not json"), 0o644); err != nil {
					t.Fatal(err)
				}
				o := Options{}
				if limited {
					o = Options{Lazy: true, Topics: []string{"safe"}}
				}
				e, err := Open(context.Background(), dir, o)
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				r, err := e.RunCheck(context.Background(), "durability", CheckOptions{Topic: "safe"})
				if err != nil {
					t.Fatal(err)
				}
				if c.counted && (r.Status != StatusWarn || r.Summary.Get("unreadable_cuts") != int64(1) || !strings.Contains(r.Message, "1 cut of the folder could not be read and is not judged")) ||
					!c.counted && (r.Status != StatusOK || r.Summary.Get("unreadable_cuts") != nil || strings.Contains(r.Message, "could not be read")) {
					t.Fatalf("%s %v: %s", r.Status, r.Summary.Get("unreadable_cuts"), r.Message)
				}
			})
		}
	}
}
