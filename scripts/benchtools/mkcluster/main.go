// Command mkcluster writes a snapshot folder of a whole cluster by code,
// without a broker: T topics ("t-0000", ...) of P partitions, R records a
// partition (benchevent's ~200 B JSON events) in F files a partition (as F
// nightly dumps would leave them), and one cluster snapshot a topic with
// one consumer group. With -only NAME it writes that one topic alone, the
// same bytes, so scripts/bench-folder.sh can hold a question about one
// topic in the whole folder against the same question in a folder that
// holds just that topic.
//
//	go run ./scripts/benchtools/mkcluster -topics 1000 -partitions 12 DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/scripts/benchtools/benchevent"
)

func main() {
	topics := flag.Int("topics", 300, "topics")
	parts := flag.Int("partitions", 4, "partitions a topic")
	records := flag.Int("records", 50, "records a partition")
	files := flag.Int("files", 1, "files a partition")
	only := flag.String("only", "", "write only this topic")
	flag.Parse()
	if flag.NArg() != 1 || *topics <= 0 || *parts <= 0 || *records <= 0 || *files <= 0 || *files > *records {
		fmt.Fprintln(os.Stderr, "usage: mkcluster [-topics T] [-partitions P] [-records R] [-files F] [-only NAME] DIR")
		os.Exit(2)
	}
	d, err := catalog.Create(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkcluster:", err)
		os.Exit(1)
	}
	for t := 0; t < *topics; t++ {
		name := fmt.Sprintf("t-%04d", t)
		if *only != "" && name != *only {
			continue
		}
		if err := writeTopic(context.Background(), d, name, t, *parts, *records, *files); err != nil {
			fmt.Fprintln(os.Stderr, "mkcluster:", err)
			os.Exit(1)
		}
	}
}

func writeTopic(ctx context.Context, d *catalog.Dir, topic string, seed, parts, records, files int) error {
	rng := rand.New(rand.NewPCG(uint64(seed), 2))
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cs := &catalog.ClusterSnapshot{ID: "s-" + topic, Topic: topic, AsOf: base.Add(24 * time.Hour),
		PartitionCount: parts, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}}
	g := catalog.GroupState{Group: topic + "-readers", State: "Stable", Protocol: "range", ProtocolType: "consumer"}
	m := catalog.GroupMember{MemberID: topic + "-reader-0001", ClientID: topic + "-reader", Host: "/127.0.0.1"}
	per := records / files
	for p := 0; p < parts; p++ {
		tp := catalog.TopicPartition{Topic: topic, Partition: int32(p)}
		var entries []catalog.FileEntry
		var next int64
		for f := 0; f < files; f++ {
			n := per
			if f == files-1 {
				n = records - per*(files-1)
			}
			rows := make([]catalog.Row, 0, n)
			for i := 0; i < n; i++ {
				now := base.Add(time.Duration(next) * time.Second)
				buf, key := benchevent.Append(nil, rng, int(next), now)
				rows = append(rows, catalog.Row{Partition: int32(p), Offset: next, Timestamp: now.UnixMilli(),
					TimestampType: catalog.TimestampCreate, Key: key, Value: buf})
				next++
			}
			fe, err := d.WriteDataFile(ctx, tp, rows, cs.ID)
			if err != nil {
				return err
			}
			entries = append(entries, fe)
		}
		if err := d.WriteManifest(ctx, &catalog.Manifest{Topic: topic, Partition: int32(p), NextOffset: next, Files: entries}); err != nil {
			return err
		}
		cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: int32(p), HighWatermark: next, LastStable: next})
		cs.Dumped = append(cs.Dumped, int32(p))
		g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: int32(p), Offset: next - next/10})
		m.Assigned = append(m.Assigned, int32(p))
	}
	g.Members = []catalog.GroupMember{m}
	cs.Groups = []catalog.GroupState{g}
	return d.WriteClusterSnapshot(ctx, cs)
}
