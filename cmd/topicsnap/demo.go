package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/schemas"
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
	format   string // json or avro
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

--scenario windfarm writes Galewatch's July Thursday instead, with the story's figures:
readings (twenty-one farms keyed by farm on twenty-four partitions through an explicit
map, three spare; 1,240 turbines, 620 readings a second) from 10:58 to 11:21, a cut a
minute with the writers' group at each, the group's commit log (__consumer_offsets, in
Kafka's own format: two watchers holding partitions 0-5 from 11:02 to 11:16), the
backfill lane readings-backfill and the compacted routing topic. That folder is written
by code, not through Kafka: twenty-three minutes cannot be replayed in seconds. It runs
members, the reset what-if, lag, skew and the backfill's lateness, names every other
check with the command that runs it on readings, answers "what did the routing table
say last Tuesday?" with topic_state, and serves the notebook
the-group-that-ate-six-partitions.md, which walks the day.

With --format avro the tea shop's events are Avro in the Confluent wire format, their
schema in an in-process Schema Registry (franz-go's srfake) that stops with the
demo: the dump stores the schema in DIR/schemas, and everything after it (the
checks, the reports, topicsnap sql) reads the folder alone.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runDemo(cmd.Context(), o) },
	}
	cmd.Flags().StringVar(&o.dir, "dir", "demo-snapshots", "snapshot folder to create")
	cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:8080", "where to serve the reports")
	cmd.Flags().IntVar(&o.users, "users", 2000, "users in the generated Monday")
	cmd.Flags().BoolVar(&o.serve, "serve", true, "serve the reports after the checks")
	cmd.Flags().StringVar(&o.scenario, "scenario", "teashop", "teashop (through the embedded Kafka) or windfarm (the incident's cuts, written by code)")
	cmd.Flags().StringVar(&o.format, "format", "json", "the events' format: json, or avro (through an in-process Schema Registry)")
	return cmd
}

// forever keeps the generated day, whose timestamps are in the past, from
// being deleted by retention on a real broker.
var forever = "-1"

// loadTeaShop produces the tea shop's Monday to the cluster, dumps it into
// dir and writes orders.csv beside the snapshots.
// Its events go to topic (seeds.TopicAppEvents in the demo; a name of
// their own in a test, which may run again on the same broker).
func loadTeaShop(ctx context.Context, conn kafkaconn.Conn, dir, topic string, users int) (*seeds.TeaShopData, dump.Summary, error) {
	return loadTeaShopAs(ctx, conn, dir, topic, users, nil)
}

// teaShopAvro is the Avro schema of the tea shop's app_events values.
const teaShopAvro = `{"type":"record","name":"AppEvent","namespace":"teashop","fields":[
  {"name":"event_id","type":"string"},{"name":"event_name","type":"string"},{"name":"user_id","type":"string"},
  {"name":"city","type":"string"},{"name":"platform","type":"string"},
  {"name":"order_id","type":["null","string"],"default":null},{"name":"ts","type":"string"}]}`

type avroAppEvent struct {
	EventID   string  `avro:"event_id"`
	EventName string  `avro:"event_name"`
	UserID    string  `avro:"user_id"`
	City      string  `avro:"city"`
	Platform  string  `avro:"platform"`
	OrderID   *string `avro:"order_id"`
	TS        string  `avro:"ts"`
}

// avroValues returns what turns a tea shop JSON value into the same event
// as Avro in the wire format, its schema registered in reg.
func avroValues(reg *srfake.Registry) (func([]byte) ([]byte, error), error) {
	id, _, err := reg.RegisterSchema(seeds.TopicAppEvents+"-value", sr.Schema{Schema: teaShopAvro, Type: sr.TypeAvro})
	if err != nil {
		return nil, fmt.Errorf("register the demo's schema: %w", err)
	}
	schema, err := avro.Parse(teaShopAvro)
	if err != nil {
		return nil, fmt.Errorf("parse the demo's schema: %w", err)
	}
	var serde sr.Serde
	serde.Register(id, avroAppEvent{}, sr.EncodeFn(func(v any) ([]byte, error) { return avro.Marshal(schema, v) }))
	return func(j []byte) ([]byte, error) {
		var e seeds.AppEvent
		if err := json.Unmarshal(j, &e); err != nil {
			return j, nil // not an event: produced as it is
		}
		a := avroAppEvent{EventID: e.EventID, EventName: e.EventName, UserID: e.UserID, City: e.City, Platform: e.Platform, TS: e.TS}
		if e.OrderID != "" {
			a.OrderID = &e.OrderID
		}
		return serde.Encode(a)
	}, nil
}

