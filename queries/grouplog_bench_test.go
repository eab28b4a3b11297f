package queries

import (
	"context"
	"fmt"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// BenchmarkGroupCommitLogWithHolders reads group_commit_log over a dump of
// __consumer_offsets of 300,000 records (a generation record of ten
// members every 1,000 commits, 20 groups, 60 partitions each): the
// decoding the views do at query time, with each commit's holder.
//
//	go test ./queries -run '^$' -bench GroupCommitLogWithHolders -benchtime 3x
func BenchmarkGroupCommitLogWithHolders(b *testing.B) {
	const n = 300_000
	dir := b.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		b.Fatal(err)
	}
	const t0 = int64(1_767_225_600_000)
	rows := make([]catalog.Row, 0, n)
	add := func(key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: t0 + int64(len(rows)), TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	var members []offsetstest.Member
	for m := range 10 {
		var ps []int32
		for p := m * 6; p < m*6+6; p++ {
			ps = append(ps, int32(p))
		}
		members = append(members, offsetstest.Member{ID: fmt.Sprintf("watcher-%d-0123456789", m), ClientID: "watcher", Host: "/10.0.0.9",
			SessionMs: 45000, RebalanceMs: 60000, Assigned: map[string][]int32{"turbines": ps}, Topics: []string{"turbines"}})
	}
	for i := 0; len(rows) < n; i++ {
		g := fmt.Sprintf("group-%d", i%20)
		if i%1000 == 0 {
			add(offsetstest.Group(g, int32(i/1000+1), "range", members[0].ID, t0, members...))
			continue
		}
		add(offsetstest.Commit(g, "turbines", int32(i%60), int64(i), 3, "", t0+int64(i)))
	}
	writePartition(b, d, offsetsTopic, 0, "s1", int64(len(rows)), rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for b.Loop() {
		var commits, held int64
		if err := e.DB().QueryRowContext(context.Background(), `SELECT count(*), count(member_id) FROM group_commit_log`).Scan(&commits, &held); err != nil {
			b.Fatal(err)
		}
		if commits < n*99/100 || held == 0 {
			b.Fatalf("%d commits, %d with a holder", commits, held)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
