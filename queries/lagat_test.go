package queries

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

// lagAtFixture writes a folder with topic turbines (partition 0: ten
// records, one every 10 s from t0; partition 1: five, at t0+5 s, 15 s, ...),
// two cuts (t0+45 s and t0+95 s) that saw groups wf and old, and, when
// withLog, a dump of __consumer_offsets (cut at t0+100 s) whose first five
// offsets compaction removed: wf commits partition 0 offset 3 at t0+30 s,
// partition 1 offset 4 at t0+60 s and partition 0 offset 7 at t0+75 s.
func lagAtFixture(t *testing.T, withLog bool) (string, time.Time) {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(s int) int64 { return t0.Add(time.Duration(s) * time.Second).UnixMilli() }
	var p0, p1 []catalog.Row
	for i := range 10 {
		p0 = append(p0, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: ms(10 * i), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
	}
	for i := range 5 {
		p1 = append(p1, catalog.Row{Partition: 1, Offset: int64(i), Timestamp: ms(10*i + 5), TimestampType: catalog.TimestampCreate, Value: []byte("y")})
	}
	writePartition(t, d, "turbines", 0, "s1", 10, p0)
	writePartition(t, d, "turbines", 1, "s1", 5, p1)
	for _, c := range []struct {
		id        string
		at        int
		hw0       int64
		wf0, wf1  int64
		oldOffset int64
	}{{"s1", 45, 5, 2, -1, 1}, {"s2", 95, 10, 8, 4, 1}} {
		wf := catalog.GroupState{Group: "wf", State: "Stable", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: c.wf0}}}
		if c.wf1 >= 0 {
			wf.Offsets = append(wf.Offsets, catalog.GroupOffset{Partition: 1, Offset: c.wf1})
		}
		old := catalog.GroupState{Group: "old", State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: c.oldOffset}}}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: c.id, Topic: "turbines", AsOf: t0.Add(time.Duration(c.at) * time.Second), PartitionCount: 2,
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: c.hw0}, {Partition: 1, HighWatermark: 5}},
			Groups:     []catalog.GroupState{wf, old}}); err != nil {
			t.Fatal(err)
		}
	}
	if withLog {
		var rows []catalog.Row
		add := func(at int, key, value []byte) {
			rows = append(rows, catalog.Row{Partition: 0, Offset: int64(5 + len(rows)), Timestamp: ms(at), TimestampType: catalog.TimestampCreate, Key: key, Value: value})
		}
		commit := func(p int32, off int64, at int) {
			k, v := offsetstest.Commit("wf", "turbines", p, off, 0, "", ms(at))
			add(at, k, v)
		}
		commit(0, 3, 30)
		commit(1, 4, 60)
		commit(0, 7, 75)
		writePartition(t, d, offsetsTopic, 0, "s3", 8, rows)
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s3", Topic: offsetsTopic, AsOf: t0.Add(100 * time.Second), PartitionCount: 1,
			Partitions: []catalog.PartitionState{{Partition: 0, LogStart: 5, HighWatermark: 8}}}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, t0
}

// lagAtSQL writes each row of lag_at as one line.
const lagAtSQL = `SELECT concat_ws(' ', topic, "partition", coalesce(committed_offset::VARCHAR, '-'), coalesce(committed_from, '-'),
	coalesce(end_offset::VARCHAR, '-'), coalesce(lag_records::VARCHAR, '-'), coalesce(lag_seconds::VARCHAR, '-'), coalesce(reason, 'ok'))
	FROM lag_at(%s, TIMESTAMPTZ '%s')`

// TestLagAt: the lag of a group at moments between cuts, from the commit
// log where it covers the moment, else from the cuts (named), and NULLs
// with a reason outside what the folder covers.
func TestLagAt(t *testing.T) {
	at := func(t0 time.Time, s int) string { return t0.Add(time.Duration(s) * time.Second).Format(time.RFC3339) }
	cases := []struct {
		log   bool
		group string
		sec   int
		want  []string
	}{
		// Between the cuts, from the commit log: wf's commit of t0+30 s,
		// the end moved on by the records stamped up to t0+50 s; the
		// first unread record (offset 3) is 20 s old.
		{true, "wf", 50, []string{"turbines 0 3 commit log 6 3 20.0 ok",
			"turbines 1 - - 5 - - no commit of this partition by the group yet (the commit log is complete for it at this time)"}},
		{true, "wf", 80, []string{"turbines 0 7 commit log 9 2 10.0 ok", "turbines 1 4 commit log 5 1 35.0 ok"}},
		// Before the log is complete (compaction removed offsets 0-4) and
		// before any cut: unknown, never 0.
		{true, "wf", 10, []string{
			"turbines 0 - - 2 - - before the commit log is complete for the group (from 2026-01-01T00:00:30.000Z: compaction removed older commits) and before any cut recorded its offsets",
			"turbines 1 - - 1 - - before the commit log is complete for the group (from 2026-01-01T00:00:30.000Z: compaction removed older commits) and before any cut recorded its offsets"}},
		// After the last cut of the topic: the folder does not know the end;
		// after the log's cut, the committed offset is the last cut's.
		{true, "wf", 200, []string{
			"turbines 0 8 cut s2 - - - after the last cut of turbines (2026-01-01T00:01:35.000Z): the folder does not know",
			"turbines 1 4 cut s2 - - - after the last cut of turbines (2026-01-01T00:01:35.000Z): the folder does not know"}},
		// A group the log does not hold: from the cuts, the cut named.
		{true, "old", 60, []string{"turbines 0 1 cut s1 7 6 50.0 ok"}},
		// Without the log, wf from the cuts.
		{false, "wf", 50, []string{"turbines 0 2 cut s1 6 4 30.0 ok",
			"turbines 1 - - 5 - - before any cut recorded the group's offsets (the folder holds no dump of __consumer_offsets)"}},
		{false, "wf", 10, []string{"turbines 0 - - 2 - - before any cut recorded the group's offsets (the folder holds no dump of __consumer_offsets)",
			"turbines 1 - - 1 - - before any cut recorded the group's offsets (the folder holds no dump of __consumer_offsets)"}},
		{false, "nobody", 50, nil},
	}
	for _, withLog := range []bool{true, false} {
		dir, t0 := lagAtFixture(t, withLog)
		for _, o := range []Options{{}, {Lazy: true}, {Locked: true}} {
			e, err := Open(context.Background(), dir, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				if c.log != withLog {
					continue
				}
				q := strings.Replace(strings.Replace(lagAtSQL, "%s", quoteString(c.group), 1), "%s", at(t0, c.sec), 1)
				if got := queryRows(t, e, q); !reflect.DeepEqual(got, c.want) {
					t.Errorf("log %v %+v: lag_at(%s, t0+%ds)\n got %q\nwant %q", withLog, o, c.group, c.sec, got, c.want)
				}
			}
			e.Close()
		}
	}
}

