package queries

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/testdata/seeds"
)

// windFarmFolder writes the wind farm's July Thursday as a snapshot folder,
// by code and without a broker, so every figure is fixed: topics readings
// and readings-backfill (24 partitions, the explicit farm-to-partition map),
// one cut an hour after the last reading, and the consumer group of the
// seed: the writer it was meant for, plus two watcher instances that joined
// with the writer's group id and took six partitions, committed to their
// end, while the writer lags 100 records on each of its own.
// (TestWindFarmGroupLagAndSilence tells the same story on the real broker.)
func windFarmFolder(t *testing.T) (string, *seeds.WindFarmData) {
	t.Helper()
	data := seeds.WindFarm(seeds.WindFarmConfig{Seed: 3})
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	last := data.Readings[len(data.Readings)-1].Timestamp
	asOf := last.Add(time.Hour).UTC().Truncate(time.Second)
	for _, set := range []struct {
		topic string
		rs    []seeds.Record
	}{{"readings", data.Readings}, {"readings-backfill", data.Backfill}} {
		id := "s1-" + set.topic // one cluster snapshot per topic and cut
		byPart := map[int32][]catalog.Row{}
		for _, r := range set.rs {
			rows := byPart[r.Partition]
			byPart[r.Partition] = append(rows, catalog.Row{Partition: r.Partition, Offset: int64(len(rows)),
				Timestamp: r.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: r.Key, Value: r.Value})
		}
		cs := &catalog.ClusterSnapshot{ID: id, Topic: set.topic, AsOf: asOf, PartitionCount: seeds.ReadingsPartitions,
			ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}}
		g := catalog.GroupState{Group: "galewatch-writers", State: "Stable", Protocol: "range", ProtocolType: "consumer"}
		writer := catalog.GroupMember{MemberID: "galewatch-writer-1-5f0c", ClientID: "galewatch-writer-1", Host: "/10.20.0.11"}
		watchers := []catalog.GroupMember{
			{MemberID: "galewatch-watcher-1-9a1e", ClientID: "galewatch-watcher-1", Host: "/10.20.3.40"},
			{MemberID: "galewatch-watcher-2-77b3", ClientID: "galewatch-watcher-2", Host: "/10.20.3.41"},
		}
		for p := int32(0); p < seeds.ReadingsPartitions; p++ {
			rows := byPart[p]
			n := int64(len(rows))
			cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: n, LastStable: n,
				Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
			cs.Dumped = append(cs.Dumped, p)
			writePartition(t, d, set.topic, p, id, n, rows)
			if set.topic != "readings" {
				continue
			}
			// Partitions 18-23 went to the watchers, which read them to the end.
			if p < 18 {
				writer.Assigned = append(writer.Assigned, p)
				g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: max(0, n-100), LeaderEpoch: -1})
			} else {
				w := &watchers[(p-18)/3]
				w.Assigned = append(w.Assigned, p)
				g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: n, LeaderEpoch: -1})
			}
		}
		if set.topic == "readings" {
			g.Members = append([]catalog.GroupMember{writer}, watchers...)
			cs.Groups = []catalog.GroupState{g}
		}
		if err := d.WriteClusterSnapshot(cs); err != nil {
			t.Fatal(err)
		}
	}
	return dir, data
}

// TestGoldenWindFarm keeps the checks' JSON documents on the wind farm's day
// as golden files. Regenerate with: go test ./queries -run Golden -update
func TestGoldenWindFarm(t *testing.T) {
	dir, data := windFarmFolder(t)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	results := runGolden(t, e, "windfarm-", []goldenCase{
		{"gaps", "gaps", CheckOptions{Topic: "readings"}},
		{"skew", "skew", CheckOptions{Topic: "readings"}},
		{"keys", "keys", CheckOptions{Topic: "readings"}},
		{"lag", "lag", CheckOptions{Topic: "readings"}},
		{"freshness-silence", "freshness", CheckOptions{Topic: "readings"}},
		{"freshness-backfill-late", "freshness", CheckOptions{Topic: "readings-backfill", EventTime: "value.recorded_at", Late: 60}},
	})
	// The figures the seed tells, asserted beside the golden files so a
	// regenerated file cannot quietly change the story.
	if r := results["lag"]; r != nil {
		var members []string
		eaten := 0
		for _, row := range r.Rows {
			if row.Get("kind") == "member" {
				members = append(members, fmt.Sprint(row.Get("client_id")))
			}
			if row.Get("kind") == "offset" && asInt(row.Get("lag_records")) == 0 {
				eaten++
			}
		}
		sort.Strings(members)
		if fmt.Sprint(members) != "[galewatch-watcher-1 galewatch-watcher-2 galewatch-writer-1]" || eaten != 6 ||
			asInt(r.Summary.Get("max_lag_records")) != 100 {
			t.Errorf("lag: members %v, %d partitions read to the end, max lag %v", members, eaten, r.Summary.Get("max_lag_records"))
		}
	}
	if r := results["freshness-silence"]; r != nil && asInt(r.Summary.Get("silent_stretches")) != 1 {
		t.Errorf("silences: %v, want 1 (farm %s, partition %d)", r.Summary.Get("silent_stretches"), data.Truth.SilentFarm, data.Truth.SilentPartition)
	}
	if r := results["freshness-backfill-late"]; r != nil && asInt(r.Summary.Get("late_records")) != int64(data.Truth.BackfillRecords) {
		t.Errorf("late records %v, want %d", r.Summary.Get("late_records"), data.Truth.BackfillRecords)
	}
}
