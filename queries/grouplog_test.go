package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// offsetsLogFixture writes a folder holding a dump of __consumer_offsets,
// one partition, its records built by code: a classic group's commits and
// generations, a tombstone, a consumer-protocol member, and records this
// build cannot decode.
func offsetsLogFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_767_225_600_000) // 2026-01-01T00:00:00Z
	var rows []catalog.Row
	add := func(key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: t0 + int64(len(rows))*1000,
			TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	watcher := offsetstest.Member{ID: "watcher-1-uuid", ClientID: "watcher", Host: "/10.0.0.9", SessionMs: 45000, RebalanceMs: 60000,
		Assigned: map[string][]int32{"turbines": {0, 1}}, Topics: []string{"turbines"}}
	add(offsetstest.Group("wf", 1, "range", "watcher-1-uuid", t0, watcher))
	add(offsetstest.Commit("wf", "turbines", 0, 510, 3, "", t0+1000))
	add(offsetstest.Commit("wf", "turbines", 1, 20, 3, "m", t0+2000))
	add(offsetstest.CommitKey("wf", "turbines", 0), nil)
	add(offsetstest.Group("wf", 2, "range", "", t0+4000))
	var topicID [16]byte
	copy(topicID[:], "0123456789abcdef")
	add(offsetstest.Key848(5, "next", "m-9"), offsetstest.MemberMetadata(nil, "watcher-848", "/10.0.0.7", []string{"turbines"}, 30000, "uniform"))
	add(offsetstest.Key848(8, "next", "m-9"), offsetstest.CurrentAssignment(4, 3, topicID, 2, 5))
	add(offsetstest.CommitKey("wf", "turbines", 2), []byte{0, 9, 1, 2}) // a version from the future
	add(offsetstest.Key848(18, "gone"), []byte{0, 0, 1})                // a type Kafka 4.4 no longer writes
	add(offsetstest.Commit("wf", "turbines", 1, 25, 3, "", t0+9000))    // an admin's commit to the empty group
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	return dir
}

func queryRows(t *testing.T, e *Engine, q string) []string {
	t.Helper()
	rows, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return out
}

func TestGroupLogViews(t *testing.T) {
	dir := offsetsLogFixture(t)
	cases := []struct {
		q    string
		want []string
	}{
		{`SELECT concat_ws(' ', group_id, topic, "partition", coalesce(committed_offset::VARCHAR, '-'), coalesce(leader_epoch::VARCHAR, '-'),
		     coalesce(metadata, '-'), coalesce(strftime(commit_time AT TIME ZONE 'UTC', '%H:%M:%S'), '-'), coalesce(expire_time::VARCHAR, '-'), deleted, log_offset)
		   FROM group_commit_log ORDER BY log_offset`,
			[]string{"wf turbines 0 510 3  00:00:01 - false 1", "wf turbines 1 20 3 m 00:00:02 - false 2", "wf turbines 0 - - - - - true 3",
				"wf turbines 1 25 3  00:00:09 - false 9"}},
		// The generation current at each commit and the member holding its partition.
		{`SELECT concat_ws(' ', log_offset, generation, coalesce(member_id, '-'), coalesce(client_id, '-'), coalesce(client_host, '-'), coalesce(instance_id, '-'))
		   FROM group_commit_log ORDER BY log_offset`,
			[]string{"1 1 watcher-1-uuid watcher /10.0.0.9 -", "2 1 watcher-1-uuid watcher /10.0.0.9 -", "3 1 watcher-1-uuid watcher /10.0.0.9 -", "9 2 - - - -"}},
		{`SELECT concat_ws(' ', group_id, group_protocol, generation, coalesce(protocol_name, '-'), coalesce(leader, '-'), coalesce(member_id, '-'),
		     coalesce(client_id, '-'), coalesce(client_host, '-'), coalesce(session_timeout_ms::VARCHAR, '-'), coalesce(rebalance_timeout_ms::VARCHAR, '-'),
		     coalesce(list_transform(assignment, a -> coalesce(a.topic, a.topic_id) || ':' || a.partitions::VARCHAR)::VARCHAR, '-'))
		   FROM group_generations ORDER BY log_offset`,
			[]string{
				"wf classic 1 range watcher-1-uuid watcher-1-uuid watcher /10.0.0.9 45000 60000 ['turbines:[0, 1]']",
				"wf classic 2 range  - - - - - -", // an empty generation: no leader, no member
				"next consumer 4 uniform - m-9 watcher-848 /10.0.0.7 - 30000 ['30313233-3435-3637-3839-616263646566:[2, 5]']",
			}},
		{`SELECT concat_ws(' ', log_offset, kind, coalesce(decode_error, 'ok')) FROM group_log WHERE decode_error IS NOT NULL ORDER BY log_offset`,
			[]string{"7 offset_commit unknown value version: offset_commit value version 9 (known: 0 to 4)",
				"8 other unknown record type: type 18 (other) is not decoded"}},
		{`SELECT count(*)::VARCHAR FROM group_log`, []string{"10"}},
		// The broker test's questions, on records whose answer is known.
		{fmt.Sprintf(lastCommitsSQL, "'wf'"), []string{"turbines/1 25"}},
		{fmt.Sprintf(classicAssignedSQL, "'wf'"), []string{"watcher turbines [0, 1]"}},
		{`SELECT hex(value_raw) FROM group_log WHERE log_offset = 7`, []string{"00090102"}},
	}
	for _, o := range []Options{{}, {Lazy: true}, {Locked: true}} {
		e, err := Open(context.Background(), dir, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if got := queryRows(t, e, c.q); !reflect.DeepEqual(got, c.want) {
				t.Errorf("%+v: %s\n got %q\nwant %q", o, c.q, got, c.want)
			}
		}
		e.Close()
	}
}

