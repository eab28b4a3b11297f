package catalog

import (
	"testing"
	"time"
)

// A compact that commits and removes the old files (--grace 0) between
// verify's read of a manifest and its check of the files listed is not
// damage: verify reads the manifest again and checks the new one.
func TestVerifyDuringCompactNamesNoMissingFile(t *testing.T) {
	for _, grace := range []time.Duration{0, time.Hour} {
		t.Run("grace "+grace.String(), func(t *testing.T) {
			d, err := Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			tp := TopicPartition{"events", 0}
			writeSmallFiles(t, d, tp, 12, 40, false, false)
			compacted := false
			defer func(f func(string)) { verifyManifestRead = f }(verifyManifestRead)
			verifyManifestRead = func(string) {
				if compacted {
					return
				}
				compacted = true
				st, err := d.Compact(t.Context(), CompactOptions{TargetBytes: DefaultCompactTarget, MinAge: time.Hour, Grace: grace})
				if err != nil || st.Merged == 0 {
					t.Fatalf("compact: %+v %v", st, err)
				}
			}
			files, problems, err := d.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !compacted {
				t.Fatal("verify did not read the manifest")
			}
			for _, p := range problems {
				if p.Kind == KindDataFile {
					t.Errorf("verify during a compact: %s", p)
				}
			}
			if files == 0 {
				t.Fatal("verify checked no file")
			}
		})
	}
}

// The same for ReadTopic (what ls, sql, check and serve read): a file
// removed by a compact --grace 0 between the manifest's read and the
// file's check does not cost the partition.
func TestReadTopicDuringCompactLeavesNoPartitionOut(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, d, tp, 12, 40, false, false)
	compacted := false
	defer func(f func(TopicPartition)) { afterManifestRead = f }(afterManifestRead)
	afterManifestRead = func(TopicPartition) {
		if compacted {
			return
		}
		compacted = true
		if st, err := d.Compact(t.Context(), CompactOptions{TargetBytes: DefaultCompactTarget, MinAge: time.Hour}); err != nil || st.Merged == 0 {
			t.Fatalf("compact: %+v %v", st, err)
		}
	}
	tm, err := d.ReadTopic(t.Context(), "events")
	if err != nil {
		t.Fatal(err)
	}
	if !compacted {
		t.Fatal("ReadTopic did not read the manifest")
	}
	if len(tm.Damaged) > 0 || len(tm.Manifests) != 1 || len(tm.Manifests[0].Files) != 1 || tm.Manifests[0].Records() != 12*40 {
		t.Fatalf("damaged %v, manifests %d: want the compacted partition, 480 records", tm.Damaged, len(tm.Manifests))
	}
}

// In a bucket, an object a compact --grace 0 removes while verify reads
// it answers 404 to the next range read, which read as corrupt data
// ("corrupt data in row group 0, column …"); verify reads the new
// manifest and names nothing.
func TestS3VerifyDuringCompactNamesNoDamage(t *testing.T) {
	loc, cfg := testBucket(t)
	d := mustCreateAt(t, loc, cfg)
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, d, tp, 6, 40, false, false)
	compacted := false
	defer func(f func(string)) { verifyOpened = f }(verifyOpened)
	verifyOpened = func(string) {
		if compacted {
			return
		}
		compacted = true
		c, err := OpenAt(t.Context(), loc, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := c.Compact(t.Context(), CompactOptions{TargetBytes: DefaultCompactTarget, MinAge: time.Hour}); err != nil || st.Merged == 0 {
			t.Fatalf("compact: %+v %v", st, err)
		}
	}
	_, problems, err := d.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !compacted {
		t.Fatal("verify opened no data file")
	}
	for _, p := range problems {
		if p.Kind == KindDataFile {
			t.Errorf("verify during a compact: %s", p)
		}
	}
}

// catalog copy from a folder a compact --grace 0 merges under it: the
// partition is copied again from its new manifest, where the copy stopped
// (exit 2) saying the source file was "missing or not the manifest's size
// in the source", leaving data files without a manifest in dst.
func TestCopyDuringCompactCopiesEverything(t *testing.T) {
	src, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, src, tp, 12, 40, false, false)
	dstDir := t.TempDir()
	dst, err := Create(dstDir)
	if err != nil {
		t.Fatal(err)
	}
	compacted := false
	defer func(f func(TopicPartition)) { beforeCopyPartition = f }(beforeCopyPartition)
	beforeCopyPartition = func(TopicPartition) {
		if compacted {
			return
		}
		compacted = true
		if st, err := src.Compact(t.Context(), CompactOptions{TargetBytes: DefaultCompactTarget, MinAge: time.Hour}); err != nil || st.Merged == 0 {
			t.Fatalf("compact: %+v %v", st, err)
		}
	}
	if _, err := Copy(t.Context(), src, dst); err != nil {
		t.Fatalf("copy during a compact: %v", err)
	}
	if !compacted {
		t.Fatal("copy copied no partition")
	}
	m, err := dst.ReadManifest(t.Context(), tp)
	if err != nil || m.Records() != 12*40 {
		t.Fatalf("dst: %v records (%v), want 480", m.Records(), err)
	}
	if _, problems, err := dst.Verify(t.Context()); err != nil || len(problems) != 3 { // the 3 schema ids the rows name
		t.Fatalf("verify dst: %v %v", err, problems)
	}
}
