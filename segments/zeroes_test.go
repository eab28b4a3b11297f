package segments

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestZeroHoleIsNoTail: zeroes after a batch were taken for a
// preallocated tail when their first MiB was zero, and the batches after
// them were left out without a word (a crash can leave a hole of zeroes in
// the middle of a segment). Only zeroes to the end of the file are a tail
// now; a hole with batches after it is damage, warned of, and a later
// segment's base bounds what it cost.
func TestZeroHoleIsNoTail(t *testing.T) {
	a := data(0, 0, -1, "a")
	b := data(1, 0, -1, "b")
	hole := make([]byte, 2<<20)
	if got := scanAll(t, bytes.Join([][]byte{a, hole}, nil), DefaultLimits); len(got.batches) != 1 || len(got.damage) != 0 {
		t.Fatalf("a zero tail of 2 MiB: %d batches, damage %v", len(got.batches), got.damage)
	}
	got := scanAll(t, bytes.Join([][]byte{a, hole, b}, nil), DefaultLimits)
	if len(got.batches) != 1 || len(got.damage) != 1 || !got.damage[0].Fatal || got.damage[0].Pos != int64(len(a)) {
		t.Fatalf("a hole of 2 MiB before a batch: %d batches, damage %+v", len(got.batches), got.damage)
	}

	pdir := filepath.Join(t.TempDir(), "z-0")
	os.Mkdir(pdir, 0o755)
	writeSegment(t, pdir, 0, a, hole, b)
	writeSegment(t, pdir, 2, data(2, 0, -1, "c"))
	dir := t.TempDir()
	var warns []string
	sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "z", Partition: 0})
	if len(rows) != 2 || len(m.Lost) != 1 || m.Lost[0].Kind != catalog.LostDamaged || m.Lost[0].From != 1 || m.Lost[0].To != 1 || sum.Damaged != 1 {
		t.Fatalf("%d rows, lost %+v, summary %+v", len(rows), m.Lost, sum)
	}
	if !strings.Contains(strings.Join(warns, "\n"), "batch length 0") {
		t.Errorf("warnings %q", warns)
	}
}
