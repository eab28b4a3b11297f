package queries

import (
	"fmt"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// Topics of hostileFolder, each a case of TestSparkAgreesWithDuckDB.
const (
	// hostileTopic: a name of dots, an underscore, a dash and capitals;
	// records without a timestamp (-1), null and empty keys and values,
	// keys that are not UTF-8, values that are not JSON, headers of odd
	// keys, a committed, an aborted and an open transaction, copies of an
	// id and of a whole record.
	hostileTopic = "Shop.Orders_v2-EU"
	// caseTopic: values whose field names differ only in case, at the top
	// and inside an object: those levels are read as their JSON text.
	caseTopic = "case.Apart"
	// oneTopic: a topic of one record; emptyTopic: of none.
	oneTopic   = "one"
	emptyTopic = "empty-topic"
)

// hostileFolder writes the folder of the hostile topics (hostileTopic,
// caseTopic, oneTopic, emptyTopic), each with a cut of group g, written by
// code: no broker. It returns the folder and the cut's time.
func hostileFolder(t *testing.T) (string, time.Time) {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	base := asOf.Add(-time.Hour).UnixMilli()
	str := func(s string) *string { return &s }
	plain := func(p int32, o int64, ts int64, key, value []byte, hs ...catalog.Header) catalog.Row {
		return catalog.Row{Partition: p, Offset: o, Timestamp: ts, TimestampType: catalog.TimestampCreate, Key: key, Value: value,
			Headers: hs, ProducerID: -1, ProducerEpoch: -1}
	}
	txn := func(r catalog.Row, pid int64, state string) catalog.Row {
		r.ProducerID, r.ProducerEpoch, r.Transactional, r.TxnState = pid, 0, true, str(state)
		return r
	}
	marker := func(p int32, o, ts, pid int64, kind string) catalog.Row {
		state := map[string]string{"commit": "committed", "abort": "aborted"}[kind]
		typ := map[string]byte{"commit": 1, "abort": 0}[kind]
		r := plain(p, o, ts, []byte{0, 0, 0, typ}, []byte{0, 0, 0, 0, 0, 0})
		r = txn(r, pid, state)
		r.Control, r.ControlType = true, str(kind)
		return r
	}
	at := func(i int) int64 { return base + int64(i)*60_000 }
	var p0 []catalog.Row
	add := func(r catalog.Row) { r.Offset = int64(len(p0)); p0 = append(p0, r) }
	add(plain(0, 0, at(0), []byte("k1"), []byte(`{"id":1,"amount":1.5,"et":"2026-12-07T11:00:00Z"}`), catalog.Header{Key: "", Value: nil}, catalog.Header{Key: "é.x\"y", Value: []byte{0xff}}))
	add(plain(0, 0, -1, []byte("k2"), []byte(`{"id":2,"amount":2.25,"et":"2026-12-07T11:01:00Z"}`)))  // no timestamp
	add(plain(0, 0, at(2), nil, []byte(`{"id":3,"amount":0,"et":"2026-12-07T10:00:00Z"}`)))           // null key, late
	add(plain(0, 0, at(3), []byte{}, []byte(`{"id":4,"amount":-1,"et":null}`)))                       // empty key
	add(plain(0, 0, at(4), []byte{0xff, 0xfe, 'k'}, []byte(`{"id":5,"amount":3,"et":"not a time"}`))) // not UTF-8
	add(plain(0, 0, at(5), []byte("k1"), nil))                                                        // tombstone
	add(plain(0, 0, at(6), []byte("k1"), []byte{}))                                                   // empty value
	add(plain(0, 0, at(7), []byte("k3"), []byte(`not json`)))
	add(plain(0, 0, at(8), []byte("k3"), []byte(`[1,2]`)))
	add(plain(0, 0, at(9), []byte{0xff, 0xfe, 'k'}, []byte{0xc3, 0x28}))                                // value not UTF-8
	add(plain(0, 0, at(10), []byte("k1"), []byte(`{"id":1,"amount":1.5,"et":"2026-12-07T11:00:00Z"}`))) // a copy of offset 0
	add(plain(0, 0, -1, nil, []byte(`{"id":2,"amount":2.25}`)))                                         // id 2 again, no timestamp
	add(txn(plain(0, 0, at(12), []byte("t1"), []byte(`{"id":7,"amount":7}`)), 9, "committed"))
	add(txn(plain(0, 0, at(12), []byte("t2"), []byte(`{"id":8,"amount":8}`)), 9, "committed"))
	add(marker(0, 0, at(12), 9, "commit"))
	add(txn(plain(0, 0, at(13), []byte("t1"), []byte(`{"id":7,"amount":70}`)), 10, "aborted"))
	add(marker(0, 0, at(13), 10, "abort"))
	add(plain(0, 0, at(14), []byte("k4"), []byte(`{"id":9,"amount":9,"et":"2026-12-07T11:14:00Z"}`)))
	add(txn(plain(0, 0, at(15), []byte("t3"), []byte(`{"id":10,"amount":10}`)), 11, "open")) // still open at the cut
	writePartition(t, d, hostileTopic, 0, "s1", int64(len(p0)), p0)
	p1 := []catalog.Row{plain(1, 0, at(1), []byte("only"), []byte(`{"id":100,"amount":1e300,"et":"2026-12-07T11:01:00Z"}`)),
		// amounts Spark's CAST writes otherwise (1.2345678E7, 1.0E-5)
		plain(1, 1, at(2), []byte("big"), []byte(`{"id":101,"amount":12345678,"et":"2026-12-07T11:02:00Z"}`)),
		plain(1, 2, at(3), []byte("big"), []byte(`{"id":102,"amount":12345678,"et":"2026-12-07T11:03:00Z"}`)),
		plain(1, 3, at(4), []byte("small"), []byte(`{"id":103,"amount":0.00001}`)),
		plain(1, 4, at(5), []byte("small"), []byte(`{"id":104,"amount":0.00001}`))}
	writePartition(t, d, hostileTopic, 1, "s1", int64(len(p1)), p1)
	writePartition(t, d, hostileTopic, 2, "s1", 0, nil) // a partition of no records

	var c []catalog.Row
	for i, v := range []string{`{"id":1,"ID":"hi","n":{"a":1,"A":2}}`, `{"id":2,"ID":"Two","n":{"a":3}}`, `{"id":1,"ID":"hi","n":{"a":1,"A":2}}`, `{"id":3}`} {
		c = append(c, plain(0, int64(i), at(i), []byte(fmt.Sprint("c", i%2)), []byte(v)))
	}
	writePartition(t, d, caseTopic, 0, "s1", int64(len(c)), c)
	writePartition(t, d, oneTopic, 0, "s1", 1, []catalog.Row{plain(0, 0, at(3), []byte("k"), []byte(`{"id":1,"amount":1,"et":"2026-12-07T11:03:00Z"}`))})
	writePartition(t, d, emptyTopic, 0, "s1", 0, nil)

	for _, tp := range []struct {
		topic   string
		hwm     []int64
		offsets []int64
	}{
		{hostileTopic, []int64{int64(len(p0)) + 1, int64(len(p1)), 0}, []int64{4, 1, 0}},
		{caseTopic, []int64{int64(len(c))}, []int64{2}},
		{oneTopic, []int64{1}, []int64{0}},
		{emptyTopic, []int64{0}, []int64{0}},
	} {
		var parts []catalog.PartitionState
		var offs []catalog.GroupOffset
		var dumped, assigned []int32
		for p, hwm := range tp.hwm {
			parts = append(parts, catalog.PartitionState{Partition: int32(p), HighWatermark: hwm, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1})
			offs = append(offs, catalog.GroupOffset{Partition: int32(p), Offset: tp.offsets[p]})
			dumped, assigned = append(dumped, int32(p)), append(assigned, int32(p))
		}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: tp.topic, AsOf: asOf, PartitionCount: len(tp.hwm), ReplicationFactor: 1,
			Configs:    map[string]string{"cleanup.policy": "delete", "min.insync.replicas": "1", "unclean.leader.election.enable": "false"},
			Partitions: parts,
			Groups: []catalog.GroupState{{Group: "g", State: "Stable", Offsets: offs,
				Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "c1", Host: "/10.0.0.1", Assigned: assigned}}}},
			Dumped: dumped}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, asOf
}
