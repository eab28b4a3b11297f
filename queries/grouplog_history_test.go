package queries

import (
	"context"
	"reflect"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// TestGroupLogHistory: every join and leave the log holds, including a
// member that came and went between two generations no cut would have
// seen, and a consumer-protocol member that left (its current assignment's
// tombstone).
func TestGroupLogHistory(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_767_225_600_000) // 2026-01-01T00:00:00Z
	var rows []catalog.Row
	add := func(sec int64, key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: t0 + sec*1000, TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	reader := func(parts ...int32) offsetstest.Member {
		return offsetstest.Member{ID: "a-uuid", ClientID: "turbine-reader", Host: "/10.0.0.1", SessionMs: 45000, RebalanceMs: 60000,
			Assigned: map[string][]int32{"t": parts}, Topics: []string{"t"}}
	}
	watcher := offsetstest.Member{ID: "b-uuid", ClientID: "watcher", Host: "/10.0.0.9", SessionMs: 45000, RebalanceMs: 60000,
		Assigned: map[string][]int32{"t": {1}}, Topics: []string{"t"}}
	commit := func(sec int64, p int32, off int64) {
		k, v := offsetstest.Commit("wf2", "t", p, off, 0, "", t0+sec*1000)
		add(sec, k, v)
	}
	gen := func(sec int64, g int32, ms ...offsetstest.Member) {
		k, v := offsetstest.Group("wf2", g, "range", "a-uuid", t0+sec*1000, ms...)
		add(sec, k, v)
	}
	gen(0, 1, reader(0, 1))
	commit(1, 0, 5)
	commit(2, 1, 3)
	gen(10, 2, reader(0), watcher)
	commit(11, 1, 7)
	gen(20, 3, reader(0, 1))
	commit(21, 1, 9)
	var topicID [16]byte
	copy(topicID[:], "0123456789abcdef")
	add(30, offsetstest.Key848(8, "next", "m-9"), offsetstest.CurrentAssignment(4, 3, topicID, 0, 1))
	add(40, offsetstest.Key848(8, "next", "m-9"), nil)
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)

	const q = `SELECT concat_ws(' ', group_id, group_protocol, coalesce(topic, topic_id), "partition", coalesce(client_id, member_id),
		from_generation || '-' || to_generation, strftime(joined_at AT TIME ZONE 'UTC', '%M:%S'),
		coalesce(strftime(left_at AT TIME ZONE 'UTC', '%M:%S'), 'still'), from_complete,
		coalesce(first_committed_offset::VARCHAR, '-') || '..' || coalesce(last_committed_offset::VARCHAR, '-'), commits)
		FROM group_log_history ORDER BY group_id, "partition", joined_at`
	want := []string{
		"next consumer 30313233-3435-3637-3839-616263646566 0 m-9 4-4 00:30 00:40 true -..- 0",
		"next consumer 30313233-3435-3637-3839-616263646566 1 m-9 4-4 00:30 00:40 true -..- 0",
		"wf2 classic t 0 turbine-reader 1-3 00:00 still true 5..5 1",
		"wf2 classic t 1 turbine-reader 1-1 00:00 00:10 true 3..3 1",
		"wf2 classic t 1 watcher 2-2 00:10 00:20 true 7..7 1",
		"wf2 classic t 1 turbine-reader 3-3 00:20 still true 9..9 1",
	}
	for _, o := range []Options{{}, {Lazy: true}} {
		e, err := Open(context.Background(), dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := queryRows(t, e, q); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v group_log_history\n got %q\nwant %q", o, got, want)
		}
		e.Close()
	}
	// group_history answers from the log for a (topic, group) it holds,
	// also on a lazy engine asked for group_history alone.
	const qh = `SELECT concat_ws(' ', source, topic, "partition", client_id, strftime(from_as_of AT TIME ZONE 'UTC', '%M:%S'),
		coalesce(strftime(until_as_of AT TIME ZONE 'UTC', '%M:%S'), 'still'), coalesce(cuts::VARCHAR, '-'), generations, from_complete, coverage IS NOT NULL)
		FROM group_history ORDER BY group_id, "partition", from_as_of`
	wantH := []string{
		// the consumer-protocol group's topic has an id only: no name
		"log 0 00:30 00:40 - 1 true true",
		"log 1 00:30 00:40 - 1 true true",
		"log t 0 turbine-reader 00:00 still - 3 true true",
		"log t 1 turbine-reader 00:00 00:10 - 1 true true",
		"log t 1 watcher 00:10 00:20 - 1 true true",
		"log t 1 turbine-reader 00:20 still - 1 true true",
	}
	for _, o := range []Options{{}, {Lazy: true}} {
		e, err := Open(context.Background(), dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := queryRows(t, e, qh); !reflect.DeepEqual(got, wantH) {
			t.Errorf("%+v group_history\n got %q\nwant %q", o, got, wantH)
		}
		e.Close()
	}
}

// TestConsumerProtocolCommitHolders: a consumer-protocol group's commits
// name the member whose current assignment in force at the commit held
// the partition, and its epoch as the generation; after the member's
// tombstone, nobody; a commit naming no topic id, through the id the other
// commits give its topic.
func TestConsumerProtocolCommitHolders(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_767_225_600_000)
	var rows []catalog.Row
	add := func(key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: t0 + int64(len(rows))*1000, TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	var id [16]byte
	copy(id[:], "0123456789abcdef")
	commit := func(p int32, off int64) { add(offsetstest.CommitWithTopicID("next", "t", id, p, off, t0)) }
	add(offsetstest.Key848(5, "next", "m-1"), offsetstest.MemberMetadata(nil, "c-1", "/10.0.0.1", []string{"t"}, 30000, "uniform"))
	add(offsetstest.Key848(8, "next", "m-1"), offsetstest.CurrentAssignment(1, 0, id, 0, 1))
	commit(0, 10)
	add(offsetstest.Key848(5, "next", "m-2"), offsetstest.MemberMetadata(nil, "c-2", "/10.0.0.2", []string{"t"}, 30000, "uniform"))
	add(offsetstest.Key848(8, "next", "m-1"), offsetstest.CurrentAssignment(2, 1, id, 0))
	add(offsetstest.Key848(8, "next", "m-2"), offsetstest.CurrentAssignment(2, 0, id, 1))
	commit(1, 20)
	commit(0, 30)
	add(offsetstest.Key848(8, "next", "m-2"), nil)
	commit(1, 40)
	add(offsetstest.Commit("next", "t", 0, 50, -1, "", t0)) // version 3: no topic id
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := queryRows(t, e, `SELECT concat_ws(' ', log_offset, "partition", committed_offset, coalesce(generation::VARCHAR, '-'), coalesce(member_id, '-'),
		coalesce(client_id, '-'), coalesce(client_host, '-')) FROM group_commit_log ORDER BY log_offset`)
	want := []string{"2 0 10 1 m-1 c-1 /10.0.0.1", "6 1 20 2 m-2 c-2 /10.0.0.2", "7 0 30 2 m-1 c-1 /10.0.0.1", "9 1 40 - - - -", "10 0 50 2 m-1 c-1 /10.0.0.1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("group_commit_log\n got %q\nwant %q", got, want)
	}
}
