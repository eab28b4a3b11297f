package queries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// TestMembersSaysItsUndecodableRecords: where the group's records in the
// log do not decode, none is a generation, and members falls back to the
// cuts. Before, it said "the dump of __consumer_offsets keeps no generation
// of this group … nothing to judge" and never mentioned the record that
// did not decode (a generation too large to decode: 100,001 members). Now
// it counts them (undecodable_log_records), says where they are in the log
// and why the first did not decode, and never says "nothing to judge".
func TestMembersSaysItsUndecodableRecords(t *testing.T) {
	ctx := context.Background()
	tooLarge := func(group string) (k, v []byte) {
		ms := make([]offsetstest.Member, 100_001)
		for i := range ms {
			ms[i] = offsetstest.Member{ID: fmt.Sprintf("m%d", i), ClientID: "c", Host: "/h"}
		}
		return offsetstest.Group(group, 1, "range", "m0", 0, ms...)
	}
	isGroupRecord := func(r catalog.Row, group string) bool {
		return len(r.Key) > 2 && r.Key[1] <= 2 && strings.Contains(string(r.Key), group)
	}
	cases := []struct {
		name   string
		group  string
		noCuts bool // the topic imported: no cut recorded groups
		damage func(rows []catalog.Row)
		want   []string // in the message
	}{
		{"the only record of a group, too large, no cut", "lonely", true, func(rows []catalog.Row) {
			for i := range rows {
				if isGroupRecord(rows[i], "other") {
					rows[i].Key, rows[i].Value = tooLarge("lonely")
				}
			}
		}, []string{"no cut of readings saw it", "1 record of it could not be decoded", "partition 0 offset ", "too large", ": not judged"}},
		{"the group's generations too large, cuts saw it", membersGroup, false, func(rows []catalog.Row) {
			n := 0
			for i := range rows {
				if len(rows[i].Key) > 2 && rows[i].Key[1] == 2 && strings.Contains(string(rows[i].Key), membersGroup) {
					n++
					rows[i].Key, rows[i].Value = tooLarge(membersGroup)
				}
			}
			if n != 3 {
				panic(fmt.Sprintf("%d generations, want 3", n))
			}
		}, []string{"from 3 cuts", "3 records of it could not be decoded", "partition 0 offset ", "too large"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := membersFixtureDamaged(t, true, c.damage)
			if c.noCuts {
				if err := os.RemoveAll(filepath.Join(dir, "snapshots")); err != nil {
					t.Fatal(err)
				}
			}
			e, err := Open(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			r, err := e.RunCheck(ctx, "members", CheckOptions{Topic: membersTopic, Group: c.group})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != StatusWarn || r.Summary.Get("source") != "cuts" || strings.Contains(r.Message, "nothing to judge") {
				t.Fatalf("%s (source %v): %s", r.Status, r.Summary.Get("source"), r.Message)
			}
			t.Logf("%s: %s", r.Status, r.Message)
			for _, w := range c.want {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message lacks %q: %s", w, r.Message)
				}
			}
			if got := asInt(r.Summary.Get("undecodable_log_records")); got == 0 {
				t.Errorf("undecodable_log_records %v: %s", r.Summary.Get("undecodable_log_records"), r.Message)
			}
		})
	}
}
