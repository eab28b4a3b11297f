// Command mksnap writes a snapshot folder by code, without a broker: topic
// "bench", 6 partitions placed by the Java partitioner, N records of the
// same shape scripts/benchtools/produce sends (~200 B JSON events keyed by
// user), files of 200,000 records, one cluster snapshot. scripts/bench-ab.sh
// uses it to compare two builds on the same files.
//
//	go run ./scripts/benchtools/mksnap DIR N
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

var (
	eventTypes = []string{"page_view", "add_to_cart", "checkout", "purchase", "search", "login", "logout", "click"}
	countries  = []string{"DE", "FR", "US", "GB", "NL", "SE", "IT", "ES", "PL", "JP"}
	devices    = []string{"ios", "android", "web", "desktop"}
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mksnap DIR N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "mksnap: N is a positive number of records")
		os.Exit(2)
	}
	if err := write(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, "mksnap:", err)
		os.Exit(1)
	}
}

func write(dir string, n int) error {
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
		fe, err := d.WriteDataFile(catalog.TopicPartition{Topic: "bench", Partition: int32(p)}, byPart[p], "s1")
		if err != nil {
			return err
		}
		files[p] = append(files[p], fe)
		byPart[p] = nil
		return nil
	}
	for i := 0; i < n; i++ {
		now := base.Add(time.Duration(i) * time.Millisecond)
		user := rng.IntN(100_000)
		buf := []byte(`{"event_id":"`)
		buf = fmt.Appendf(buf, "%016x%016x", rng.Uint64(), uint64(i))
		buf = append(buf, `","type":"`...)
		buf = append(buf, eventTypes[rng.IntN(len(eventTypes))]...)
		buf = append(buf, `","user_id":`...)
		buf = strconv.AppendInt(buf, int64(user), 10)
		buf = append(buf, `,"ts":"`...)
		buf = now.UTC().AppendFormat(buf, "2006-01-02T15:04:05.000Z")
		buf = append(buf, `","amount":`...)
		buf = strconv.AppendFloat(buf, float64(rng.IntN(100_000))/100, 'f', 2, 64)
		buf = append(buf, `,"country":"`...)
		buf = append(buf, countries[rng.IntN(len(countries))]...)
		buf = append(buf, `","device":"`...)
		buf = append(buf, devices[rng.IntN(len(devices))]...)
		buf = append(buf, `","url":"/products/`...)
		buf = strconv.AppendInt(buf, int64(rng.IntN(50_000)), 10)
		buf = append(buf, `?ref=c`...)
		buf = strconv.AppendInt(buf, int64(rng.IntN(1000)), 10)
		buf = append(buf, `"}`...)
		key := []byte("user-" + strconv.Itoa(user))
		p := int(catalog.JavaPartition(key, parts))
		byPart[p] = append(byPart[p], catalog.Row{Partition: int32(p), Offset: next[p], Timestamp: now.UnixMilli(),
			TimestampType: catalog.TimestampCreate, Key: key, Value: buf})
		next[p]++
		if len(byPart[p]) >= 200_000 {
			if err := flush(p); err != nil {
				return err
			}
		}
	}
	cs := &catalog.ClusterSnapshot{ID: "s1", Topic: "bench", AsOf: base.Add(time.Duration(n) * time.Millisecond),
		PartitionCount: parts, ReplicationFactor: 1, Configs: map[string]string{"cleanup.policy": "delete"}}
	for p := 0; p < parts; p++ {
		if err := flush(p); err != nil {
			return err
		}
		if err := d.WriteManifest(&catalog.Manifest{Topic: "bench", Partition: int32(p), NextOffset: next[p], Files: files[p]}); err != nil {
			return err
		}
		cs.Partitions = append(cs.Partitions, catalog.PartitionState{Partition: int32(p), HighWatermark: next[p], LastStable: next[p]})
		cs.Dumped = append(cs.Dumped, int32(p))
	}
	return d.WriteClusterSnapshot(cs)
}