// TestGroupLogViewsOnlyWithTheLog: a folder without __consumer_offsets has
// no log views, and the guard does not take their names for relations.
func TestGroupLogViewsOnlyWithTheLog(t *testing.T) {
	e, err := Open(context.Background(), fixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.DB().ExecContext(context.Background(), `SELECT * FROM group_commit_log`); err == nil {
		t.Fatal("group_commit_log exists without __consumer_offsets")
	}
	if e.isRelation("group_commit_log") {
		t.Fatal("group_commit_log taken for a relation without __consumer_offsets")
	}
}

// jsonPaths lists the object keys of a JSON value as dotted paths (a list's
// elements under "[]").
func jsonPaths(prefix string, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			out[prefix+k] = true
			jsonPaths(prefix+k+".", c, out)
		}
	case []any:
		for _, c := range x {
			jsonPaths(prefix+"[].", c, out)
		}
	}
}

// TestOffsetsRecordStructure: from_json's structure names exactly the
// fields a Record's JSON has, so no decoded field is dropped silently.
func TestOffsetsRecordStructure(t *testing.T) {
	s, i32, tp := "x", int32(1), []consumeroffsets.TopicPartitions{{Topic: "t", TopicID: "u", Partitions: []int32{1}}}
	kv, tk := []consumeroffsets.KeyValue{{Key: "k", Value: "v"}}, []consumeroffsets.TaskIDs{{SubtopologyID: "0", Partitions: []int32{1}}}
	full := consumeroffsets.Record{Kind: "k", Group: "g", Member: "m", Topic: "t", Error: "e",
		Commit:     &consumeroffsets.OffsetCommit{TopicID: "u"},
		Classic:    &consumeroffsets.GroupMetadata{Protocol: &s, Leader: &s, Members: []consumeroffsets.ClassicMember{{InstanceID: &s, Assignment: tp, AssignmentError: "e", RawAssignment: []byte{1}}}},
		GroupEpoch: &consumeroffsets.ConsumerGroupEpoch{},
		MemberMetadata: &consumeroffsets.MemberMetadata{InstanceID: &s, RackID: &s, SubscribedTopicNames: []string{"t"}, SubscribedTopicRegex: &s,
			ServerAssignor: &s, ClassicSessionTimeoutMs: &i32},
		TargetEpoch: &consumeroffsets.TargetAssignmentEpoch{}, Target: &consumeroffsets.TargetAssignment{Partitions: tp},
		Current: &consumeroffsets.CurrentAssignment{Assigned: tp, PendingRevocation: tp},
		Regex:   "r", ShareState: &consumeroffsets.ShareState{Initializing: tp, Initialized: tp, Deleting: tp},
		RegexTopics:    &consumeroffsets.RegexTopics{Topics: []string{"t"}},
		StreamsEpoch:   &consumeroffsets.StreamsGroupEpoch{ValidatedTopologyEpoch: &i32, LastAssignmentConfigs: kv, StoredDescriptionTopologyEpoch: &i32, FailedDescriptionTopologyEpoch: &i32},
		StreamsMember:  &consumeroffsets.StreamsMemberMetadata{InstanceID: &s, RackID: &s, UserEndpoint: &s, ClientTags: kv},
		StreamsTarget:  &consumeroffsets.StreamsTasks{Active: tk, Standby: tk, Warmup: tk},
		StreamsCurrent: &consumeroffsets.StreamsCurrent{Active: tk, Standby: tk, Warmup: tk, ActivePendingRevocation: tk, StandbyPendingRevocation: tk, WarmupPendingRevocation: tk},
		Topology: &consumeroffsets.Topology{Subtopologies: []consumeroffsets.Subtopology{{SourceTopics: []string{"t"}, SourceTopicRegex: []string{"t"},
			StateChangelogTopics: []string{"t"}, RepartitionSinkTopics: []string{"t"}, RepartitionSourceTopics: []string{"t"}}}}}
	b, _ := json.Marshal(&full)
	var doc, structure any
	json.Unmarshal(b, &doc)
	if err := json.Unmarshal([]byte(offsetsRecordStructure), &structure); err != nil {
		t.Fatalf("structure: %v", err)
	}
	have, want := map[string]bool{}, map[string]bool{}
	jsonPaths("", structure, have)
	jsonPaths("", doc, want)
	var missing, extra []string
	for p := range want {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	for p := range have {
		if !want[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Fatalf("offsetsRecordStructure lacks %s; has what a Record has not: %s", strings.Join(missing, ", "), strings.Join(extra, ", "))
	}
}

// BenchmarkGroupCommitLog: the commits of a log of 100,000 records, decoded
// at query time.
func BenchmarkGroupCommitLog(b *testing.B) {
	dir := b.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		b.Fatal(err)
	}
	const n = 100_000
	rows := make([]catalog.Row, n)
	for i := range rows {
		k, v := offsetstest.Commit("galewatch-writers", "turbine-readings", int32(i%24), int64(i), 4, "", 1_767_225_600_000+int64(i))
		rows[i] = catalog.Row{Partition: 0, Offset: int64(i), Timestamp: 1_767_225_600_000 + int64(i), TimestampType: catalog.TimestampCreate, Key: k, Value: v}
	}
	fe, err := d.WriteDataFile(b.Context(), catalog.TopicPartition{Topic: offsetsTopic, Partition: 0}, rows, "s1")
	if err != nil {
		b.Fatal(err)
	}
	if err := d.WriteManifest(b.Context(), &catalog.Manifest{Topic: offsetsTopic, Partition: 0, NextOffset: n, Files: []catalog.FileEntry{fe}}); err != nil {
		b.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for b.Loop() {
		var sum int64
		if err := e.DB().QueryRowContext(context.Background(), `SELECT sum(committed_offset) FROM group_commit_log`).Scan(&sum); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// TestOffsetsCommitJSON: the hand-written JSON of a commit is valid and
// says what Decode read, whatever bytes a group, topic or metadata holds.
func TestOffsetsCommitJSON(t *testing.T) {
	for _, s := range []string{"", "wf", `quote " and \ back`, "tab\tnew\nline\x00", "ünïcødé ☃", "\xff\xfe bad utf-8", "<script>&"} {
		k, v := offsetstest.Commit(s, s+"-t", 7, 42, -1, s, 1000)
		got, ok := offsetsCommitJSON(k, v)
		if !ok {
			t.Fatalf("%q: not a commit", s)
		}
		var c struct {
			Group, Topic, Metadata string
			Partition              int32
			Offset                 int64
			LeaderEpoch            int32 `json:"leader_epoch"`
			Tombstone              bool
		}
		if err := json.Unmarshal([]byte(got), &c); err != nil {
			t.Fatalf("%q: %s is not JSON: %v", s, got, err)
		}
		var want string // invalid UTF-8 as encoding/json writes it
		q, _ := json.Marshal(s)
		json.Unmarshal(q, &want)
		if c.Group != want || c.Topic != want+"-t" || c.Metadata != want || c.Partition != 7 || c.Offset != 42 || c.LeaderEpoch != -1 || c.Tombstone {
			t.Errorf("%q: %s", s, got)
		}
	}
	if _, ok := offsetsCommitJSON(offsetstest.Group("g", 1, "range", "", 0)); ok {
		t.Error("a group's generation taken for a commit")
	}
	if got, ok := offsetsCommitJSON(offsetstest.CommitKey("g", "t", 1), nil); !ok || !strings.Contains(got, `"tombstone":true`) {
		t.Errorf("tombstone: %s %v", got, ok)
	}
}

// TestGroupCommitLogHolderByTopicName: a consumer-protocol (KIP-848)
// group's assignments name topics by id; a commit that names none gets its
// holder through the one id the folder knows for its topic name (here from
// another group's commit naming both), and a commit whose name maps to no
// id, or to two (the topic made again), gets none, with holder_reason
// saying why, as does one on a partition no member held.
func TestGroupCommitLogHolderByTopicName(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_767_225_600_000)
	var rows []catalog.Row
	add := func(key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: t0 + int64(len(rows))*1000,
			TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	id := func(s string) (u [16]byte) { copy(u[:], s); return u }
	turbines, vanes1, vanes2 := id("turbines-id-0001"), id("vanes-id-0000001"), id("vanes-id-0000002")
	add(offsetstest.CommitWithTopicID("other", "turbines", turbines, 0, 1, t0))
	add(offsetstest.CommitWithTopicID("other", "vanes", vanes1, 0, 1, t0))
	add(offsetstest.CommitWithTopicID("other", "vanes", vanes2, 0, 2, t0))
	add(offsetstest.Key848(5, "next", "m-9"), offsetstest.MemberMetadata(nil, "watcher-848", "/10.0.0.7", []string{"turbines"}, 30000, "uniform"))
	add(offsetstest.Key848(8, "next", "m-9"), offsetstest.CurrentAssignment(4, 3, turbines, 2, 5))
	add(offsetstest.Key848(8, "next", "m-8"), offsetstest.CurrentAssignment(4, 3, vanes2, 2))
	add(offsetstest.Commit("next", "turbines", 2, 10, 3, "", t0))               // 6: held by m-9, by name
	add(offsetstest.CommitWithTopicID("next", "turbines", turbines, 5, 11, t0)) // 7: held by m-9, by id
	add(offsetstest.Commit("next", "turbines", 3, 12, 3, "", t0))               // 8: nobody held 3
	add(offsetstest.Commit("next", "blades", 2, 13, 3, "", t0))                 // 9: no id for blades
	add(offsetstest.Commit("next", "vanes", 2, 14, 3, "", t0))                  // 10: two ids for vanes
	add(offsetstest.Key848(8, "next", "m-9"), nil)                              // m-9 left
	add(offsetstest.Commit("next", "turbines", 2, 15, 3, "", t0))               // 12: after it left
	writePartition(t, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := queryRows(t, e, `SELECT concat_ws(' ', log_offset, coalesce(member_id, '-'), coalesce(generation::VARCHAR, '-'), coalesce(holder_reason, '-'))
		FROM group_commit_log WHERE group_id = 'next' ORDER BY log_offset`)
	want := []string{
		"6 m-9 4 -",
		"7 m-9 4 -",
		"8 - - no member's current assignment in the log held the partition at the commit (its records compacted away, or before the dump)",
		"9 - - the commit names no topic id and no cut or commit in the folder gives one for topic blades: the group's consumer-protocol assignments name topics by id only (a cut of the topic records its id)",
		"10 - - the commit names no topic id and topic vanes had 2 ids (made again): the group's consumer-protocol assignments name topics by id, so which one is not guessed",
		"12 - - no member's current assignment in the log held the partition at the commit (its records compacted away, or before the dump)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("group_commit_log of group next:\n got %q\nwant %q", got, want)
	}
}

func TestTopicIDText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"MDEyMzQ1Njc4OWFiY2RlZg==", "30313233-3435-3637-3839-616263646566"}, // base64 (kadm's TopicID.String)
		{"MDEyMzQ1Njc4OWFiY2RlZg", "30313233-3435-3637-3839-616263646566"},   // Kafka's Uuid.toString: unpadded
		{"", ""},
		{"bm90LTE2", ""}, // 6 bytes: not an id
	} {
		got := ""
		if p := topicIDText(c.in); p != nil {
			got = *p
		}
		if got != c.want {
			t.Errorf("topicIDText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
