package queries

import (
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagLeavesOutTheOldTopicsCommits: a group committed offset 2 on a
// topic that was then deleted and made again under its name (another topic
// id); Kafka dropped the commits with the topic (kafka-consumer-groups
// shows none), and the cuts of today's topic record no group. lag took the
// group's latest cut, the old topic's, and said "WARN 1 group; the
// furthest behind is 3 records" with lag_seconds -3.3 (the new topic's
// record at offset 2 is younger than the old cut). Only the cuts of
// today's topic count: no group, as Kafka says. reset the same: it said
// "a reset of g-r ... would re-read 2 records" of the new topic for the
// old topic's commit; now the group has no committed offset to judge.
func TestLagLeavesOutTheOldTopicsCommits(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	ms := now.Add(-time.Minute).UnixMilli()
	var rows []catalog.Row
	for i := range int64(3) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: i, Timestamp: ms + i, TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte("v"), ProducerID: -1})
	}
	writePartition(t, d, "again", 0, "s2", 3, rows)
	for _, s := range []*catalog.ClusterSnapshot{
		{ID: "20260101T000000.000Z-aaaaaa", Topic: "again", TopicID: "old-id", AsOf: now.Add(-2 * time.Minute), PartitionCount: 2, ReplicationFactor: 1,
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 5}, {Partition: 1, HighWatermark: 5}},
			Groups:     []catalog.GroupState{{Group: "g-r", State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 2, LeaderEpoch: -1}}}}},
		{ID: "20260101T000100.000Z-bbbbbb", Topic: "again", TopicID: "new-id", AsOf: now, PartitionCount: 1, ReplicationFactor: 1,
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 3}}, Dumped: []int32{0}},
	} {
		if err := d.WriteClusterSnapshot(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(t.Context(), "lag", CheckOptions{Topic: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Get("groups") != int64(0) || r.Summary.Get("max_lag_records") != int64(0) {
		t.Errorf("lag: %s %q, groups %v, max_lag_records %v; want no group on today's topic", r.Status, r.Message, r.Summary.Get("groups"), r.Summary.Get("max_lag_records"))
	}
	for _, row := range r.Rows {
		if row.Get("kind") == "offset" {
			t.Errorf("row of the old topic's commit: %v", row.Get("committed_offset"))
		}
	}
	rr, err := e.RunCheck(t.Context(), "reset", CheckOptions{Topic: "again", Group: "g-r", ToTime: now.Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Summary.Get("records_to_reread") != int64(0) || rr.Status == StatusOK {
		t.Errorf("reset: %s %q, records_to_reread %v; want nothing judged", rr.Status, rr.Message, rr.Summary.Get("records_to_reread"))
	}
}
