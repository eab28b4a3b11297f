package seeds

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// WriteWindFarmFolder writes the wind farm's July Thursday as a snapshot
// folder in dir, by code and without a broker, so every figure is fixed:
// topics readings and readings-backfill (24 partitions, the explicit
// farm-to-partition map), one cut an hour after the last reading, and the
// consumer group of the seed: the writer it was meant for, plus two
// watcher instances that joined with the writer's group id and took six
// partitions, committed to their end, while the writer lags 100 records on
// each of its own.
func WriteWindFarmFolder(ctx context.Context, dir string, cfg WindFarmConfig) (*WindFarmData, error) {
	data := WindFarm(cfg)
	d, err := catalog.CreateAt(ctx, dir, catalog.S3Config{})
	if err != nil {
		return nil, err
	}
	last := data.Readings[len(data.Readings)-1].Timestamp
	asOf := last.Add(time.Hour).UTC().Truncate(time.Second)
	for _, set := range []struct {
		topic string
		rs    []Record
	}{{TopicReadings, data.Readings}, {TopicReadings + "-backfill", data.Backfill}} {
		id := "s1-" + set.topic // one cluster snapshot per topic and cut
		byPart := map[int32][]catalog.Row{}
		for _, r := range set.rs {
			rows := byPart[r.Partition]
			byPart[r.Partition] = append(rows, catalog.Row{Partition: r.Partition, Offset: int64(len(rows)),
				Timestamp: r.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: r.Key, Value: r.Value})
		}
		cs := &catalog.ClusterSnapshot{ID: id, Topic: set.topic, AsOf: asOf, PartitionCount: ReadingsPartitions,
			ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}}
		g := catalog.GroupState{Group: "galewatch-writers", State: "Stable", Protocol: "range", ProtocolType: "consumer"}
		writer := catalog.GroupMember{MemberID: "galewatch-writer-1-5f0c", ClientID: "galewatch-writer-1", Host: "/10.20.0.11"}
		watchers := []catalog.GroupMember{
			{MemberID: "galewatch-watcher-1-9a1e", ClientID: "galewatch-watcher-1", Host: "/10.20.3.40"},
			{MemberID: "galewatch-watcher-2-77b3", ClientID: "galewatch-watcher-2", Host: "/10.20.3.41"},
		}
		for p := int32(0); p < ReadingsPartitions; p++ {
			rows := byPart[p]
			n := int64(len(rows))
			cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: n, LastStable: n,
				Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
			cs.Dumped = append(cs.Dumped, p)
			if err := writePartition(ctx, d, set.topic, p, id, n, rows); err != nil {
				return nil, err
			}
			if set.topic != TopicReadings {
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
		if set.topic == TopicReadings {
			g.Members = append([]catalog.GroupMember{writer}, watchers...)
			cs.Groups = []catalog.GroupState{g}
		}
		if err := d.WriteClusterSnapshot(ctx, cs); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// WriteTeaShopFolder writes the tea shop's Monday as a snapshot folder in
// dir, by code and without a broker: topic app_events with the seed's
// partitions, one cut after the last event, and orders.csv, the orders
// table the missing check reads.
func WriteTeaShopFolder(ctx context.Context, dir string, cfg TeaShopConfig) (*TeaShopData, error) {
	data := TeaShop(cfg)
	d, err := catalog.CreateAt(ctx, dir, catalog.S3Config{})
	if err != nil {
		return nil, err
	}
	parts := map[int32][]catalog.Row{}
	var last time.Time
	for _, e := range data.Events {
		var hs []catalog.Header
		for _, h := range e.Headers {
			hs = append(hs, catalog.Header{Key: h.Key, Value: h.Value})
		}
		parts[e.Partition] = append(parts[e.Partition], catalog.Row{Partition: e.Partition, Offset: int64(len(parts[e.Partition])),
			Timestamp: e.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: e.Key, Value: e.Value, Headers: hs})
		if e.Timestamp.After(last) {
			last = e.Timestamp
		}
	}
	cs := &catalog.ClusterSnapshot{ID: "s1", Topic: TopicAppEvents, AsOf: last.Add(time.Hour).UTC().Truncate(time.Second),
		PartitionCount: AppEventsPartitions, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete"}}
	for p := int32(0); p < AppEventsPartitions; p++ {
		rows := parts[p]
		n := int64(len(rows))
		cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: p, HighWatermark: n, LastStable: n, Leader: 1, Replicas: []int32{1}, ISR: []int32{1}})
		cs.Dumped = append(cs.Dumped, p)
		if err := writePartition(ctx, d, TopicAppEvents, p, "s1", n, rows); err != nil {
			return nil, err
		}
	}
	if err := d.WriteClusterSnapshot(ctx, cs); err != nil {
		return nil, err
	}
	var csv bytes.Buffer
	if err := data.OrdersCSV(&csv); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), csv.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("write orders.csv: %w", err)
	}
	return data, nil
}

// writePartition commits rows as one data file of topic's partition p and
// a manifest listing it whose next offset is next.
func writePartition(ctx context.Context, d *catalog.Dir, topic string, p int32, snapshot string, next int64, rows []catalog.Row) error {
	m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: next}
	if len(rows) > 0 {
		fe, err := d.WriteDataFile(ctx, catalog.TopicPartition{Topic: topic, Partition: p}, rows, snapshot)
		if err != nil {
			return err
		}
		m.Files = []catalog.FileEntry{fe}
	}
	return d.WriteManifest(ctx, m)
}
