package catalog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestReadTopicPastTheOpenFilesLimit: a manifest that could not be opened
// for the limit of open files left its partition out as "manifest
// damaged" (tm.Damaged), so readers judged the other partitions as the
// whole topic and said damage. Now ReadTopic fails, naming the limit (exit 2).
func TestReadTopicPastTheOpenFilesLimit(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{FormatVersion: catalog.FormatVersion, Topic: "t", Partition: p, NextOffset: -1}); err != nil {
			t.Fatal(err)
		}
	}
	_, back := catalogtest.LimitOpenFiles(t, 0)
	tm, err := d.ReadTopic(t.Context(), "t")
	back()
	if err == nil {
		t.Fatalf("no error; %d manifests, %d damaged: %v", len(tm.Manifests), len(tm.Damaged), tm.Damaged)
	}
	if !errors.Is(err, catalog.ErrTooManyFiles) || errors.Is(err, catalog.ErrBadManifest) || strings.Contains(err.Error(), "damaged") {
		t.Fatalf("%v: want the limit of open files, not damage", err)
	}
	t.Log(err)
	if code, _ := exit.Of(err); code != exit.Error {
		t.Fatalf("exit %d, want 2", code)
	}
}
