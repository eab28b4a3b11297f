package queries

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// windFarmFolder writes the wind farm's July Thursday as a snapshot folder
// by code (seeds.WriteWindFarmFolder). TestWindFarmGroupLagAndSilence tells
// the same story on the real broker.
func windFarmFolder(t *testing.T) (string, *seeds.WindFarmData) {
	t.Helper()
	dir := t.TempDir()
	data, err := seeds.WriteWindFarmFolder(dir, seeds.WindFarmConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return dir, data
}

// TestGoldenWindFarm keeps the checks' JSON documents on the wind farm's day
// as golden files. Regenerate with: go test ./queries -run Golden -update
func TestGoldenWindFarm(t *testing.T) {
	dir, data := windFarmFolder(t)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	results := runGolden(t, e, "windfarm-", []goldenCase{
		{"gaps", "gaps", CheckOptions{Topic: "readings"}},
		{"skew", "skew", CheckOptions{Topic: "readings"}},
		{"keys", "keys", CheckOptions{Topic: "readings"}},
		{"lag", "lag", CheckOptions{Topic: "readings"}},
		{"freshness-silence", "freshness", CheckOptions{Topic: "readings"}},
		{"freshness-backfill-late", "freshness", CheckOptions{Topic: "readings-backfill", EventTime: "value.recorded_at", Late: 60}},
	})
	// The figures the seed tells, asserted beside the golden files so a
	// regenerated file cannot quietly change the story.
	if r := results["lag"]; r != nil {
		var members []string
		eaten := 0
		for _, row := range r.Rows {
			if row.Get("kind") == "member" {
				members = append(members, fmt.Sprint(row.Get("client_id")))
			}
			if row.Get("kind") == "offset" && asInt(row.Get("lag_records")) == 0 {
				eaten++
			}
		}
		sort.Strings(members)
		if fmt.Sprint(members) != "[galewatch-watcher-1 galewatch-watcher-2 galewatch-writer-1]" || eaten != 6 ||
			asInt(r.Summary.Get("max_lag_records")) != 100 {
			t.Errorf("lag: members %v, %d partitions read to the end, max lag %v", members, eaten, r.Summary.Get("max_lag_records"))
		}
	}
	if r := results["freshness-silence"]; r != nil && asInt(r.Summary.Get("silent_stretches")) != 1 {
		t.Errorf("silences: %v, want 1 (farm %s, partition %d)", r.Summary.Get("silent_stretches"), data.Truth.SilentFarm, data.Truth.SilentPartition)
	}
	if r := results["freshness-backfill-late"]; r != nil && asInt(r.Summary.Get("late_records")) != int64(data.Truth.BackfillRecords) {
		t.Errorf("late records %v, want %d", r.Summary.Get("late_records"), data.Truth.BackfillRecords)
	}
}
