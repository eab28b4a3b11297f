package queries

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// TestShareAndStreamsGroupsFromTheLog: a share group and a streams group
// as Kafka 4 writes them to __consumer_offsets (records built by code).
// Before, their records were group_log's decode_error ("unknown record
// type: type 14 (other) is not decoded") and check members read the cuts
// and said "not judged: 11 records of the log could not be decoded". Now:
// each member from its current assignment records, left at its
// tombstone; a share member's partitions named through the group's own
// share state record (topic id and name), its records committed past not
// known (a share group commits no offsets); a streams member's partitions
// those its active tasks read by the topology record in force, not known
// before the log has one; a streams group's commits name the member whose
// active task read the partition, and so its records committed past.
func TestShareAndStreamsGroupsFromTheLog(t *testing.T) {
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
	copy(id[:], "orders-topic-id!")
	// The share group: m-1 holds everything, m-2 joins and takes 1 and 2,
	// m-1 leaves.
	add(offsetstest.Key848(10, "tea", "m-1"), offsetstest.ShareMemberMetadata("barista-1", "/10.0.0.1", []string{"orders"}))
	add(offsetstest.Key848(14, "tea", "m-1"), offsetstest.ShareCurrentAssignment(1, 0, id, 0, 1, 2))
	add(offsetstest.Key848(15, "tea"), offsetstest.ShareState(id, "orders", 0, 1, 2))
	add(offsetstest.Key848(10, "tea", "m-2"), offsetstest.ShareMemberMetadata("barista-2", "/10.0.0.2", []string{"orders"}))
	add(offsetstest.Key848(14, "tea", "m-1"), offsetstest.ShareCurrentAssignment(2, 1, id, 0))
	add(offsetstest.Key848(14, "tea", "m-2"), offsetstest.ShareCurrentAssignment(2, 0, id, 1, 2))
	add(offsetstest.Key848(14, "tea", "m-1"), nil)
	add(offsetstest.Key848(10, "tea", "m-1"), nil)
	// The streams group: s-1's first assignment precedes the topology
	// record (its partitions are not known), s-2 joins, s-1 leaves; a
	// commit.
	add(offsetstest.Key848(19, "gale", "s-1"), offsetstest.StreamsMemberMetadata("gale-1", "/10.0.0.3", "p-1"))
	add(offsetstest.Key848(22, "gale", "s-1"), offsetstest.StreamsCurrentAssignment(1, 0, "0", 0, 1, 2))
	add(offsetstest.Key848(23, "gale"), offsetstest.StreamsTopology(1, "0", "orders"))
	add(offsetstest.Key848(19, "gale", "s-2"), offsetstest.StreamsMemberMetadata("gale-2", "/10.0.0.4", "p-2"))
	add(offsetstest.Key848(22, "gale", "s-1"), offsetstest.StreamsCurrentAssignment(2, 1, "0", 0))
	add(offsetstest.Key848(22, "gale", "s-2"), offsetstest.StreamsCurrentAssignment(2, 0, "0", 1, 2))
	add(offsetstest.Commit("gale", "orders", 1, 3, -1, "", t0))
	add(offsetstest.Commit("gale", "orders", 1, 7, -1, "", t0))
	add(offsetstest.Commit("gale", "orders", 2, 2, -1, "", t0))
	add(offsetstest.Key848(22, "gale", "s-1"), nil)
	add(offsetstest.Key848(19, "gale", "s-1"), nil)
	// The group "storm": its topology deleted, then garbage: an
	// assignment after either is not mapped through the older topology.
	add(offsetstest.Key848(23, "storm"), offsetstest.StreamsTopology(1, "0", "orders"))
	add(offsetstest.Key848(22, "storm", "w-1"), offsetstest.StreamsCurrentAssignment(1, 0, "0", 0))
	add(offsetstest.Key848(23, "storm"), nil)
	add(offsetstest.Key848(22, "storm", "w-1"), offsetstest.StreamsCurrentAssignment(2, 1, "0", 0))
	add(offsetstest.Key848(23, "storm"), []byte{0, 0, 1})
	add(offsetstest.Key848(22, "storm", "w-1"), offsetstest.StreamsCurrentAssignment(3, 2, "0", 0))
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	var data []catalog.Row
	for i := range 9 {
		data = append(data, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: t0, TimestampType: catalog.TimestampCreate, Value: []byte("x")})
	}
	writePartition(t, d, "orders", 0, "s1", 9, data)
	for i := range data {
		data[i].Partition = 1
	}
	writePartition(t, d, "orders", 1, "s1", 9, data)
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	if got := queryRows(t, e, `SELECT count(*)::VARCHAR || ' ' || count(decode_error)::VARCHAR || ' ' || coalesce(min(log_offset) FILTER (WHERE decode_error IS NOT NULL), -1) FROM group_log`); got[0] != "25 1 23" {
		t.Errorf("group_log: %s records, not decoded", got[0])
	}
	got := queryRows(t, e, `SELECT concat_ws(' ', group_id, group_protocol, generation, member_id, client_id,
		coalesce(list_transform(assignment, a -> coalesce(a.topic, a.topic_id) || ':' || a.partitions::VARCHAR)::VARCHAR, '-'))
		FROM group_generations WHERE group_id <> 'storm' ORDER BY log_offset`)
	want := []string{
		"tea share 1 m-1 barista-1 ['6f726465-7273-2d74-6f70-69632d696421:[0, 1, 2]']",
		"tea share 2 m-1 barista-1 ['6f726465-7273-2d74-6f70-69632d696421:[0]']",
		"tea share 2 m-2 barista-2 ['6f726465-7273-2d74-6f70-69632d696421:[1, 2]']",
		"gale streams 1 s-1 gale-1 -",
		"gale streams 2 s-1 gale-1 ['orders:[0]']",
		"gale streams 2 s-2 gale-2 ['orders:[1, 2]']",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("group_generations\n got %q\nwant %q", got, want)
	}
	if got := queryRows(t, e, `SELECT concat_ws(' ', generation, coalesce(assignment::VARCHAR, 'NULL'), coalesce(assignment_error, '-'))
		FROM group_generations WHERE group_id = 'storm' ORDER BY log_offset`); !reflect.DeepEqual(got, []string{
		"1 [{'topic': orders, 'topic_id': NULL, 'partitions': [0]}] -",
		"2 NULL the group's last topology record before this assignment is a tombstone (the group was deleted): the partitions its tasks read are not known",
		"3 NULL the group's last topology record before this assignment did not decode (malformed record: streams_group_topology value version 0: cut short: 4 bytes wanted, 1 left): the partitions its tasks read are not known",
	}) {
		t.Errorf("storm's generations %q", got)
	}
	if got := queryRows(t, e, `SELECT concat_ws(' ', "partition", committed_offset, generation, member_id, client_id) FROM group_commit_log ORDER BY log_offset`); !reflect.DeepEqual(got, []string{"1 3 2 s-2 gale-2", "1 7 2 s-2 gale-2", "2 2 2 s-2 gale-2"}) {
		t.Errorf("the streams group's commits: %q", got)
	}

	// The share group's history names its topic through its own share
	// state record (no cut of the topic gives its id).
	if got := queryRows(t, e, `SELECT concat_ws(' ', client_id, coalesce(topic, 'NULL'), "partition", from_generation, to_generation, left_at IS NOT NULL)
		FROM group_log_history WHERE group_id = 'tea' ORDER BY client_id, "partition"`); !reflect.DeepEqual(got, []string{
		"barista-1 orders 0 1 2 true", "barista-1 orders 1 1 1 true", "barista-1 orders 2 1 1 true", "barista-2 orders 1 2 2 false", "barista-2 orders 2 2 2 false"}) {
		t.Errorf("tea's history %q", got)
	}
	for _, tc := range []struct {
		group, protocol string
		members         []string
		says, newcomer  string
	}{
		{"tea", "share", []string{"barista-1 left <nil> [0 1 2] <nil>", "barista-2 in true [1 2] <nil>"}, "a share group commits no offsets",
			"held partitions [1,2] (records committed past not known)"},
		{"gale", "streams", []string{"gale-1 left <nil> <nil> <nil>", "gale-2 in true [1 2] 4"}, "no topology record of the group before some of its assignments",
			"held partitions [1,2] and committed past 4 records"},
	} {
		r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: "orders", Group: tc.group})
		if err != nil {
			t.Fatal(err)
		}
		var who []string
		for _, m := range r.Rows {
			left := "in"
			if m.Get("left_at") != nil {
				left = "left"
			}
			who = append(who, fmt.Sprint(m.Get("client_id"), " ", left, " ", m.Get("new_client_id"), " ", m.Get("partitions"), " ", m.Get("records_committed_past")))
		}
		if r.Summary.Get("source") != "commit log" || r.Summary.Get("protocol") != tc.protocol || asInt(r.Summary.Get("undecodable_log_records")) != 0 ||
			!reflect.DeepEqual(who, tc.members) || r.Status != StatusWarn || !strings.Contains(r.Message, tc.says) ||
			!strings.Contains(r.Message, tc.newcomer) {
			t.Errorf("%s: %s %q\n%v\n%q", tc.group, r.Status, r.Message, r.Summary.Vals, who)
		}
	}
}
