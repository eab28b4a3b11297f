package queries

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestWindFarmGroupLagAndSilence retells the second seed: a consumer group
// whose members include a watcher, lag in records at the cut, a farm whose
// partition went silent for fourteen minutes, and a backfill of late records.
func TestWindFarmGroupLagAndSilence(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	data := seeds.WindFarm(seeds.WindFarmConfig{Seed: 3})
	suffix := fmt.Sprint(time.Now().UnixNano())
	readings, backfill := "readings-"+suffix, "readings-backfill-"+suffix
	conn := kafkaconn.Conn{Brokers: bs}
	for _, topic := range []string{readings, backfill} {
		if err := dump.CreateTopic(ctx, conn, topic, seeds.ReadingsPartitions, keepForever); err != nil {
			t.Fatal(err)
		}
	}
	var recs []dump.Record
	for _, set := range []struct {
		topic string
		rs    []seeds.Record
	}{{readings, data.Readings}, {backfill, data.Backfill}} {
		for _, r := range set.rs {
			recs = append(recs, dump.Record{Topic: set.topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp})
		}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	// The group: a writer and a watcher with the writer's group id. Each
	// commits 100 records short of the end of every partition it was given.
	group := "writers-" + suffix
	adm, err := kgo.NewClient(kgo.SeedBrokers(bs...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ends, err := kadm.NewClient(adm).ListEndOffsets(ctx, readings)
	if err != nil {
		t.Fatal(err)
	}
	assigned := make(chan int, 2)
	for _, id := range []string{"galewatch-writer-1", "galewatch-watcher-1"} {
		var cl *kgo.Client
		cl, err = kgo.NewClient(kgo.SeedBrokers(bs...), kgo.ClientID(id), kgo.ConsumerGroup(group), kgo.ConsumeTopics(readings),
			kgo.DisableAutoCommit(), kgo.SessionTimeout(10*time.Second),
			kgo.OnPartitionsAssigned(func(ctx context.Context, c *kgo.Client, m map[string][]int32) {
				offs := map[string]map[int32]kgo.EpochOffset{readings: {}}
				for _, p := range m[readings] {
					e, _ := ends.Lookup(readings, p)
					offs[readings][p] = kgo.EpochOffset{Epoch: -1, Offset: e.Offset - 100}
				}
				c.CommitOffsetsSync(ctx, offs, nil)
				assigned <- len(m[readings])
			}))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		go func() {
			for ctx.Err() == nil {
				if f := cl.PollFetches(ctx); f.IsClientClosed() {
					return
				}
			}
		}()
	}
	// Wait until the group settles with both members holding partitions.
	deadline := time.After(90 * time.Second)
	for settled := false; !settled; {
		select {
		case <-assigned:
		case <-deadline:
			t.Fatal("the group never settled")
		case <-time.After(500 * time.Millisecond):
		}
		dg, err := kadm.NewClient(adm).DescribeGroups(ctx, group)
		if err == nil {
			g := dg[group]
			n := 0
			for _, m := range g.Members {
				if ca, ok := m.Assigned.AsConsumer(); ok && len(ca.Topics) > 0 {
					n++
				}
			}
			o, _ := kadm.NewClient(adm).FetchOffsets(ctx, group)
			settled = g.State == "Stable" && n == 2 && len(o[readings]) == seeds.ReadingsPartitions
		}
	}
	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{readings, backfill}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lag, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: readings})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(lag.Summary.Get("groups"), " ", lag.Summary.Get("max_lag_records")); got != "1 100" {
		t.Errorf("lag: groups and max lag %s, want 1 100 (%s)", got, lag.Message)
	}
	var clients []string
	offsets := 0
	for _, r := range lag.Rows {
		switch r.Get("kind") {
		case "member":
			clients = append(clients, r.Get("client_id").(string))
		case "offset":
			offsets++
			if asInt(r.Get("lag_records")) != 100 || asFloat(r.Get("lag_seconds")) <= 0 {
				t.Errorf("partition %v: lag %v records %v seconds", r.Get("partition"), r.Get("lag_records"), r.Get("lag_seconds"))
			}
		}
	}
	sort.Strings(clients)
	if strings.Join(clients, ",") != "galewatch-watcher-1,galewatch-writer-1" || offsets != seeds.ReadingsPartitions {
		t.Errorf("members %v, %d offset rows", clients, offsets)
	}
	fr, err := e.RunCheck(ctx, "freshness", CheckOptions{Topic: readings})
	if err != nil {
		t.Fatal(err)
	}
	if asInt(fr.Summary.Get("silent_stretches")) != 1 {
		t.Errorf("freshness: %s", fr.Message)
	}
	for _, r := range fr.Rows {
		if r.Get("kind") == "silence" {
			if int32(asInt(r.Get("partition"))) != data.Truth.SilentPartition || asFloat(r.Get("seconds")) < 13*60 {
				t.Errorf("silence on %v for %vs, want partition %d for ~14 minutes", r.Get("partition"), r.Get("seconds"), data.Truth.SilentPartition)
			}
		}
	}
	late, err := e.RunCheck(ctx, "freshness", CheckOptions{Topic: backfill, EventTime: "value.recorded_at", Late: 60})
	if err != nil {
		t.Fatal(err)
	}
	if asInt(late.Summary.Get("late_records")) != int64(data.Truth.BackfillRecords) {
		t.Errorf("late records %v, want %d", late.Summary.Get("late_records"), data.Truth.BackfillRecords)
	}
}
