package catalog

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// A writer whose lock expired while it still ran (paused, or cut off from
// the bucket longer than the lock's TTL) and the writer that took the lock
// over: the one that takes over removes the leftovers of the first, and
// the first must then not commit a manifest that lists one of them. Of
// the two, one commits; no manifest ever lists a file that is gone.
func TestS3TakenOverLockNeverLosesAFile(t *testing.T) {
	loc, cfg := testBucket(t)
	cfg.LockTTL = 1200 * time.Millisecond
	a := mustCreateAt(t, loc, cfg)
	b, err := OpenAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		tp   TopicPartition
		seed bool // the partition has a manifest before the writers start
	}{
		{"first dump of the partition", TopicPartition{"takeover", 0}, false},
		{"an incremental dump", TopicPartition{"takeover", 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp := c.tp
			var from int64
			if c.seed {
				m0, err := a.ReadManifest(t.Context(), tp)
				if err != nil {
					t.Fatal(err)
				}
				first := FileEntry{Name: FileName(0, 9), FirstOffset: 0, LastOffset: 9, Records: 10, Bytes: 4}
				putObject(t, a, RelFilePath(tp, first.Name), []byte("PAR1"))
				m0.Files, m0.NextOffset = []FileEntry{first}, 10
				if err := a.WriteManifest(t.Context(), m0); err != nil {
					t.Fatal(err)
				}
				from = 10
			}
			// Writer a takes the lock, reads the manifest and writes a data
			// file; then its lock stops being renewed (the process stalls).
			lockCtx, stall := context.WithCancel(t.Context())
			if _, err := a.LockPartition(lockCtx, tp); err != nil {
				t.Fatal(err)
			}
			ma, err := a.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			fe := FileEntry{Name: FileName(from, from+9), FirstOffset: from, LastOffset: from + 9, Records: 10, Bytes: 4}
			putObject(t, a, RelFilePath(tp, fe.Name), []byte("PAR1"))
			stall()
			time.Sleep(cfg.LockTTL + 300*time.Millisecond)

			// Writer b takes the expired lock over and cleans the partition,
			// as a dump and a compact do under a lock.
			lb, err := b.LockPartition(t.Context(), tp)
			if err != nil {
				t.Fatalf("expired lock not taken over: %v", err)
			}
			defer lb.Unlock()
			mb, err := b.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			removed, cerr := b.CleanPartition(t.Context(), mb)

			// Writer a wakes up and commits its file.
			ma.Files = append(ma.Files, fe)
			ma.NextOffset = fe.LastOffset + 1
			aerr := a.WriteManifest(t.Context(), ma)

			if aerr == nil && cerr == nil && slices.Contains(removed, fe.Name) {
				t.Fatalf("a manifest lists %s, which the writer that took the lock over removed as a leftover", fe.Name)
			}
			if aerr != nil && !errors.Is(aerr, ErrConflict) {
				t.Fatalf("stalled writer: %v, want ErrConflict", aerr)
			}
			// The dump says which commit failed ("commit manifest of T/N: "),
			// once: the conflict itself names the manifest's path only.
			if aerr != nil && strings.Contains(aerr.Error(), "commit manifest of") {
				t.Errorf("conflict says the commit itself, so the dump's error says it twice: %v", aerr)
			}
			if cerr != nil && !errors.Is(cerr, ErrConflict) {
				t.Fatalf("clean: %v, want ErrConflict", cerr)
			}
			// Whatever the order, every file the manifest lists is there.
			r, err := OpenAt(t.Context(), loc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := r.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range m.Files {
				if _, err := r.Store().CheckData(t.Context(), RelFilePath(tp, f.Name)); err != nil {
					t.Errorf("manifest lists %s: %v", f.Name, err)
				}
			}
		})
	}
}
