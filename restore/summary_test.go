package restore

import (
	"strings"
	"testing"
)

// TestWhyNothingNamesAnOpenTransaction: a run that produced nothing
// because its partitions stop at a transaction still open at the last
// snapshot says so, and what to do (dump again, restore again), rather than
// "everything was already restored ... delete that group to restore again"
// (which would write the records before the transaction a second time) or
// "no data record in the range asked".
func TestWhyNothingNamesAnOpenTransaction(t *testing.T) {
	for _, tc := range []struct {
		name      string
		parts     []Partition
		want, not string
	}{
		{"resumed up to an open transaction", []Partition{
			{Partition: 0, From: 13, Until: 20, Resumed: true, OpenAt: 13},
			{Partition: 1, From: 12, Until: 19, Resumed: true, OpenAt: 12},
		}, "starts at a transaction still open at the last snapshot (partitions 0, 1)", "already restored"},
		{"one resumed to the end, one at an open transaction", []Partition{
			{Partition: 0, From: 20, Until: 20, Resumed: true, OpenAt: -1},
			{Partition: 2, From: 10, Until: 16, Resumed: true, OpenAt: 10},
		}, "starts at a transaction still open at the last snapshot (partition 2)", "already restored"},
		{"first run, the transaction at the first offset", []Partition{
			{Partition: 0, From: 0, Until: 5, OpenAt: 0},
		}, "dump the topic again once it has ended, then restore again", "range asked"},
		{"everything restored", []Partition{
			{Partition: 0, From: 20, Until: 20, Resumed: true, OpenAt: -1},
		}, "everything was already restored", "open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Summary{Source: "tx", Target: "tx-r", Partitions: tc.parts}.String()
			if !strings.Contains(got, tc.want) || strings.Contains(got, tc.not) {
				t.Errorf("got %q\nwant it to say %q and not %q", got, tc.want, tc.not)
			}
		})
	}
}
