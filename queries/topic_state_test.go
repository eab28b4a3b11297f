package queries

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// routingFolder writes a compacted "routing" topic of two partitions: keys
// rewritten over time, a tombstone, a record without a key, and a key that
// is on both partitions (after a partition change).
func routingFolder(t *testing.T) (string, time.Time) {
	t.Helper()
	return routingFolderNamed(t, "routing")
}

// routingFolderNamed is routingFolder with the topic named topic.
func routingFolderNamed(t *testing.T, topic string) (string, time.Time) {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	at := func(m int) int64 { return base.Add(time.Duration(m) * time.Minute).UnixMilli() }
	row := func(p int32, off int64, m int, key, value string) catalog.Row {
		r := catalog.Row{Partition: p, Offset: off, Timestamp: at(m), TimestampType: catalog.TimestampCreate}
		if key != "" {
			r.Key = []byte(key)
		}
		if value != "-" {
			r.Value = []byte(value)
		}
		return r
	}
	p0 := []catalog.Row{
		row(0, 0, 1, "T-01", `{"farm":"ardnave-point"}`),
		row(0, 1, 2, "T-02", `{"farm":"carrick-head"}`),
		row(0, 2, 5, "T-01", `{"farm":"kilmore-sands"}`),
		row(0, 3, 6, "T-02", "-"), // a tombstone
		row(0, 4, 7, "", `{"farm":"nobody"}`),
		row(0, 5, 9, "T-02", `{"farm":"stromay"}`), // back after its tombstone
	}
	p1 := []catalog.Row{
		row(1, 0, 3, "T-03", `{"farm":"yell-sound"}`),
		row(1, 1, 4, "T-01", `{"farm":"dunmore-moss"}`), // the same key on another partition
	}
	writePartition(t, d, topic, 0, "s1", 6, p0)
	writePartition(t, d, topic, 1, "s1", 2, p1)
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: topic, AsOf: base.Add(time.Hour), PartitionCount: 2,
		Configs: map[string]string{"cleanup.policy": "compact"}}); err != nil {
		t.Fatal(err)
	}
	return dir, base
}

