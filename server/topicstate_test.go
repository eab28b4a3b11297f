package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSQLAPIWarnsWhatTopicStateCannotKnow: /api/sql sends, with a
// topic_state result that is not whole, the warning the SQL page shows
// (X-Topicsnap-Warnings, a percent-encoded JSON list).
func TestSQLAPIWarnsWhatTopicStateCannotKnow(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 14, 10, 0, 0, 0, time.UTC)
	tp := catalog.TopicPartition{Topic: "routing", Partition: 0}
	fe, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{{Partition: 0, Offset: 3, Timestamp: at.Add(-30 * time.Minute).UnixMilli(),
		TimestampType: catalog.TimestampCreate, Key: []byte("farm-a"), Value: []byte(`{"host":"a"}`)}}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "routing", Partition: 0, NextOffset: 4, Files: []catalog.FileEntry{fe},
		Snapshots: []catalog.PartitionSnapshot{{ID: "s1", AsOf: at, HighWatermark: 4, LastStable: 4, From: 0, Until: 4, Complete: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "routing", AsOf: at, PartitionCount: 1,
		Configs: map[string]string{"cleanup.policy": "compact"}}); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{Dir: dir, QueryTimeout: 30 * time.Second})
	for _, c := range []struct {
		at   string
		warn bool
	}{{"2026-07-14 09:00:00Z", true}, {"2026-07-14 11:00:00Z", false}} {
		body, _ := json.Marshal(map[string]string{"sql": "SELECT key, known FROM topic_state('routing', TIMESTAMPTZ '" + c.at + "')"})
		resp, err := http.Post(ts.URL+"/api/sql", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header.Get("X-Topicsnap-Warnings")
		var notes []string
		if h != "" {
			raw, err := url.PathUnescape(h)
			if err != nil || json.Unmarshal([]byte(raw), &notes) != nil {
				t.Fatalf("header %q does not decode", h)
			}
		}
		if resp.StatusCode != 200 || c.warn != (len(notes) == 1 && strings.Contains(notes[0], "3 offsets the snapshot never held")) || !c.warn && h != "" {
			t.Errorf("at %s: status %d, warnings %q", c.at, resp.StatusCode, notes)
		}
	}
}
