package queries

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// groupsFixture writes topics orders (groups billing and shipping), audit
// (group auditors) and blind (a cut that could not read the groups), one
// record each, and nocut (a record, no cut).
func groupsFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 16, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		topic, groupsErr string
		groups           []string
	}{{"orders", "", []string{"billing", "shipping"}}, {"audit", "", []string{"auditors"}}, {"blind", "User:x lacks DESCRIBE on the cluster", nil}} {
		writePartition(t, d, c.topic, 0, "s1-"+c.topic, 1, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: at.Add(-time.Minute).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")}})
		cs := &catalog.ClusterSnapshot{ID: "s1-" + c.topic, Topic: c.topic, AsOf: at, PartitionCount: 1,
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 1, LastStable: 1}}, GroupsError: c.groupsErr}
		for _, g := range c.groups {
			cs.Groups = append(cs.Groups, catalog.GroupState{Group: g, State: "Empty", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 1}}})
		}
		if err := d.WriteClusterSnapshot(t.Context(), cs); err != nil {
			t.Fatal(err)
		}
	}
	writePartition(t, d, "nocut", 0, "s1-nocut", 1, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: at.Add(-time.Minute).UnixMilli(), TimestampType: catalog.TimestampCreate, Value: []byte("x")}})
	return dir
}

// TestUnknownGroup: a group no cut of the folder saw is an
// *UnknownGroupError (ErrUnknownGroup) with the nearest spelling among the
// folder's groups, or the topic's groups; a group seen on another topic,
// on a topic whose cuts could not read every group, or on a topic no cut
// was taken of, is not unknown: the
// check runs and says what it found. The same on an engine limited to the
// topic, which reads other topics' cuts only for a group its own did not
// see.
func TestUnknownGroup(t *testing.T) {
	ctx := context.Background()
	dir := groupsFixture(t)
	for _, limited := range []bool{false, true} {
		t.Run(fmt.Sprintf("limited=%v", limited), func(t *testing.T) { testUnknownGroup(t, ctx, dir, limited) })
	}
}

func testUnknownGroup(t *testing.T, ctx context.Context, dir string, limited bool) {
	to := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	cases := []struct {
		topic, group string
		unknown      bool
		suggest      string
		known        []string
	}{
		{"orders", "billng", true, "billing", nil},
		{"orders", "Billing", true, "billing", nil},  // group ids are case-sensitive in Kafka
		{"orders", "auditor", true, "auditors", nil}, // nearest among every topic's groups
		{"orders", "zzzzzzzzz", true, "", []string{"billing", "shipping"}},
		{"orders", "billing", false, "", nil},
		{"orders", "auditors", false, "", nil}, // seen, on another topic: the check warns
		{"blind", "billng", false, "", nil},    // its cuts could not read every group
	}
	for _, check := range []string{"reset", "lag"} {
		for _, c := range cases {
			o := Options{}
			if limited {
				o = Options{Lazy: true, Topics: []string{c.topic}}
			}
			e, err := Open(ctx, dir, o)
			if err != nil {
				t.Fatal(err)
			}
			r, err := e.RunCheck(ctx, check, CheckOptions{Topic: c.topic, Group: c.group, ToTime: to})
			e.Close()
			var u *UnknownGroupError
			if !c.unknown {
				if err != nil || r == nil {
					t.Errorf("%s %s --group %s: %v, want a report", check, c.topic, c.group, err)
				}
				continue
			}
			if !errors.As(err, &u) || !errors.Is(err, ErrUnknownGroup) || !errors.Is(err, ErrBadCheck) {
				t.Errorf("%s %s --group %s: %v, want an *UnknownGroupError", check, c.topic, c.group, err)
				continue
			}
			if u.Group != c.group || u.Topic != c.topic || u.Suggest != c.suggest || !slices.Equal(u.Known, c.known) {
				t.Errorf("%s %s --group %s: %+v, want suggest %q, known %v", check, c.topic, c.group, u, c.suggest, c.known)
			}
		}
	}
}

// TestLagOfOneGroup: lag --group judges that group only; a group seen on
// another topic only has nothing to judge here (warn).
func TestLagOfOneGroup(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, groupsFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cases := []struct {
		group, status, message string
		groups                 int64
	}{
		{"", StatusOK, "2 groups, all caught up", 2},
		{"billing", StatusOK, "1 group, all caught up", 1},
		{"auditors", StatusWarn, "group auditors had no committed offset on orders at the snapshots: nothing to judge", 0},
	}
	for _, c := range cases {
		r, err := e.RunCheck(ctx, "lag", CheckOptions{Topic: "orders", Group: c.group})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != c.status || !strings.Contains(r.Message, c.message) || asInt(r.Summary.Get("groups")) != c.groups {
			t.Errorf("lag --group %q: %s %q %v; want %s %q", c.group, r.Status, r.Message, r.Summary.Get("groups"), c.status, c.message)
		}
		for _, row := range r.Rows {
			if c.group != "" && row.Get("group_id") != c.group {
				t.Errorf("lag --group %q: row of %v", c.group, row.Get("group_id"))
			}
		}
	}
}
