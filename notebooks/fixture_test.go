package notebooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

// event is an app_events value.
type event struct {
	EventID   string `json:"event_id"`
	EventName string `json:"event_name"`
	UserID    string `json:"user_id"`
	Platform  string `json:"platform"`
	OrderID   string `json:"order_id,omitempty"`
}

func jsonValue(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTopic writes one data file and a manifest per partition.
func writeTopic(t testing.TB, d *catalog.Dir, topic string, parts map[int32][]catalog.Row, snapshot string) {
	t.Helper()
	for p, rows := range parts {
		if len(rows) == 0 {
			continue
		}
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, snapshot)
		if err != nil {
			t.Fatal(err)
		}
		m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: fe.LastOffset + 1, Files: []catalog.FileEntry{fe}}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}

var fixtureDay = time.Date(2026, time.September, 14, 12, 0, 0, 0, time.UTC)

// fixture builds a small snapshot folder by code:
//
//   - app_events (JSON, 2 partitions): u000001's session on partition 0 with
//     a hole at offsets 3-4 before her order_placed (3 recorded as expired
//     by retention, 4 unexplained); u000003 on partition 1
//     with one event stored twice and an event name holding <script>.
//   - orders.csv: A1024 (ios) and A1025 (android) have no order_completed,
//     A1026 (web) has one.
//   - readings (JSON, 3 partitions, a record every 10 s from 10:58 to 11:10)
//     with three cluster snapshots of the group writers: two writers, then a
//     watcher in the group holding partition 2, then two writers again.
func fixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts := func(sec int) int64 { return fixtureDay.Add(time.Duration(sec) * time.Second).UnixMilli() }
	row := func(p int32, off int64, sec int, key string, e event) catalog.Row {
		return catalog.Row{Partition: p, Offset: off, Timestamp: ts(sec), TimestampType: catalog.TimestampCreate, Key: []byte(key), Value: jsonValue(t, e)}
	}
	app := map[int32][]catalog.Row{
		0: {
			row(0, 0, 0, "u000001", event{"e1", "app_open", "u000001", "ios", ""}),
			row(0, 1, 5, "u000002", event{"e2", "app_open", "u000002", "android", ""}),
			row(0, 2, 8, "u000001", event{"e3", "view_menu", "u000001", "ios", ""}),
			// offsets 3 and 4 are missing
			row(0, 5, 30, "u000001", event{"e4", "order_placed", "u000001", "ios", "A1024"}),
			row(0, 6, 40, "u000002", event{"e5", "order_placed", "u000002", "android", "A1025"}),
		},
		1: {
			row(1, 0, 1, "u000003", event{"e6", "app_open", "u000003", "web", ""}),
			row(1, 1, 20, "u000003", event{"e7", "order_placed", "u000003", "web", "A1026"}),
			row(1, 2, 50, "u000003", event{"e8", "order_completed", "u000003", "web", "A1026"}),
			row(1, 3, 55, "u000003", event{"e6", "app_open", "u000003", "web", ""}),
			row(1, 4, 60, "u000003", event{"e9", "<script>alert(1)</script>", "u000003", "web", ""}),
		},
	}
	writeTopic(t, d, "app_events", app, "s1")
	// Retention took offset 3 before the dump read it; offset 4 is lost.
	m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: "app_events", Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	m.Lost = []catalog.LostRange{{Kind: catalog.LostBetween, From: 3, To: 3, DetectedAt: fixtureDay, Snapshot: "s1"}}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	orders := "order_id,user_id,platform,city,placed_at\n" +
		"A1024,u000001,ios,Harbor,2026-09-14T12:00:31.000Z\n" +
		"A1025,u000002,android,Oldtown,2026-09-14T12:00:41.000Z\n" +
		"A1026,u000003,web,Harbor,2026-09-14T12:00:21.000Z\n"
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), []byte(orders), 0o644); err != nil {
		t.Fatal(err)
	}
	writeReadings(t, d, 3)
	return dir
}

var readingsStart = time.Date(2026, time.July, 16, 10, 58, 0, 0, time.UTC)