// TestTopicStateAtATime: the latest value of each key at or before the
// time, per partition; a tombstone removes the key until it is written
// again; records without a key are left out. On every engine kind.
func TestTopicStateAtATime(t *testing.T) {
	dir, base := routingFolder(t)
	for _, opts := range []Options{{}, {Lazy: true}, {Locked: true, Timeout: 10 * time.Second}} {
		e, err := Open(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		if opts.Lazy {
			if got := builtObjects(t, e); got != "" {
				t.Fatalf("a lazy engine built %q at open", got)
			}
		}
		state := func(m int) string {
			q := fmt.Sprintf(`SELECT "partition", key, value.farm FROM topic_state('routing', TIMESTAMPTZ '%s') ORDER BY ALL`,
				base.Add(time.Duration(m)*time.Minute).Format(time.RFC3339))
			rows, err := e.Query(context.Background(), q)
			if err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
			return allRows(t, rows)
		}
		for _, c := range []struct {
			minute int
			want   string
		}{
			{0, ""},
			{2, "0 T-01 ardnave-point;0 T-02 carrick-head"},
			{5, "0 T-01 kilmore-sands;0 T-02 carrick-head;1 T-01 dunmore-moss;1 T-03 yell-sound"},
			{6, "0 T-01 kilmore-sands;1 T-01 dunmore-moss;1 T-03 yell-sound"},
			{60, "0 T-01 kilmore-sands;0 T-02 stromay;1 T-01 dunmore-moss;1 T-03 yell-sound"},
		} {
			if got := state(c.minute); got != c.want {
				t.Errorf("%+v: state at 11:%02d:\n got %s\nwant %s", opts, c.minute, got, c.want)
			}
		}
		if opts.Lazy {
			// The macros when a query calls one, with what they read, and
			// nothing else (lag_at is made with everything).
			want := "lost_ranges,partition_dumps,routing,routing$all,topic_configs,topic_state,topic_state_unknown"
			if got := builtObjects(t, e); got != want {
				t.Errorf("a lazy engine built %q, want %q", got, want)
			}
		}
		e.Close()
	}
}

// TestTopicStateOfADottedTopic: a topic name with dots and dashes (Kafka
// allows [a-zA-Z0-9._-]) is one name to topic_state and
// topic_state_unknown, not a schema and a table, on every engine kind.
func TestTopicStateOfADottedTopic(t *testing.T) {
	const topic = "shop.routing-v2"
	dir, base := routingFolderNamed(t, topic)
	at := base.Add(time.Hour).Format(time.RFC3339)
	for _, opts := range []Options{{}, {Lazy: true}, {Locked: true, Timeout: 10 * time.Second}} {
		e, err := Open(t.Context(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := e.Query(t.Context(), fmt.Sprintf(`SELECT "partition", key, value.farm FROM topic_state('%s', TIMESTAMPTZ '%s') ORDER BY ALL`, topic, at))
		if err != nil {
			t.Fatalf("%+v: topic_state: %v", opts, err)
		}
		if got, want := allRows(t, rows), "0 T-01 kilmore-sands;0 T-02 stromay;1 T-01 dunmore-moss;1 T-03 yell-sound"; got != want {
			t.Errorf("%+v: state:\n got %s\nwant %s", opts, got, want)
		}
		if _, err := e.Query(t.Context(), fmt.Sprintf(`SELECT * FROM topic_state_unknown('%s', TIMESTAMPTZ '%s')`, topic, at)); err != nil {
			t.Errorf("%+v: topic_state_unknown: %v", opts, err)
		}
		e.Close()
	}
}

// TestTopicStateIsOnlyOverATopic: on the locked engine (the server's),
// topic_state reads a topic's view and nothing else.
func TestTopicStateIsOnlyOverATopic(t *testing.T) {
	dir, _ := routingFolder(t)
	e, err := Open(context.Background(), dir, Options{Locked: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{
		`SELECT * FROM topic_state('files', now())`,
		`SELECT * FROM topic_state('duckdb_settings', now())`,
		`SELECT * FROM topic_state('information_schema.tables', now())`,
		`SELECT * FROM topic_state('nosuch', now())`,
		`SELECT * FROM topic_state('rout' || 'ing', now())`,
		`SELECT * FROM topic_state(NULL, now())`,
		`SELECT * FROM topic_state('routing')`,
		`SELECT * FROM query_table('routing')`,
	} {
		rows, err := e.Query(context.Background(), q)
		if err == nil {
			rows.Close()
			t.Errorf("%s: ran", q)
			continue
		}
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v, want a refusal", q, err)
		}
	}
}

// TestTopicStateAgainstTheBrokersCompaction: on the real broker, a
// compacted topic is written in rounds (rewrites and tombstones) and dumped
// before its cleaner runs. Once the cleaner has removed older values, the
// state topic_state gives at the end from the snapshot equals what a
// consumer of the compacted topic reads (the latest value per key, its
// tombstones applied), and the snapshot still answers for an earlier time
// whose values the topic no longer holds.
func TestTopicStateAgainstTheBrokersCompaction(t *testing.T) {
	if os.Getenv("TOPICSNAP_TEST_BROKERS") == "" {
		t.Skip("needs the real broker's log cleaner (make test runs it)")
	}
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("routing-%d", time.Now().UnixNano())
	cfg := map[string]*string{"cleanup.policy": ptr("compact"), "segment.ms": ptr("100"),
		"min.cleanable.dirty.ratio": ptr("0.01"), "delete.retention.ms": ptr("100"), "min.compaction.lag.ms": ptr("0")}
	if err := dump.CreateTopic(ctx, conn, topic, 2, cfg); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var mid time.Time
	for round := 0; round < 12; round++ {
		var recs []dump.Record
		for k := 0; k < 8; k++ {
			r := dump.Record{Topic: topic, Key: []byte(fmt.Sprintf("turbine-%d", k)), Value: []byte(fmt.Sprintf(`{"round":%d}`, round))}
			if k%3 == 0 && round%4 == 3 {
				r.Value = nil // a tombstone, written again next round
			}
			recs = append(recs, r)
		}
		if err := dump.Produce(ctx, conn, recs); err != nil {
			t.Fatal(err)
		}
		// Dump each round, so the snapshot has every value before the
		// cleaner removes it.
		if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
		if round == 5 {
			mid = time.Now()
		}
		time.Sleep(150 * time.Millisecond)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	state := func(at time.Time) map[string]string {
		// topic_state takes the topic's name as a constant (the test's own).
		rows, err := e.Query(ctx, fmt.Sprintf(`SELECT key, decode(value_raw) FROM topic_state('%s', TIMESTAMPTZ '%s')`, topic, at.UTC().Format(time.RFC3339Nano)))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			out[k] = v
		}
		return out
	}
	// What a consumer of the compacted topic reads, once the cleaner has
	// run: poll until older values are gone.
	for attempt := 0; ; attempt++ {
		read, all := consumeAll(ctx, t, bs, topic)
		if all < 12*8 {
			consumed := map[string]string{}
			for _, r := range read {
				if r.Value == nil {
					delete(consumed, string(r.Key))
				} else {
					consumed[string(r.Key)] = string(r.Value)
				}
			}
			ours := state(time.Now().Add(time.Hour))
			if fmt.Sprint(sorted(ours)) != fmt.Sprint(sorted(consumed)) {
				t.Fatalf("state at the end:\n topic_state %v\n   consumer  %v", sorted(ours), sorted(consumed))
			}
			early := state(mid)
			if early["turbine-1"] != `{"round":5}` {
				t.Fatalf("state at round 5 from the snapshot: %v", sorted(early))
			}
			t.Logf("cleaner kept %d of %d records; topic_state at the end = consumer's view (%d keys); at round 5: %v", all, 12*8, len(ours), sorted(early))
			return
		}
		if attempt > 60 {
			t.Fatalf("the cleaner never compacted %s", topic)
		}
		time.Sleep(time.Second)
	}
}

// consumeAll reads the topic from its start to its end offsets.
func consumeAll(ctx context.Context, t *testing.T, bs []string, topic string) ([]*kgo.Record, int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []*kgo.Record
	for empty := 0; empty < 2; {
		fctx, cancel := context.WithTimeout(ctx, time.Second)
		fs := cl.PollFetches(fctx)
		cancel()
		n := len(out)
		fs.EachRecord(func(r *kgo.Record) { out = append(out, r) })
		if len(out) == n {
			empty++
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out, len(out)
}

func sorted(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return strings.Fields(strings.Join(out, " "))
}

// compactedRoutingFolder writes a compacted topic whose cleaner removed
// records before they were dumped: the first dump (10:00) started at offset
// 0 but found offsets 0-2 gone (older values of T-01, T-02 and T-03), and
// the second (11:00) found offset 8 gone (a T-01 value rewritten at 9).
func compactedRoutingFolder(t *testing.T) (string, func(h, m int) time.Time) {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := func(h, m int) time.Time { return time.Date(2026, 7, 14, h, m, 0, 0, time.UTC) }
	row := func(off int64, h, m int, key, farm string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: at(h, m).UnixMilli(), TimestampType: catalog.TimestampCreate,
			Key: []byte(key), Value: []byte(`{"farm":"` + farm + `"}`)}
	}
	tp := catalog.TopicPartition{Topic: "routing", Partition: 0}
	f1, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{
		row(3, 9, 3, "T-04", "stromay"),
		row(4, 9, 30, "T-01", "kilmore-sands"),
		row(5, 9, 40, "T-02", "carrick-head"),
		row(6, 9, 50, "T-03", "yell-sound"),
	}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	f2, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{
		row(7, 10, 30, "T-04", "ardnave-point"),
		row(9, 10, 50, "T-01", "dunmore-moss"),
	}, "s2")
	if err != nil {
		t.Fatal(err)
	}
	m := &catalog.Manifest{Topic: "routing", Partition: 0, NextOffset: 10, Files: []catalog.FileEntry{f1, f2},
		Snapshots: []catalog.PartitionSnapshot{
			{ID: "s1", AsOf: at(10, 0), HighWatermark: 7, LastStable: 7, From: 0, Until: 7, Complete: true},
			{ID: "s2", AsOf: at(11, 0), HighWatermark: 10, LastStable: 10, From: 7, Until: 10, Complete: true},
		}}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct {
		id string
		at time.Time
	}{{"s1", at(10, 0)}, {"s2", at(11, 0)}} {
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: s.id, Topic: "routing", AsOf: s.at, PartitionCount: 1,
			Configs: map[string]string{"cleanup.policy": "compact"}}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, at
}

// TestTopicStateSaysWhatTheCleanerRemoved: where the cleaner removed
// records before a dump read them, topic_state marks the keys whose value
// at the time may be one of them (known false, and from when each is
// known), and topic_state_unknown lists the spans, on every engine kind;
// once every removed record is superseded the table is whole again.
func TestTopicStateSaysWhatTheCleanerRemoved(t *testing.T) {
	dir, at := compactedRoutingFolder(t)
	ts := func(h, m int) string { return at(h, m).Format("15:04") }
	for _, opts := range []Options{{}, {Lazy: true}, {Locked: true, Timeout: 10 * time.Second}} {
		e, err := Open(context.Background(), dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		query := func(q string) string {
			rows, err := e.Query(context.Background(), q)
			if err != nil {
				t.Fatalf("%+v: %s: %v", opts, q, err)
			}
			return allRows(t, rows)
		}
		for _, c := range []struct {
			h, m           int
			state, unknown string
		}{
			// Three keys had values at 09:05; only T-04's is stored.
			{9, 5, "T-01 NULL false 09:30;T-02 NULL false 09:40;T-03 NULL false 09:50;T-04 stromay true NULL",
				"0 2 3 compacted NULL 10:00"},
			{9, 45, "T-01 kilmore-sands true NULL;T-02 carrick-head true NULL;T-03 NULL false 09:50;T-04 stromay true NULL",
				"0 2 3 compacted NULL 10:00"},
			{10, 5, "T-01 kilmore-sands true NULL;T-02 carrick-head true NULL;T-03 yell-sound true NULL;T-04 stromay true NULL", ""},
			// Offset 8 (after 10:30) may have rewritten any key stored before it.
			{10, 45, "T-01 NULL false 10:50;T-02 NULL false 11:00;T-03 NULL false 11:00;T-04 NULL false 11:00",
				"8 8 1 compacted 10:30 11:00"},
			{11, 30, "T-01 dunmore-moss true NULL;T-02 carrick-head true NULL;T-03 yell-sound true NULL;T-04 ardnave-point true NULL", ""},
		} {
			lit := fmt.Sprintf("TIMESTAMPTZ '%s'", at(c.h, c.m).Format(time.RFC3339))
			state := query(`SELECT key, coalesce(value.farm, 'NULL'), known, coalesce(strftime(known_from AT TIME ZONE 'UTC', '%H:%M'), 'NULL')
				FROM topic_state('routing', ` + lit + `) ORDER BY key`)
			if state != c.state {
				t.Errorf("%+v: topic_state at %s:\n got %s\nwant %s", opts, ts(c.h, c.m), state, c.state)
			}
			unknown := query(`SELECT from_offset, to_offset, offsets, kind, coalesce(strftime(written_after AT TIME ZONE 'UTC', '%H:%M'), 'NULL'),
				coalesce(strftime(known_from AT TIME ZONE 'UTC', '%H:%M'), 'NULL') FROM topic_state_unknown('routing', ` + lit + `) ORDER BY ALL`)
			if unknown != c.unknown {
				t.Errorf("%+v: topic_state_unknown at %s:\n got %s\nwant %s", opts, ts(c.h, c.m), unknown, c.unknown)
			}
			// Every caller gets the warning with the rows.
			rows, err := e.Query(context.Background(), `SELECT key FROM topic_state('routing', `+lit+`)`)
			if err != nil {
				t.Fatal(err)
			}
			notes := rows.Notes
			rows.Close()
			if (c.unknown == "") != (len(notes) == 0) {
				t.Errorf("%+v: notes at %s: %q, want one when spans are unknown (%q)", opts, ts(c.h, c.m), notes, c.unknown)
			}
			if c.h == 9 && (len(notes) != 1 || !strings.Contains(notes[0], "3 offsets the snapshot never held") ||
				!strings.Contains(notes[0], "whole from 2026-07-14 10:00:00Z")) {
				t.Errorf("%+v: notes at %s: %q", opts, ts(c.h, c.m), notes)
			}
		}
		e.Close()
	}
}

// TestTopicStateWhenTheCleanerRanBeforeTheFirstDump: on the real broker, a
// compacted topic is rewritten in rounds and its cleaner runs before the
// first dump. topic_state at a time inside the early rounds marks the keys
// whose values the cleaner removed (known false, known from their stored
// record's time), topic_state_unknown's spans add up to what check gaps
// counts as compacted, and after the dump's time the table is whole and
// equals what a consumer of the compacted topic reads. Bounded: the test
// fails if the cleaner has not run within 90 seconds.
func TestTopicStateWhenTheCleanerRanBeforeTheFirstDump(t *testing.T) {
	if os.Getenv("TOPICSNAP_TEST_BROKERS") == "" {
		t.Skip("needs the real broker's log cleaner (TOPICSNAP_TEST_BROKERS)")
	}
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := kafkaconn.Conn{Brokers: bs}
	topic := fmt.Sprintf("routing-early-%d", time.Now().UnixNano())
	cfg := map[string]*string{"cleanup.policy": ptr("compact"), "segment.ms": ptr("100"),
		"min.cleanable.dirty.ratio": ptr("0.01"), "delete.retention.ms": ptr("100"), "min.compaction.lag.ms": ptr("0")}
	if err := dump.CreateTopic(ctx, conn, topic, 1, cfg); err != nil {
		t.Fatal(err)
	}
	const keys, rounds = 6, 10
	var early time.Time
	for round := 0; round < rounds; round++ {
		var recs []dump.Record
		for k := 0; k < keys; k++ {
			recs = append(recs, dump.Record{Topic: topic, Key: []byte(fmt.Sprintf("farm-%d", k)), Value: []byte(fmt.Sprintf(`{"round":%d}`, round))})
		}
		if err := dump.Produce(ctx, conn, recs); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			early = time.Now()
		}
		time.Sleep(150 * time.Millisecond)
	}
	// Keep the active segment rolling so the cleaner has closed segments.
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, n := consumeAll(ctx, t, bs, topic)
		if n < keys*rounds {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cleaner did not compact %s within 90 s (%d records still)", topic, n)
		}
		if err := dump.Produce(ctx, conn, []dump.Record{{Topic: topic, Key: []byte("tick"), Value: []byte(`{"round":-1}`)}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
	}
	dir := t.TempDir()
	if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// The dump's time: its cut, as partition_dumps records it.
	var dumped time.Time
	if err := e.DB().QueryRowContext(ctx, `SELECT max(as_of) FROM partition_dumps`).Scan(&dumped); err != nil {
		t.Fatal(err)
	}
	lit := func(at time.Time) string { return "TIMESTAMPTZ '" + at.UTC().Format(time.RFC3339Nano) + "'" }
	q := func(s string) string {
		rows, err := e.Query(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return allRows(t, rows)
	}
	gaps, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	compacted := asInt(gaps.Summary.Get("compacted_offsets"))
	if compacted == 0 {
		t.Fatalf("check gaps counts no compacted offsets: %s", gaps.Message)
	}
	// Just before the dump every span may still hold a live value: they add
	// up to what gaps calls compacted.
	if got := q(`SELECT coalesce(sum(offsets), 0) FROM topic_state_unknown('` + topic + `', ` + lit(dumped.Add(-10*time.Millisecond)) + `) WHERE kind = 'compacted'`); got != fmt.Sprint(compacted) {
		t.Errorf("topic_state_unknown just before the dump: %s compacted offsets, check gaps says %d", got, compacted)
	}
	// In the early rounds, every farm had a value; those the cleaner
	// removed are marked, none is left out, none shown as known wrongly.
	got := q(`SELECT count(*) FILTER (WHERE known), count(*) FILTER (WHERE NOT known AND known_from > ` + lit(early) + `), count(*)
		FROM topic_state('` + topic + `', ` + lit(early) + `) WHERE key LIKE 'farm-%'`)
	var known, marked, all int
	fmt.Sscan(strings.ReplaceAll(got, " ", "\n"), &known, &marked, &all)
	if all != keys || marked == 0 || known+marked != keys {
		t.Errorf("topic_state in round 1: %d known, %d marked unknown (of %d rows), want %d keys, some unknown: %s", known, marked, all, keys, got)
	}
	// After the dump: whole, and equal to the compacted topic.
	read, _ := consumeAll(ctx, t, bs, topic)
	consumed := map[string]string{}
	for _, r := range read {
		consumed[string(r.Key)] = string(r.Value)
	}
	rows, err := e.Query(ctx, `SELECT key, decode(value_raw), known FROM topic_state('`+topic+`', `+lit(dumped.Add(time.Hour))+`)`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.Notes) != 0 {
		t.Errorf("notes after the dump: %q", rows.Notes)
	}
	ours := map[string]string{}
	for rows.Next() {
		var k, v string
		var ok bool
		if err := rows.Scan(&k, &v, &ok); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("key %s unknown after the dump", k)
		}
		ours[k] = v
	}
	rows.Close()
	if fmt.Sprint(sorted(ours)) != fmt.Sprint(sorted(consumed)) {
		t.Errorf("state after the dump:\n topic_state %v\n   consumer  %v", sorted(ours), sorted(consumed))
	}
	t.Logf("cleaner removed %d offsets before the first dump; round 1: %d farms known, %d marked unknown", compacted, known, marked)
}

// TestTopicStateLeavesOutNoTimestamp: a record with no timestamp (-1,
// Kafka's "no timestamp") was taken as written in 1969, before any as_of:
// an untimed record of T-01 after its timed ones was its value at every
// time ("kilmore-sands" replaced by "untimed" at 11:10, known), and a key
// only untimed records held was in every state. As the checks do, such a
// record has no time: it is never a key's value, a key with one after its
// value at as_of is not known (known = false, known again from its next
// timed record), and the notes count them.
func TestTopicStateLeavesOutNoTimestamp(t *testing.T) {
	dir, base := routingFolder(t)
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := func(m int) int64 { return base.Add(time.Duration(m) * time.Minute).UnixMilli() }
	row := func(off int64, ts int64, key, value string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: ts, TimestampType: catalog.TimestampCreate, Key: []byte(key), Value: []byte(value)}
	}
	p0, err := d.Manifests(t.Context(), "routing")
	if err != nil {
		t.Fatal(err)
	}
	old, err := catalog.ReadDataFile(d.FilePath(p0[0].TP(), p0[0].Files[0].Name))
	if err != nil {
		t.Fatal(err)
	}
	rows := append(old,
		row(6, -1, "T-01", `{"farm":"untimed"}`),
		row(7, -1, "T-09", `{"farm":"untimed too"}`),
		row(8, -1, "T-02", `{"farm":"untimed three"}`),
		row(9, at(20), "T-02", `{"farm":"timed again"}`),
	)
	writePartition(t, d, "routing", 0, "s1", 10, rows)
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	state := func(m int) (string, []string) {
		q := fmt.Sprintf(`SELECT "partition", key, coalesce(value.farm, '-'), known, coalesce(strftime(known_from, '%%H:%%M'), '-') FROM topic_state('routing', TIMESTAMPTZ '%s') ORDER BY ALL`,
			base.Add(time.Duration(m)*time.Minute).Format(time.RFC3339))
		rows, err := e.Query(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		notes := rows.Notes
		return allRows(t, rows), notes
	}
	for _, c := range []struct {
		minute int
		want   string
	}{
		{0, "0 T-01 - false -;0 T-02 - false 11:20;0 T-09 - false -"},
		{10, "0 T-01 - false -;0 T-02 - false 11:20;0 T-09 - false -;1 T-01 dunmore-moss true -;1 T-03 yell-sound true -"},
		{30, "0 T-01 - false -;0 T-02 timed again true -;0 T-09 - false -;1 T-01 dunmore-moss true -;1 T-03 yell-sound true -"},
	} {
		got, notes := state(c.minute)
		if got != c.want {
			t.Errorf("state at 11:%02d:\n got %s\nwant %s", c.minute, got, c.want)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "3 keyed records have no timestamp (-1)") {
			t.Errorf("notes at 11:%02d: %q", c.minute, notes)
		}
	}
}
