package catalog

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A compact that stops part way (interrupted, a full disk) says the files
// that stand: before, "N files before, 0 after" where N were still listed.
func TestCompactStoppedSaysTheFilesListed(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, d, tp, 30, 60, false, false)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	defer func(f func(string)) { compactPause = f }(compactPause)
	compactPause = func(stage string) {
		if stage == "committed" {
			cancel() // after the first run's commit
		}
	}
	st, err := d.Compact(ctx, CompactOptions{TargetBytes: 20_000, MinAge: time.Hour})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("compact: %v, want it stopped", err)
	}
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	if st.Written == 0 || st.FilesBefore != 30 || st.FilesAfter != len(m.Files) {
		t.Fatalf("stats %+v; the manifest lists %d files", st, len(m.Files))
	}
}
