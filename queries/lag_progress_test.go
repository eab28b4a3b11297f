package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/restore"
)

// pastEndFolder writes topic orders (offsets 0-119, high watermark 120 at
// cut s1 at at) whose cut records groups billing and
// topicsnap-restore-orders (a restore's progress into orders), each with
// offset committed on partition 0.
func pastEndFolder(t *testing.T, at time.Time, committed int64) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for o := int64(0); o < 120; o++ {
		rows = append(rows, catalog.Row{Partition: 0, Offset: o, Timestamp: at.Add(-time.Hour).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")})
	}
	writePartition(t, d, "orders", 0, "s1", 120, rows)
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "orders", AsOf: at, PartitionCount: 1,
		Partitions: []catalog.PartitionState{{Partition: 0, LogStart: 0, HighWatermark: 120, LastStable: 120}},
		Groups: []catalog.GroupState{
			{Group: "billing", State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: committed}}},
			{Group: "topicsnap-restore-orders", State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 150}}},
		}}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRestoreProgressGroupHasNoLag: a restore's progress group on its
// target (topicsnap-restore-T on T) commits the snapshot's source offsets,
// not positions in T. check lag leaves it out of its rows and figures and
// says so; asked for it by --group, it says there is no lag to judge;
// lag_at gives it no lag and says why. Before, check lag listed it with
// lag figures of source offsets (only the past-the-end warning left it
// out), and lag_at gave it lag 0 and no reason.
func TestRestoreProgressGroupHasNoLag(t *testing.T) {
	if RestoreProgressGroup("orders") != restore.ID("orders") {
		t.Fatalf("RestoreProgressGroup %q, restore.ID %q", RestoreProgressGroup("orders"), restore.ID("orders"))
	}
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	e, err := Open(ctx, pastEndFolder(t, at, 110), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const said = "group topicsnap-restore-orders is the progress of a topicsnap restore into orders (its committed offsets are the snapshot's source offsets, not positions in orders; no consumer's)"
	r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Rows {
		if row.Get("group_id") == "topicsnap-restore-orders" {
			t.Errorf("a row of the restore's progress: %v", row)
		}
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "1 group; the furthest behind is 10 records") || !strings.HasSuffix(r.Message, said+": left out") ||
		asInt(r.Summary.Get("groups")) != 1 || asInt(r.Summary.Get("restore_progress_groups")) != 1 || asInt(r.Summary.Get("past_end_partitions")) != 0 {
		t.Errorf("check lag: %s %q %v", r.Status, r.Message, r.Summary)
	}
	r, err = e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders", Group: "topicsnap-restore-orders"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || r.Message != said+": no lag to judge" || len(r.Rows) != 0 {
		t.Errorf("check lag --group topicsnap-restore-orders: %s %q %v", r.Status, r.Message, r.Rows)
	}
	got := queryRows(t, e, fmt.Sprintf(`SELECT concat_ws(' | ', committed_offset, coalesce(lag_records::VARCHAR, 'NULL'), coalesce(lag_seconds::VARCHAR, 'NULL'), reason)
		FROM lag_at('topicsnap-restore-orders', TIMESTAMPTZ '%s')`, at.Format(time.RFC3339)))
	if want := "150 | NULL | NULL | " + said + ": no lag"; len(got) != 1 || got[0] != want {
		t.Errorf("lag_at of the restore's progress:\n got %q\nwant %q", got, want)
	}
}

// TestLagAtSaysACommitPastTheEnd: where check lag warns of a committed
// offset past the end offset (its next fetch out of range), lag_at says
// so in its reason, its lag 0 as check lag's row has; before, lag_at gave
// lag 0 and no reason, as for a group caught up.
func TestLagAtSaysACommitPastTheEnd(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		committed int64
		want      string
	}{
		{150, "150 | 0 | 0.0 | committed offset 150 is past the end offset 120 at this time: unless the group committed after the end the folder knows (the next cut says), its next fetch is out of range and auto.offset.reset decides where it goes on"},
		{120, "120 | 0 | 0.0 | -"},
	} {
		t.Run(fmt.Sprint(c.committed), func(t *testing.T) {
			e, err := Open(ctx, pastEndFolder(t, at, c.committed), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders", Group: "billing"})
			if err != nil {
				t.Fatal(err)
			}
			if past := c.committed > 120; past != strings.Contains(r.Message, "past its end offset 120") {
				t.Errorf("check lag: %s %q", r.Status, r.Message)
			}
			got := queryRows(t, e, fmt.Sprintf(`SELECT concat_ws(' | ', committed_offset, lag_records, lag_seconds, coalesce(reason, '-'))
				FROM lag_at('billing', TIMESTAMPTZ '%s')`, at.Format(time.RFC3339)))
			if len(got) != 1 || !strings.HasPrefix(got[0], c.want) {
				t.Errorf("lag_at:\n got %q\nwant %q...", got, c.want)
			}
		})
	}
}
