package main

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSQLWarnsWhatTopicStateCannotKnow: `sql` prints the rows with known =
// false and a warning on stderr when the cleaner removed records before the
// dump read them; none once the state is whole.
func TestSQLWarnsWhatTopicStateCannotKnow(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := func(h, m int) time.Time { return time.Date(2026, 7, 14, h, m, 0, 0, time.UTC) }
	row := func(off int64, m int, key string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: at(9, m).UnixMilli(), TimestampType: catalog.TimestampCreate,
			Key: []byte(key), Value: []byte(`{"host":"` + key + `-host"}`)}
	}
	tp := catalog.TopicPartition{Topic: "routing", Partition: 0}
	// Offsets 0-2 (older values of farm-a and farm-b) were compacted away
	// before the dump at 10:00.
	fe, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{row(3, 3, "farm-c"), row(4, 30, "farm-a"), row(5, 40, "farm-b")}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "routing", Partition: 0, NextOffset: 6, Files: []catalog.FileEntry{fe},
		Snapshots: []catalog.PartitionSnapshot{{ID: "s1", AsOf: at(10, 0), HighWatermark: 6, LastStable: 6, From: 0, Until: 6, Complete: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "routing", AsOf: at(10, 0), PartitionCount: 1,
		Configs: map[string]string{"cleanup.policy": "compact"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at, out, warning string
	}{
		{"2026-07-14 09:05:00Z", "farm-a,,false,2026-07-14 09:30:00Z\nfarm-b,,false,2026-07-14 09:40:00Z\nfarm-c,farm-c-host,true,\n",
			"warning: topic_state('routing', ...) is not the whole state at that time: 3 offsets the snapshot never held"},
		{"2026-07-14 10:30:00Z", "farm-a,farm-a-host,true,\nfarm-b,farm-b-host,true,\nfarm-c,farm-c-host,true,\n", ""},
	} {
		code, out, errs := cli(t, "sql", "--dir", dir, "--format", "csv", "-c",
			`SELECT key, value.host, known, known_from AT TIME ZONE 'UTC' AS known_from FROM topic_state('routing', TIMESTAMPTZ '`+c.at+`') ORDER BY key`)
		if code != 0 {
			t.Fatalf("at %s: exit %d: %s", c.at, code, errs)
		}
		if _, body, _ := strings.Cut(out, "\n"); body != c.out {
			t.Errorf("at %s:\n%s\nwant rows\n%s", c.at, out, c.out)
		}
		if c.warning == "" && strings.Contains(errs, "warning") || c.warning != "" && !strings.Contains(errs, c.warning) {
			t.Errorf("at %s: stderr %q, want %q", c.at, errs, c.warning)
		}
	}
}
