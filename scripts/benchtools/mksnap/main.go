// Command mksnap writes a snapshot folder by code, without a broker: topic
// "bench", 6 partitions placed by the Java partitioner, N records made by
// the same generator scripts/benchtools/produce sends (benchevent: ~200 B
// JSON events keyed by user), files of 200,000 records (or FILE_RECORDS:
// scripts/bench-compact.sh writes thousands of small files), one cluster
// snapshot with one consumer group ("bench-readers", one member) whose
// committed offset is 10% of each partition's records behind its end, so
// that lag looks records up. scripts/bench-ab.sh uses it to compare two
// builds on the same files.
//
//	go run ./scripts/benchtools/mksnap DIR N [FILE_RECORDS]
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/scripts/benchtools/benchevent"
)

func main() {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: mksnap DIR N [FILE_RECORDS]")
		os.Exit(2)
	}
	fileRecords := 200_000
	if len(os.Args) == 4 {
		if fileRecords, _ = strconv.Atoi(os.Args[3]); fileRecords <= 0 {
			fmt.Fprintln(os.Stderr, "mksnap: FILE_RECORDS is a positive number of records")
			os.Exit(2)
		}
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "mksnap: N is a positive number of records")
		os.Exit(2)
	}
	if err := write(context.Background(), os.Args[1], n, fileRecords); err != nil {
		fmt.Fprintln(os.Stderr, "mksnap:", err)
		os.Exit(1)
	}
}

func write(ctx context.Context, dir string, n, fileRecords int) error {
	const parts = 6
	d, err := catalog.Create(dir)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	byPart := make([][]catalog.Row, parts)
	next := make([]int64, parts)
	files := make([][]catalog.FileEntry, parts)
	flush := func(p int) error {
		if len(byPart[p]) == 0 {
			return nil
		}
		fe, err := d.WriteDataFile(ctx, catalog.TopicPartition{Topic: "bench", Partition: int32(p)}, byPart[p], "s1")
		if err != nil {
			return err
		}
		files[p] = append(files[p], fe)
		byPart[p] = nil
		return nil
	}
	for i := 0; i < n; i++ {
		now := base.Add(time.Duration(i) * time.Millisecond)
		buf, key := benchevent.Append(nil, rng, i, now)
		p := int(catalog.JavaPartition(key, parts))
		byPart[p] = append(byPart[p], catalog.Row{Partition: int32(p), Offset: next[p], Timestamp: now.UnixMilli(),
			TimestampType: catalog.TimestampCreate, Key: key, Value: buf})
		next[p]++
		if len(byPart[p]) >= fileRecords {
			if err := flush(p); err != nil {
				return err
			}
		}
	}
	cs := &catalog.ClusterSnapshot{ID: "s1", Topic: "bench", AsOf: base.Add(time.Duration(n) * time.Millisecond),
		PartitionCount: parts, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete", "retention.ms": "604800000"}}
	g := catalog.GroupState{Group: "bench-readers", State: "Stable", Protocol: "range", ProtocolType: "consumer"}
	m := catalog.GroupMember{MemberID: "bench-reader-1-0001", ClientID: "bench-reader-1", Host: "/127.0.0.1"}
	for p := 0; p < parts; p++ {
		if err := flush(p); err != nil {
			return err
		}
		if err := d.WriteManifest(ctx, &catalog.Manifest{Topic: "bench", Partition: int32(p), NextOffset: next[p], Files: files[p]}); err != nil {
			return err
		}
		cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: int32(p), HighWatermark: next[p], LastStable: next[p]})
		cs.Dumped = append(cs.Dumped, int32(p))
		g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: int32(p), Offset: next[p] - next[p]/10})
		m.Assigned = append(m.Assigned, int32(p))
	}
	g.Members = []catalog.GroupMember{m}
	cs.Groups = []catalog.GroupState{g}
	return d.WriteClusterSnapshot(ctx, cs)
}
