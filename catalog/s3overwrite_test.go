package catalog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A writer whose lock expired under it (stalled with a data file being
// written) and the writer that took the lock over and committed the same
// offsets: both files have the same name, and the stalled writer's upload
// replaced the committed object with its own bytes (another row-group
// size, another size), so the partition read as damaged ("size 45940
// bytes, manifest says 5764"). A data file is now created only if absent.
func TestS3StalledWriterNeverReplacesACommittedFile(t *testing.T) {
	loc, cfg := testBucket(t)
	cfg.LockTTL = 1200 * time.Millisecond
	a := mustCreateAt(t, loc, cfg)
	b, err := OpenAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"overwrite", 0}
	lockCtx, stall := context.WithCancel(t.Context())
	if _, err := a.LockPartition(lockCtx, tp); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReadManifest(t.Context(), tp); err != nil {
		t.Fatal(err)
	}
	wa, err := a.NewFileWriterRows(t.Context(), tp, "sa", 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := wa.WriteTyped(compactRows(0, 0, 100), nil, false); err != nil {
		t.Fatal(err)
	}
	stall()
	time.Sleep(cfg.LockTTL + 300*time.Millisecond)

	lb, err := b.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatalf("expired lock not taken over: %v", err)
	}
	defer lb.Unlock()
	mb, err := b.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.CleanPartition(t.Context(), mb); err != nil {
		t.Fatal(err)
	}
	wb, err := b.NewFileWriter(t.Context(), tp, "sb")
	if err != nil {
		t.Fatal(err)
	}
	if err := wb.WriteTyped(compactRows(0, 0, 100), nil, false); err != nil {
		t.Fatal(err)
	}
	fb, err := wb.Commit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mb.Files, mb.NextOffset = []FileEntry{fb}, fb.LastOffset+1
	if err := b.WriteManifest(t.Context(), mb); err != nil {
		t.Fatal(err)
	}

	fa, err := wa.Commit(t.Context())
	if fa.Name != "" && fa.Name != fb.Name {
		t.Fatalf("the two files are %s and %s: the test needs one name", fa.Name, fb.Name)
	}
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("stalled writer's upload over the committed %s: %v, want ErrConflict", fb.Name, err)
	}
	_, problems, err := b.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if p.Kind == KindDataFile {
			t.Errorf("verify: %s", p)
		}
	}
}
