package segments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportDamagedManifestCostsItsPartition: a folder where one
// partition's manifest is damaged stopped the import at that partition,
// and the partitions after it were not imported (exit 9, nothing said of
// them). Now that partition is left as it is, named, and the others are
// imported; the import still fails with the manifest's error.
func TestImportDamagedManifestCostsItsPartition(t *testing.T) {
	logs := t.TempDir()
	for _, p := range []string{"a-0", "b-0"} {
		os.Mkdir(filepath.Join(logs, p), 0o755)
		writeSegment(t, filepath.Join(logs, p), 0, data(0, 0, -1, "x", "y"))
	}
	dir := t.TempDir()
	if _, err := Import(context.Background(), Options{Dir: dir, Paths: []string{logs}}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "topic=a", "partition=0", "manifest.json")
	os.WriteFile(bad, []byte("garbage"), 0o644)
	writeSegment(t, filepath.Join(logs, "a-0"), 2, data(2, 0, -1, "z"))
	writeSegment(t, filepath.Join(logs, "b-0"), 2, data(2, 0, -1, "z"))
	var warns []string
	sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{logs}, Warn: func(s string) { warns = append(warns, s) }})
	var me *catalog.ManifestError
	if !errors.As(err, &me) || !errors.Is(err, catalog.ErrBadManifest) || me.TP.Topic != "a" {
		t.Fatalf("err %v, want partition a/0's manifest damaged", err)
	}
	if _, rows := readRows(t, dir, catalog.TopicPartition{Topic: "b", Partition: 0}); len(rows) != 3 || sum.Partitions != 1 {
		t.Fatalf("partition b/0: %d rows, summary %+v; want its new record imported", len(rows), sum)
	}
	if got, _ := os.ReadFile(bad); string(got) != "garbage" {
		t.Errorf("the damaged manifest was written: %q", got)
	}
	if len(warns) == 0 {
		t.Errorf("no warning names partition a/0")
	}
}

// TestImportKcatDamagedManifestCostsItsPartition: the same for kcat -J:
// a partition whose manifest is damaged stopped the import at its first
// line, and the other partitions' lines were not imported.
func TestImportKcatDamagedManifestCostsItsPartition(t *testing.T) {
	line := func(p, off int) string {
		return fmt.Sprintf(`{"topic":"k","partition":%d,"offset":%d,"ts":1,"key":null,"payload":"v"}`, p, off)
	}
	file := filepath.Join(t.TempDir(), "k.jsonl")
	os.WriteFile(file, []byte(strings.Join([]string{line(0, 0), line(1, 0)}, "\n")+"\n"), 0o644)
	dir := t.TempDir()
	if _, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "k"}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "topic=k", "partition=0", "manifest.json")
	os.WriteFile(bad, []byte("garbage"), 0o644)
	os.WriteFile(file, []byte(strings.Join([]string{line(0, 0), line(1, 0), line(0, 1), line(1, 1)}, "\n")+"\n"), 0o644)
	_, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "k"})
	var me *catalog.ManifestError
	if !errors.As(err, &me) || me.TP.Partition != 0 {
		t.Fatalf("err %v, want partition k/0's manifest damaged", err)
	}
	if _, rows := readRows(t, dir, catalog.TopicPartition{Topic: "k", Partition: 1}); len(rows) != 2 {
		t.Fatalf("partition k/1: %d rows, want 2", len(rows))
	}
	if got, _ := os.ReadFile(bad); string(got) != "garbage" {
		t.Errorf("the damaged manifest was written: %q", got)
	}
}
