package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	dir      string
	addr     string
	users    int
	serve    bool
	scenario string
}

func (a *app) demoCmd() *cobra.Command {
	o := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo [--scenario teashop|windfarm] [--dir DIR] [--addr 127.0.0.1:8080]",
		Short: "Everything on an embedded Kafka: the tea shop's Monday dumped, checked and served",
		Long: `demo starts an in-process Kafka (franz-go's kfake), produces the tea shop's Monday into
app_events (6 partitions keyed by user id, JSON events, at-least-once copies, orders
whose order_completed event never arrived), dumps it with the real dump code, writes
the orders file beside it, runs every check, prints the verdicts, each with the command
that gives it, and serves the reports until Ctrl-C. The snapshot folder stays for
topicsnap sql to explore.

--scenario windfarm writes the wind farm's Thursday instead: the readings topic
(24 partitions, 60 turbines a farm) with a cut every minute from 11:00 to 11:21 and the
writers' group at each, two watchers holding partitions 18-23 from 11:02 to 11:16.
That folder is written by code, not through Kafka: twenty-one minutes of cuts cannot be
replayed in seconds. It runs lag and the reset what-if, and serves the notebook
the-group-that-ate-six-partitions.md, which walks the day.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "demo-snapshots", "snapshot folder to create")
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "where to serve the reports")
	cmd.Flags().IntVar(&o.users, "users", 2000, "users in the generated Monday")
	cmd.Flags().BoolVar(&o.serve, "serve", true, "serve the reports after the checks")
	cmd.Flags().StringVar(&o.scenario, "scenario", "teashop", "teashop (through the embedded Kafka) or windfarm (the incident's cuts, written by code)")
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

// demoCheck is a check the demo runs, with its options.
type demoCheck struct {
	name string
	opts queries.CheckOptions
}

// command is the command line that gives the check's verdict.
func (c demoCheck) command(dir string) string {
	args := []string{"topicsnap", "check", c.name, "--dir", shellWord(dir), "--topic", shellWord(c.opts.Topic)}
	chk, _ := queries.LookupCheck(c.name)
	for _, name := range chk.Options {
		op := queries.CheckOptionSet[name]
		if v := op.Text(c.opts); v != "" {
			args = append(args, "--"+op.FlagName(), shellWord(v))
		}
	}
	return strings.Join(args, " ")
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// windFarmChecks are the checks the wind farm scenario runs.
func windFarmChecks() []demoCheck {
	t := seeds.TopicReadings
	return []demoCheck{
		{"lag", queries.CheckOptions{Topic: t}},
		{"reset", queries.CheckOptions{Topic: t, Group: seeds.IncidentGroup, ToTime: seeds.DefaultWindFarmStart, Partitions: []int32{18, 19, 20, 21, 22, 23},
			ID: "value.turbine_id || value.recorded_at"}},
		{"freshness", queries.CheckOptions{Topic: t}},
		{"gaps", queries.CheckOptions{Topic: t}},
	}
}

// demoChecks are the checks the demo runs, with the options the tea shop needs.
func demoChecks(dir string) []demoCheck {
	t := seeds.TopicAppEvents
	return []demoCheck{
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
	if o.scenario != "teashop" && o.scenario != "windfarm" {
		return usagef("--scenario %q: use teashop or windfarm", o.scenario)
	}
	if _, err := os.Stat(filepath.Join(o.dir, "topicsnap.json")); err == nil {
		return usagef("%s already holds snapshots: remove it or pass another --dir", o.dir)
	}
	if o.scenario == "windfarm" {
		return a.runWindFarmDemo(ctx, o, start)
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
	if err := a.demoVerdicts(ctx, eng, o.dir, demoChecks(o.dir)); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "done in %.1fs; explore with: topicsnap sql --dir %s\n", time.Since(start).Seconds(), o.dir)
	return a.demoServe(ctx, o, "")
}

// demoVerdicts runs the checks and prints each verdict with the command
// that gives it; it closes eng.
func (a *app) demoVerdicts(ctx context.Context, eng *queries.Engine, dir string, cs []demoCheck) error {
	defer eng.Close()
	for _, c := range cs {
		r, err := eng.RunCheck(ctx, c.name, c.opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%-5s %-10s %s\n      $ %s\n", r.Status, c.name, r.Message, c.command(dir))
	}
	return nil
}

// demoServe serves the folder until Ctrl-C, unless --serve=false.
func (a *app) demoServe(ctx context.Context, o *demoOptions, page string) error {
	if !o.serve {
		return nil
	}
	err := server.Run(ctx, server.Options{Dir: o.dir, Addr: o.addr}, func(addr string) {
		fmt.Fprintf(a.stdout, "reports at http://%s%s (Ctrl-C to stop)\n", addr, page)
	})
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}

// runWindFarmDemo writes the wind farm's incident folder, runs the checks
// that tell the day and serves the notebook that walks it.
func (a *app) runWindFarmDemo(ctx context.Context, o *demoOptions, start time.Time) error {
	inc, err := seeds.WriteWindFarmIncidentFolder(o.dir, seeds.WindFarmConfig{TurbinesPerFarm: 60})
	if err != nil {
		return fmt.Errorf("write the wind farm's folder: %w", err)
	}
	var n int
	for _, rs := range inc.Records {
		n += len(rs)
	}
	fmt.Fprintf(a.stdout, "wrote the wind farm's Thursday to %s (by code, not through Kafka): %d readings on %d partitions, %d cuts of group %s\n",
		o.dir, n, len(inc.Records), len(inc.Cuts), seeds.IncidentGroup)
	eng, err := queries.Open(ctx, o.dir, queries.Options{})
	if err != nil {
		return err
	}
	if err := a.demoVerdicts(ctx, eng, o.dir, windFarmChecks()); err != nil {
		return err
	}
	nb := "/notebooks/the-group-that-ate-six-partitions.md"
	fmt.Fprintf(a.stdout, "done in %.1fs; the day, step by step: topicsnap notebook run the-group-that-ate-six-partitions.md --dir %s\n",
		time.Since(start).Seconds(), o.dir)
	return a.demoServe(ctx, o, nb)
}
