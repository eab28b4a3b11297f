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
)

// routingFolder writes a compacted "routing" topic of two partitions: keys
// rewritten over time, a tombstone, a record without a key, and a key that
// is on both partitions (after a partition change).
func routingFolder(t *testing.T) (string, time.Time) {
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
	writePartition(t, d, "routing", 0, "s1", 6, p0)
	writePartition(t, d, "routing", 1, "s1", 2, p1)
	if err := d.WriteClusterSnapshot(&catalog.ClusterSnapshot{ID: "s1", Topic: "routing", AsOf: base.Add(time.Hour), PartitionCount: 2,
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
	conn := dump.Conn{Brokers: bs}
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
