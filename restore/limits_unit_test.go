package restore

import (
	"math"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestFileFits: a restore reads a file to check its records only when its
// manifest entry cannot vouch for them: a largest record unrecorded (0, a
// file written before entries said it) or too large for the target with
// the batch's overhead, a time outside the target's window or unknown
// (-1). A file of markers only produces nothing.
func TestFileFits(t *testing.T) {
	const now = int64(1_800_000_000_000)
	l := limits{known: true, maxMessageBytes: 1_048_588, before: math.MaxInt64, after: 3_600_000}
	ok := catalog.FileEntry{Records: 10, MaxRecordBytes: 1000, MinTimestamp: now - 1e9, MaxTimestamp: now}
	for _, c := range []struct {
		name string
		f    func(*catalog.FileEntry)
		want bool
	}{
		{"vouched for", func(*catalog.FileEntry) {}, true},
		{"largest record not recorded", func(f *catalog.FileEntry) { f.MaxRecordBytes = 0 }, false},
		{"largest record at the limit with its overhead", func(f *catalog.FileEntry) { f.MaxRecordBytes = l.maxMessageBytes - recordOverhead }, true},
		{"a byte past it", func(f *catalog.FileEntry) { f.MaxRecordBytes = l.maxMessageBytes - recordOverhead + 1 }, false},
		{"a record from the future past after.max.ms", func(f *catalog.FileEntry) { f.MaxTimestamp = now + 3_600_001 }, false},
		{"a record without a time", func(f *catalog.FileEntry) { f.MinTimestamp = -1 }, false},
		{"markers only", func(f *catalog.FileEntry) { f.ControlRecords, f.MaxRecordBytes = 10, 0 }, true},
	} {
		f := ok
		c.f(&f)
		if got := fileFits(f, l, now); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