// TestLagAtGuard: lag_at takes two arguments, each judged as any
// expression (a subquery over a system table is refused).
func TestLagAtGuard(t *testing.T) {
	dir, _ := lagAtFixture(t, false)
	e, err := Open(context.Background(), dir, Options{Locked: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ q, refusal string }{
		{`SELECT * FROM lag_at('wf')`, "lag_at takes a group's name"},
		{`SELECT * FROM lag_at((SELECT current_setting('threads')::VARCHAR), now())`, "current_setting"},
		{`SELECT * FROM lag_at((SELECT any_value(value) FROM duckdb_settings()), now())`, "duckdb_settings"},
	} {
		if _, err := e.Query(context.Background(), c.q); err == nil || !strings.Contains(err.Error(), c.refusal) {
			t.Errorf("%s: %v, want refused for %s", c.q, err, c.refusal)
		}
	}
	rows, err := e.Query(context.Background(), `SELECT count(*) FROM lag_at(?, ?::TIMESTAMPTZ)`, "wf", "2026-01-01T00:00:50Z")
	if err != nil {
		t.Fatalf("lag_at with bound values: %v", err)
	}
	rows.Close()
}

// TestGroupLogCoverage: a log whose first offsets are gone is complete for
// its groups from the first record after the hole; one without holes,
// since it began.
func TestGroupLogCoverage(t *testing.T) {
	compacted, _ := lagAtFixture(t, true)
	const q = `SELECT concat_ws(' ', group_id, log_partition, first_offset, missing_offsets, complete_from_offset,
		coalesce(strftime(complete_from AT TIME ZONE 'UTC', '%H:%M:%S'), '-'), complete_from_start, coalesce(strftime(known_until AT TIME ZONE 'UTC', '%H:%M:%S'), '-'), note)
		FROM group_log_coverage ORDER BY ALL`
	for _, c := range []struct {
		dir  string
		want []string
	}{
		{compacted, []string{"wf 0 5 5 5 00:00:30 false 00:01:40 complete from offset 5 of log partition 0: 5 records before it were removed by compaction or retention before the dump; dump --follow --topic __consumer_offsets keeps the history from now on"}},
		{offsetsLogFixture(t), []string{
			"next 0 0 0 0 - true - complete: log partition 0 holds every record since it began; dump --follow --topic __consumer_offsets keeps the history from now on",
			"wf 0 0 0 0 - true - complete: log partition 0 holds every record since it began; dump --follow --topic __consumer_offsets keeps the history from now on"}},
	} {
		e, err := Open(context.Background(), c.dir, Options{Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := queryRows(t, e, q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("group_log_coverage\n got %q\nwant %q", got, c.want)
		}
		e.Close()
	}
}

// TestLagAtLaterally: lag_at over a list of moments in one statement
// (LATERAL, what the server's lag chart runs: one read of the commit log,
// not one per moment) gives, row for row, what lag_at gives at each
// moment alone.
func TestLagAtLaterally(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const cols = `l.topic, l."partition", l.at_time, l.committed_offset, l.committed_from, l.end_offset, l.lag_records, l.lag_seconds, l.reason`
	moments := []string{"2026-07-16T10:30:00Z", "2026-07-16T11:00:00Z", "2026-07-16T11:05:30Z", "2026-07-16T11:16:00Z", "2026-07-16T11:21:00Z", "2026-07-16T12:00:00Z"}
	var want []string
	for _, m := range moments {
		rows, err := e.Query(ctx, `SELECT `+cols+` FROM lag_at(?, ?::TIMESTAMPTZ) l ORDER BY l.topic, l."partition"`, "galewatch-writers", m)
		if err != nil {
			t.Fatal(err)
		}
		if s := allRows(t, rows); s != "" {
			want = append(want, s)
		}
	}
	rows, err := e.Query(ctx, `SELECT `+cols+` FROM (SELECT unnest(string_split(?, ','))::TIMESTAMPTZ AS t) m,
		LATERAL (SELECT * FROM lag_at(?, m.t)) l ORDER BY l.at_time, l.topic, l."partition"`, strings.Join(moments, ","), "galewatch-writers")
	if err != nil {
		t.Fatal(err)
	}
	got := allRows(t, rows)
	if w := strings.Join(want, ";"); got != w || !strings.Contains(w, "commit log") {
		t.Fatalf("laterally:\n%s\none by one:\n%s", got, w)
	}
}