// loadTeaShopAs is loadTeaShop with the events in Avro when reg is set.
func loadTeaShopAs(ctx context.Context, conn kafkaconn.Conn, dir, topic string, users int, reg *srfake.Registry) (*seeds.TeaShopData, dump.Summary, error) {
	data := seeds.TeaShop(seeds.TeaShopConfig{Users: users, Seed: 1})
	encode := func(v []byte) ([]byte, error) { return v, nil }
	var registry *schemas.Registry
	if reg != nil {
		var err error
		if encode, err = avroValues(reg); err != nil {
			return nil, dump.Summary{}, err
		}
		registry = &schemas.Registry{URLs: []string{reg.URL()}}
	}
	if err := dump.CreateTopic(ctx, conn, topic, seeds.AppEventsPartitions, map[string]*string{"retention.ms": &forever}); err != nil {
		return nil, dump.Summary{}, err
	}
	recs := make([]dump.Record, len(data.Events))
	for i, e := range data.Events {
		var hs []kgo.RecordHeader
		for _, h := range e.Headers {
			hs = append(hs, kgo.RecordHeader{Key: h.Key, Value: h.Value})
		}
		v, err := encode(e.Value)
		if err != nil {
			return nil, dump.Summary{}, fmt.Errorf("encode a demo event: %w", err)
		}
		recs[i] = dump.Record{Topic: topic, Partition: e.Partition, Key: e.Key, Value: v, Timestamp: e.Timestamp, Headers: hs}
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
	if err := dump.CommitGroupOffsets(ctx, conn, teaShopGroup, topic, behind); err != nil {
		return nil, dump.Summary{}, err
	}
	sum, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}, Registry: registry})
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

// demoCheck is a check the demo runs, with its options, or only names
// with the command that runs it (named: a check of the registry that the
// scenario's story does not need).
type demoCheck struct {
	name  string
	opts  queries.CheckOptions
	named bool
}

// command is the command line that gives the check's verdict.
func (c demoCheck) command(dir string) string {
	args := []string{"topicsnap", "check", c.name, "--dir", queries.ShellQuote(dir), "--topic", queries.ShellQuote(c.opts.Topic)}
	chk, _ := queries.LookupCheck(c.name)
	for _, name := range chk.Options {
		op := queries.CheckOptionSet[name]
		if v := op.Text(c.opts); v != "" {
			args = append(args, "--"+op.FlagName(), queries.ShellQuote(v))
		}
	}
	return strings.Join(args, " ")
}

// windFarmStory are the checks the wind farm's story runs: the unexpected
// members first, then what the reset at 11:21 re-read, then lag (all
// current: the story's trap), skew (Ardnave Point's partition) and the
// backfill lane's lateness.
func windFarmStory() []demoCheck {
	t := seeds.TopicReadings
	return []demoCheck{
		{name: "members", opts: queries.CheckOptions{Topic: t, Group: seeds.IncidentGroup}},
		{name: "reset", opts: queries.CheckOptions{Topic: t, Group: seeds.IncidentGroup, ToTime: seeds.DayResetTo, Partitions: seeds.DayWatchedPartitions,
			ID: "value.turbine_id || value.recorded_at"}},
		{name: "lag", opts: queries.CheckOptions{Topic: t}},
		{name: "skew", opts: queries.CheckOptions{Topic: t}},
		{name: "freshness", opts: queries.CheckOptions{Topic: seeds.TopicReadingsBackfill, EventTime: "value.recorded_at", Late: 60}},
	}
}

// windFarmChecks are the wind farm's story (windFarmStory, run) and then
// every other check of the registry (queries.CheckNames, in its order) on
// readings, named with the command that runs it but not run: the story
// does not need them, and a check added to the registry is named here
// without a word of this file changing.
func windFarmChecks() []demoCheck {
	out := windFarmStory()
	told := map[string]bool{}
	for _, c := range out {
		told[c.name] = true
	}
	for _, n := range queries.CheckNames {
		if !told[n] {
			out = append(out, demoCheck{name: n, opts: queries.CheckOptions{Topic: seeds.TopicReadings}, named: true})
		}
	}
	return out
}

