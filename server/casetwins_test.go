package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestChecksOfCaseTwinsAnswerAsTheCommand: a cluster dumped whole holds
// topics whose names differ only in case ("Orders" beside "orders"; Kafka
// allows it) and one named as a table the engine makes ("files"). check
// --topic Orders answers for Orders alone; the server, whose engine is of
// the whole folder, answered every check of them with a 500, "check Orders
// on Orders: topics Orders, orders differ only in case, which SQL names do
// not tell apart, so none has a view", and the overview showed every tile
// of them as an error. Now the API and the page give the command's verdict
// on each twin's own records, and the topic named as a table is refused as
// the command refuses it: a 400 naming the check, not a 500.
func TestChecksOfCaseTwinsAnswerAsTheCommand(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC).UnixMilli()
	want := map[string]int64{"Orders": 3, "orders": 5, "files": 2}
	for name, n := range want {
		var rows []catalog.Row
		for o := range n {
			rows = append(rows, catalog.Row{Offset: o, Timestamp: base + o*1000, TimestampType: catalog.TimestampCreate,
				Key: []byte("k"), Value: []byte(`{"topic":"` + name + `"}`)})
		}
		id := "s-" + strings.ToLower(name)
		fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: name}, rows, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: name, NextOffset: n, Files: []catalog.FileEntry{fe}}); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: id, Topic: name, AsOf: time.UnixMilli(base + 60_000),
			PartitionCount: 1, ReplicationFactor: 1, Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: n}}, Dumped: []int32{0}}); err != nil {
			t.Fatal(err)
		}
	}
	_, ts := newTestServer(t, Options{Dir: dir})
	for _, topic := range []string{"Orders", "orders"} {
		r := get(t, ts.URL+q("/api/checks/gaps", "topic", topic))
		var rep struct {
			Topic   string         `json:"topic"`
			Status  string         `json:"status"`
			Summary map[string]any `json:"summary"`
		}
		if r.code != 200 || json.Unmarshal([]byte(r.body), &rep) != nil || rep.Topic != topic || rep.Status != "ok" || rep.Summary["records"] != float64(want[topic]) {
			t.Errorf("GET /api/checks/gaps?topic=%s: %d %s; want ok on its %d records", topic, r.code, r.body, want[topic])
		}
		for _, check := range []string{"skew", "freshness", "values"} {
			if r := get(t, ts.URL+q("/checks/"+check, "topic", topic)); r.code != 200 || strings.Contains(r.body, "none has a view") {
				t.Errorf("GET /checks/%s?topic=%s: %d %.300s", check, topic, r.code, r.body)
			}
		}
	}
	r := get(t, ts.URL+q("/api/checks/gaps", "topic", "files"))
	if r.code != 400 || !strings.Contains(r.body, "check gaps on files: topic files has the name of the table files") {
		t.Errorf("GET /api/checks/gaps?topic=files: %d %s; want a 400 naming the check", r.code, r.body)
	}
}
