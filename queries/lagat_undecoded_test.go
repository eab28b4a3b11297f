package queries

import (
	"context"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// TestLagAtUndecodedCommit: lag_at takes the group's last commit in the
// log; a later commit record that does not decode (a value version Kafka
// added since, bytes cut short) was passed over without a word, so lag_at
// gave the older commit's offset and its lag as if known ("turbines 0 7
// commit log 9 2 10.0 ok" with a commit of offset 9 after it). Now the
// committed offset and the lag are NULL and the reason names the record;
// a key that does not decode either may be any group's commit of any
// partition.
func TestLagAtUndecodedCommit(t *testing.T) {
	dir, t0 := lagAtFixture(t, false)
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(s int) int64 { return t0.Add(time.Duration(s) * time.Second).UnixMilli() }
	var rows []catalog.Row
	add := func(at int, key, value []byte) {
		rows = append(rows, catalog.Row{Partition: 0, Offset: int64(len(rows)), Timestamp: ms(at), TimestampType: catalog.TimestampCreate, Key: key, Value: value})
	}
	commit := func(p int32, off int64, at int) {
		k, v := offsetstest.Commit("wf", "turbines", p, off, 0, "", ms(at))
		add(at, k, v)
	}
	commit(0, 3, 30)
	commit(1, 4, 60)
	commit(0, 7, 75)
	// wf's commit of partition 0 at t0+78 s, in a value version 9.
	k, v := offsetstest.Commit("wf", "turbines", 0, 9, 0, "", ms(78))
	binary.BigEndian.PutUint16(v, 9)
	add(78, k, v)
	// Another group's commit that does not decode: not wf's.
	k, v = offsetstest.Commit("other", "turbines", 1, 1, 0, "", ms(79))
	add(79, k, v[:5])
	// A commit key cut short at t0+90 s: whose, of what, is not known.
	add(90, []byte{0, 1, 0}, []byte{0, 3})
	writePartition(t, d, offsetsTopic, 0, "s3", int64(len(rows)), rows)
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s3", Topic: offsetsTopic, AsOf: t0.Add(100 * time.Second), PartitionCount: 1,
		Partitions: []catalog.PartitionState{{Partition: 0, LogStart: 0, HighWatermark: int64(len(rows))}}}); err != nil {
		t.Fatal(err)
	}
	const unknown = " of the commit log at or before this time (the first at log partition 0 offset %s) may be the group's commit of this partition after the one the log decodes, and could not be decoded (decode_error in group_log says why): the committed offset is not known"
	why := func(n, off string) string { return n + strings.Replace(unknown, "%s", off, 1) }
	cases := []struct {
		sec  int
		want []string
	}{
		{77, []string{"turbines 0 7 commit log 8 1 7.0 ok", "turbines 1 4 commit log 5 1 32.0 ok"}},
		{80, []string{"turbines 0 - - 9 - - " + why("1 record", "3"), "turbines 1 4 commit log 5 1 35.0 ok"}},
		{95, []string{"turbines 0 - - 10 - - " + why("2 records", "3"), "turbines 1 - - 5 - - " + why("1 record", "5")}},
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range cases {
		q := strings.Replace(strings.Replace(lagAtSQL, "%s", quoteString("wf"), 1), "%s", t0.Add(time.Duration(c.sec)*time.Second).Format(time.RFC3339), 1)
		if got := queryRows(t, e, q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("lag_at(wf, t0+%ds)\n got %q\nwant %q", c.sec, got, c.want)
		}
	}
}
