package queries

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestLagWhenGroupsCouldNotBeRead: a cut whose principal could not read the
// groups records that (groups_error); the lag check then warns that groups
// are unknown instead of reporting "no consumer group".
func TestLagWhenGroupsCouldNotBeRead(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	writePartition(t, d, "orders", 0, "s1", 1, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: 1700000000000, TimestampType: catalog.TimestampCreate, Value: []byte("x")}})
	why := "User:noacl lacks DESCRIBE on the cluster, so the broker lists only the consumer groups it may describe"
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: time.Now(), PartitionCount: 1,
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 1}}, GroupsError: why, ConfigsError: "no DESCRIBE_CONFIGS"}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT groups_error || ' / ' || configs_error FROM snapshots`); got != why+" / no DESCRIBE_CONFIGS" {
		t.Fatalf("snapshots table: %q", got)
	}
	r, err := e.RunCheck(context.Background(), "lag", CheckOptions{Topic: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "could not all be read") || asInt(r.Summary.Get("snapshots_with_unreadable_groups")) != 1 {
		t.Fatalf("lag: %s %q %v", r.Status, r.Message, r.Summary)
	}
}
