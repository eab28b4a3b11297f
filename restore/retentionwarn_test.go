package restore

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestRetentionWarnsOfOldRecords: a target created with the source's
// retention.ms is warned about when the snapshot's oldest record is older
// than that, before 1970 too; a record without a timestamp (-1) has no
// age. Before, any time before 1970 (or -1) hid the warning.
func TestRetentionWarnsOfOldRecords(t *testing.T) {
	week := "604800000"
	now := time.Now().UnixMilli()
	for _, c := range []struct {
		name string
		min  []int64
		warn bool
	}{
		{"recent", []int64{now - 1000}, false},
		{"older than the retention", []int64{now - 8*24*3600*1000}, true},
		{"before 1970", []int64{-4852116232933, now}, true},
		{"no timestamp and recent", []int64{-1, now - 1000}, false},
		{"no timestamp only", []int64{-1}, false},
	} {
		m := &catalog.Manifest{Topic: "t"}
		for _, ms := range c.min {
			m.Files = append(m.Files, catalog.FileEntry{MinTimestamp: ms, MaxTimestamp: max(ms, now-1000)})
		}
		src := &source{manifests: []*catalog.Manifest{m}, partitions: 1,
			snap: &catalog.ClusterSnapshot{ReplicationFactor: 1, Configs: map[string]string{"retention.ms": week}}}
		var warns []string
		createPlan(src, 1, func(s string) { warns = append(warns, s) })
		got := strings.Contains(strings.Join(warns, "\n"), "retention.ms="+week+" is copied from the source")
		if got != c.warn {
			t.Errorf("%s: warned %v (%q), want %v", c.name, got, warns, c.warn)
		}
	}
}