// routingQuestion is the SQL that answers "what did the routing table say
// last Tuesday?" from the compacted routing topic's history: the table
// then, beside the table at the folder's last cut.
func routingQuestion() string {
	return fmt.Sprintf("SELECT t.key AS farm, t.value.machines AS last_tuesday, n.value.machines AS now "+
		"FROM topic_state('%[1]s', TIMESTAMPTZ '%[2]s') t FULL JOIN topic_state('%[1]s', TIMESTAMPTZ '%[3]s') n USING (key) ORDER BY farm",
		seeds.TopicRouting, seeds.DayLastTuesday.Format("2006-01-02 15:04:05Z"), seeds.DayResetAt.Format("2006-01-02 15:04:05Z"))
}

// demoChecks are the checks the tea shop's demo runs: every check of the
// registry (queries.CheckNames, in its order), each with the options the
// tea shop needs where it needs some (demoOptionsFor); a check that still
// lacks options it cannot run without (a new check whose options the tea
// shop does not give) is said as skipped, never left out.
func demoChecks(dir string) []demoCheck {
	mine := demoOptionsFor(dir)
	var out []demoCheck
	for _, n := range queries.CheckNames {
		o, ok := mine[n]
		if !ok {
			o = queries.CheckOptions{Topic: seeds.TopicAppEvents}
		}
		out = append(out, demoCheck{name: n, opts: o})
	}
	return out
}

// teaShopGroup is the kitchen display's consumer group, which the demo
// commits for.
const teaShopGroup = "kitchen-display"

