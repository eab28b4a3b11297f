package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/queries/hostile"
)

// smallFolder writes a snapshot folder by code: topic "events", two
// partitions of JSON values.
func smallFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snap")
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 2; p++ {
		var rows []catalog.Row
		for i := int64(0); i < 4; i++ {
			rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: 1700000000000 + i*1000, TimestampType: catalog.TimestampCreate,
				Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf(`{"id":"e%d-%d"}`, p, i))})
		}
		fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "events", Partition: p}, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "events", Partition: p, NextOffset: 4, Files: []catalog.FileEntry{fe}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "events", AsOf: time.UnixMilli(1700000010000), PartitionCount: 2}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHostileCheckFlags: every hostile text in every expression flag of
// `topicsnap check` exits 2 with an Error: line naming the flag, and leaves
// the folder byte for byte as it was.
func TestHostileCheckFlags(t *testing.T) {
	dir := smallFolder(t)
	before := hostile.FolderHash(t, dir)
	flags := []struct {
		check, flag string
		extra       []string
	}{
		{"duplicates", "--id", nil},
		{"duplicates", "--by", nil},
		{"skew", "--what-if-key", nil},
		{"order", "--time", nil},
		{"freshness", "--event-time", nil},
		{"missing", "--match", []string{"--against-topic", "events", "--against-match", "value.id"}},
		{"missing", "--where", []string{"--match", "value.id", "--against-topic", "events", "--against-match", "value.id"}},
		{"missing", "--against-match", []string{"--match", "value.id", "--against-topic", "events"}},
		{"missing", "--against-where", []string{"--match", "value.id", "--against-topic", "events", "--against-match", "value.id"}},
	}
	attacks := hostile.Expressions(dir)
	if testing.Short() {
		attacks = attacks[:12]
	}
	for _, attack := range attacks {
		for _, f := range flags {
			args := append([]string{"check", f.check, "--dir", dir, "--topic", "events", f.flag, attack}, f.extra...)
			code, _, stderr := cli(t, args...)
			if code != 2 {
				t.Errorf("check %s %s %q: exit %d, want 2; stderr %.300s", f.check, f.flag, attack, code, stderr)
				continue
			}
			if !strings.Contains(stderr, "Error:") {
				t.Errorf("check %s %s %q: no Error: line: %.300s", f.check, f.flag, attack, stderr)
			}
		}
	}
	// An option error names the flag as typed on the command line.
	_, _, stderr := cli(t, "check", "duplicates", "--dir", dir, "--topic", "events", "--id", "current_setting('threads')")
	if !strings.Contains(stderr, "--id") {
		t.Errorf("the error does not name --id: %s", stderr)
	}
	if after := hostile.FolderHash(t, dir); after != before {
		t.Errorf("the folder changed:\n%s\n---\n%s", before, after)
	}
}