// writeReadings writes the topic readings and three snapshots of the group
// writers.
func writeReadings(t testing.TB, d *catalog.Dir, parts int32) {
	t.Helper()
	const every = 10 * time.Second
	const n = 73 // 10:58:00 .. 11:10:00
	at := func(p int32, k int) time.Time {
		return readingsStart.Add(time.Duration(k)*every + time.Duration(p)*time.Second)
	}
	data := map[int32][]catalog.Row{}
	for p := int32(0); p < parts; p++ {
		for k := 0; k < n; k++ {
			tb := fmt.Sprintf("%s-%02d", seeds.Farms[p].Code, k%2+1)
			v := fmt.Sprintf(`{"turbine_id":%q,"farm":%q,"recorded_at":%q,"power_kw":%d,"wind_ms":%d}`,
				tb, seeds.Farms[p].Name, at(p, k).Add(-200*time.Millisecond).Format(seeds.TimeLayout), 1000+k, 8)
			data[p] = append(data[p], catalog.Row{Partition: p, Offset: int64(k), Timestamp: at(p, k).UnixMilli(),
				TimestampType: catalog.TimestampCreate, Key: []byte(tb), Value: []byte(v)})
		}
	}
	writeTopic(t, d, "readings", data, "r1")
	// High watermark at a time: the records stamped at or before it.
	hw := func(p int32, asOf time.Time) int64 {
		c := int64(0)
		for k := 0; k < n; k++ {
			if !at(p, k).After(asOf) {
				c++
			}
		}
		return c
	}
	snap := func(id string, asOf time.Time, members []catalog.GroupMember) {
		s := &catalog.ClusterSnapshot{ID: id, Topic: "readings", AsOf: asOf, PartitionCount: int(parts), ReplicationFactor: 1,
			Configs: map[string]string{"retention.ms": "604800000"}}
		g := catalog.GroupState{Group: "writers", State: "Stable", Protocol: "range", ProtocolType: "consumer", Members: members}
		for p := int32(0); p < parts; p++ {
			h := hw(p, asOf)
			s.Partitions = append(s.Partitions, catalog.PartitionState{Partition: p, HighWatermark: h, LastStable: h, Replicas: []int32{1}, ISR: []int32{1}})
			g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: p, Offset: max(0, h-2)})
		}
		s.Groups = []catalog.GroupState{g}
		for p := int32(0); p < parts; p++ {
			s.Dumped = append(s.Dumped, p)
		}
		if err := d.WriteClusterSnapshot(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	writer := func(i int, ps ...int32) catalog.GroupMember {
		return catalog.GroupMember{MemberID: fmt.Sprintf("writer-%d-0001", i), ClientID: fmt.Sprintf("writer-%d", i), Host: fmt.Sprintf("/10.0.0.%d", i), Assigned: ps}
	}
	snap("r1", readingsStart.Add(5*time.Minute), []catalog.GroupMember{writer(1, 0, 1), writer(2, 2)})
	snap("r2", readingsStart.Add(8*time.Minute), []catalog.GroupMember{writer(1, 0), writer(2, 1),
		{MemberID: "watcher-1-0001", ClientID: "galewatch-watcher-1", Host: "/10.0.0.9", Assigned: []int32{2}}})
	snap("r3", readingsStart.Add(12*time.Minute), []catalog.GroupMember{writer(1, 0, 1), writer(2, 2)})
}

// seededFixture dumps, by code, the tea shop generator's Monday (offsets in
// produce order per partition, as a broker would give them) with its
// orders.csv, plus the readings of fixture.
func seededFixture(t testing.TB, users int) (string, *seeds.TeaShopData) {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := seeds.TeaShop(seeds.TeaShopConfig{Users: users, Seed: 7})
	parts := map[int32][]catalog.Row{}
	for _, e := range data.Events {
		var hs []catalog.Header
		for _, h := range e.Headers {
			hs = append(hs, catalog.Header{Key: h.Key, Value: h.Value})
		}
		parts[e.Partition] = append(parts[e.Partition], catalog.Row{Partition: e.Partition, Offset: int64(len(parts[e.Partition])),
			Timestamp: e.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: e.Key, Value: e.Value, Headers: hs})
	}
	writeTopic(t, d, seeds.TopicAppEvents, parts, "s1")
	var csv bytes.Buffer
	if err := data.OrdersCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	writeReadings(t, d, 4)
	return dir, data
}