// demoOptionsFor are the options the tea shop's checks take beyond the
// topic: the questions its story asks.
func demoOptionsFor(dir string) map[string]queries.CheckOptions {
	t := seeds.TopicAppEvents
	return map[string]queries.CheckOptions{
		"duplicates": {Topic: t, ID: "value.event_id"},
		"skew":       {Topic: t, WhatIfKey: "value.city"},
		"missing": {Topic: t, Where: "value.event_name = 'order_completed'", Match: "value.order_id",
			Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id", By: "platform"},
		"freshness": {Topic: t, Silence: 1800},
		// The kitchen display's group, which fell behind at 11:00 Harbor
		// time (loadTeaShopAs): who was in it, and what a reset of it to
		// 10:00 (the last hour read again) would replay.
		"members": {Topic: t, Group: teaShopGroup},
		"reset":   {Topic: t, Group: teaShopGroup, ToTime: seeds.DefaultTeaShopDay.Add(10 * time.Hour)},
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
	conn := kafkaconn.Conn{Brokers: cluster.ListenAddrs()}
	fmt.Fprintf(a.stdout, "embedded Kafka at %s\n", conn.Brokers[0])
	var reg *srfake.Registry
	switch o.format {
	case "json":
	case "avro":
		// In-process, and closed once the dump stored the schema: the
		// checks and the reports read the folder alone.
		reg = srfake.New()
		fmt.Fprintf(a.stdout, "embedded Schema Registry at %s (the events are Avro)\n", reg.URL())
	default:
		return usagef("--format %q: use json or avro", o.format)
	}
	data, sum, err := loadTeaShopAs(ctx, conn, o.dir, seeds.TopicAppEvents, o.users, reg)
	if reg != nil {
		reg.Close()
	}
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

// notRun stands in the verdict's column for a check the demo names
// without running it.
const notRun = "-"

// demoVerdicts runs the checks and prints each verdict with the command
// that gives it (a named check: its summary and the command, not run),
// then keeps the checks it ran and their options in the folder's checks
// file, where check, check all, serve and the overview find them; it
// closes eng.
func (a *app) demoVerdicts(ctx context.Context, eng *queries.Engine, dir string, cs []demoCheck) error {
	defer eng.Close()
	var keep []queries.ConfiguredCheck
	header := false
	for _, c := range cs {
		if c.named && !header {
			fmt.Fprintln(a.stdout, "the other checks, not part of this story (each runs as printed):")
			header = true
		}
		if needs := queries.Needs(c.name, c.opts); len(needs) > 0 {
			// As check all says it: "not run: needs --match and --against or --against-topic".
			r := queries.Skipped(c.name, c.opts.Topic, needs, flagOf)
			fmt.Fprintf(a.stdout, "%-5s %-10s %s, which this scenario does not have\n", r.Status, c.name, r.Message)
			continue
		}
		if c.named {
			chk, _ := queries.LookupCheck(c.name)
			fmt.Fprintf(a.stdout, "%-5s %-10s %s\n      $ %s\n", notRun, c.name, chk.Summary, c.command(dir))
			continue
		}
		r, err := eng.RunCheck(ctx, c.name, c.opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%-5s %-10s %s\n      $ %s\n", r.Status, c.name, r.Message, c.command(dir))
		k, err := queries.ConfiguredFrom(dir, c.name, c.opts)
		if err != nil {
			return err
		}
		keep = append(keep, k)
	}
	if err := queries.RememberChecks(dir, keep...); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "kept these checks and their options in %s (check, check all, serve and its overview run them with those options)\n",
		filepath.Join(dir, queries.ChecksFileName))
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

// runWindFarmDemo writes seed 000's day (seeds.WriteWindFarmDayFolder), answers
// the routing question, runs the checks that tell the day (and names the
// others) and serves the notebook that walks it.
func (a *app) runWindFarmDemo(ctx context.Context, o *demoOptions, start time.Time) error {
	day, err := seeds.WriteWindFarmDayFolder(ctx, o.dir, 1)
	if err != nil {
		return fmt.Errorf("write the wind farm's folder: %w", err)
	}
	var n, b int
	for _, rs := range day.Readings {
		n += len(rs)
	}
	for _, rs := range day.Backfill {
		b += len(rs)
	}
	turbines := 0
	for _, f := range seeds.DayFarms {
		turbines += f.Turbines
	}
	fmt.Fprintf(a.stdout, "wrote Galewatch's Thursday to %s (by code, not through Kafka): %s readings from %s turbines on %d farms (%d partitions), "+
		"%s backfill readings, %d routing records, %s records of the group's commit log, %d cuts of group %s\n",
		o.dir, queries.FormatNumber(float64(n)), queries.FormatNumber(float64(turbines)), len(seeds.DayFarms), seeds.ReadingsPartitions,
		queries.FormatNumber(float64(b)), len(day.Routing), queries.FormatNumber(float64(len(day.Offsets))), len(day.Cuts), seeds.IncidentGroup)
	eng, err := queries.Open(ctx, o.dir, queries.Options{})
	if err != nil {
		return err
	}
	if err := a.routingAnswer(ctx, eng, o.dir); err != nil {
		eng.Close()
		return err
	}
	if err := a.demoVerdicts(ctx, eng, o.dir, windFarmChecks()); err != nil {
		return err
	}
	nb := "/notebooks/the-group-that-ate-six-partitions.md"
	fmt.Fprintf(a.stdout, "done in %.1fs; the day, step by step: topicsnap notebook run the-group-that-ate-six-partitions.md --dir %s\n",
		time.Since(start).Seconds(), queries.ShellQuote(o.dir))
	return a.demoServe(ctx, o, nb)
}

// routingAnswer prints what the routing table said last Tuesday, where it
// differs from the table now, and the command that asks it.
func (a *app) routingAnswer(ctx context.Context, eng *queries.Engine, dir string) error {
	q := routingQuestion()
	rows, err := eng.Query(ctx, q)
	if err != nil {
		return fmt.Errorf("ask the routing table: %w", err)
	}
	defer rows.Close()
	var farms int
	var changed []string
	for rows.Next() {
		var farm, then, now any
		if err := rows.Scan(&farm, &then, &now); err != nil {
			return fmt.Errorf("ask the routing table: %w", err)
		}
		farms++
		// The machines are a list: written as every surface writes one.
		if t, n := display.Text(then), display.Text(now); t != n {
			changed = append(changed, fmt.Sprintf("%s on %s (now %s)", display.Text(farm), t, n))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ask the routing table: %w", err)
	}
	fmt.Fprintf(a.stdout, "what did the routing table say last Tuesday (%s)? %d farms, as today except %s\n      $ topicsnap sql --dir %s -c %s\n",
		seeds.DayLastTuesday.Format("Mon 2 January 15:04 MST"), farms, strings.Join(changed, ", "), queries.ShellQuote(dir), queries.ShellQuote(q))
	return nil
}
