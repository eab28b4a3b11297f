package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/server"
)

func init() {
	extraCommands = append(extraCommands, (*app).demoCmd)
}

type demoOptions struct {
	dir   string
	addr  string
	users int
	serve bool
}

func (a *app) demoCmd() *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo [--dir DIR] [--addr 127.0.0.1:8080]",
		Short: "Everything on an embedded Kafka: the tea shop's Monday dumped, checked and served",
		Long: `demo starts an in-process Kafka (franz-go's kfake), produces the tea shop's Monday into
app_events (6 partitions keyed by user id, JSON events, at-least-once copies, orders
whose order_completed event never arrived), dumps it with the real dump code, writes
the orders file beside it, runs every check, prints the verdicts and serves the reports
until Ctrl-C. The snapshot folder stays for topicsnap sql to explore.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "demo-snapshots", "snapshot folder to create")
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "where to serve the reports")
	cmd.Flags().IntVar(&o.users, "users", 2000, "users in the generated Monday")
	cmd.Flags().BoolVar(&o.serve, "serve", true, "serve the reports after the checks")
	return cmd
}

// forever keeps the generated day, whose timestamps are in the past, from
// being deleted by retention on a real broker.
var forever = "-1"

// loadTeaShop produces the tea shop's Monday to the cluster, dumps it into
// dir and writes orders.csv beside the snapshots.
func loadTeaShop(ctx context.Context, conn dump.Conn, dir string, users int) (*seeds.TeaShopData, dump.Summary, error) {
	data := seeds.TeaShop(seeds.TeaShopConfig{Users: users, Seed: 1})
	if err := dump.CreateTopic(ctx, conn, seeds.TopicAppEvents, seeds.AppEventsPartitions, map[string]*string{"retention.ms": &forever}); err != nil {
		return nil, dump.Summary{}, err
	}
	recs := make([]dump.Record, len(data.Events))
	for i, e := range data.Events {
		var hs []kgo.RecordHeader
		for _, h := range e.Headers {
			hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
		recs[i] = dump.Record{Topic: e.Topic, Partition: e.Partition, Key: e.Key, Value: e.Value, Timestamp: e.Timestamp, Headers: hs}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		return nil, dump.Summary{}, err
	}
	// The kitchen display reads app_events and fell behind: it committed
	// the offset of the last event before 11:00 Harbor time on each partition.
	behind := map[int32]int64{}
	counts := map[int32]int64{}
	cutoff := data.Events[0].Timestamp.Truncate(24 * time.Hour).Add(15 * time.Hour) // 11:00 at UTC-4
	for _, e := range data.Events {
		if e.Timestamp.Before(cutoff) {
			behind[e.Partition] = counts[e.Partition] + 1
		}
		counts[e.Partition]++
	}
	if err := dump.CommitGroupOffsets(ctx, conn, "kitchen-display", seeds.TopicAppEvents, behind); err != nil {
		return nil, dump.Summary{}, err
	}
	sum, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{seeds.TopicAppEvents}})
	if err != nil {
		return nil, sum, err
	}
	f, err := os.Create(filepath.Join(dir, "orders.csv"))
	if err != nil {
		return nil, sum, fmt.Errorf("write orders.csv: %w", err)
	}
	defer f.Close()
	if err := data.OrdersCSV(f); err != nil {
		return nil, sum, fmt.Errorf("write orders.csv: %w", err)
	}
	return data, sum, f.Sync()
}

// demoChecks are the checks the demo runs, with the options the tea shop needs.
func demoChecks(dir string) []struct {
	name string
	opts queries.CheckOptions
} {
	t := seeds.TopicAppEvents
	return []struct {
		name string
		opts queries.CheckOptions
	}{
		{"gaps", queries.CheckOptions{Topic: t}},
		{"duplicates", queries.CheckOptions{Topic: t, ID: "value.event_id"}},
		{"skew", queries.CheckOptions{Topic: t, WhatIfKey: "value.city"}},
		{"missing", queries.CheckOptions{Topic: t, Where: "value.event_name = 'order_completed'", Match: "value.order_id",
			Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id", By: "platform"}},
		{"keys", queries.CheckOptions{Topic: t}},
		{"order", queries.CheckOptions{Topic: t}},
		{"freshness", queries.CheckOptions{Topic: t, Silence: 1800}},
		{"lag", queries.CheckOptions{Topic: t}},
	}
}

func (a *app) runDemo(ctx context.Context, o *demoOptions) error {
	start := time.Now()
	if _, err := os.Stat(filepath.Join(o.dir, "topicsnap.json")); err == nil {
		return usagef("%s already holds snapshots: remove it or pass another --dir", o.dir)
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(-1))
	if err != nil {
		return fmt.Errorf("start the embedded Kafka: %w", err)
	}
	defer cluster.Close()
	conn := dump.Conn{Brokers: cluster.ListenAddrs()}
	fmt.Fprintf(a.stdout, "embedded Kafka at %s\n", conn.Brokers[0])
	data, sum, err := loadTeaShop(ctx, conn, o.dir, o.users)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "produced the tea shop's Monday: %d events from %d users, %d orders\n", data.Truth.Events, data.Truth.Users, data.Truth.Orders)
	fmt.Fprintln(a.stdout, sum.String())
	eng, err := queries.Open(ctx, o.dir, queries.Options{})
	if err != nil {
		return err
	}
	for _, c := range demoChecks(o.dir) {
		r, err := eng.RunCheck(ctx, c.name, c.opts)
		if err != nil {
			eng.Close()
			return err
		}
		fmt.Fprintf(a.stdout, "%-5s %-10s %s\n", r.Status, c.name, r.Message)
	}
	eng.Close()
	fmt.Fprintf(a.stdout, "done in %.1fs; explore with: topicsnap sql --dir %s\n", time.Since(start).Seconds(), o.dir)
	if !o.serve {
		return nil
	}
	err = server.Run(ctx, server.Options{Dir: o.dir, Addr: o.addr}, func(addr string) {
		fmt.Fprintf(a.stdout, "reports at http://%s (Ctrl-C to stop)\n", addr)
	})
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}
