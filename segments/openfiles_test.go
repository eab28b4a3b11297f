package segments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestImportKcatPastTheOpenFilesLimit: a kcat import holds a partition's
// lock for the whole run, so a file of more partitions than the limit of
// open files allows reaches it. That is the process's limit, not damage:
// the old code said "manifest damaged … too many open files" for each
// partition past it, exit 9 and a catalog verify hint. Now one warning, the
// error names the limit (exit 2, the hint to raise it), what was imported
// is committed, and a run with a higher limit imports the rest, each
// record once.
func TestImportKcatPastTheOpenFilesLimit(t *testing.T) {
	const parts = 150
	var b strings.Builder
	for p := range parts {
		fmt.Fprintf(&b, `{"topic":"kp","partition":%d,"offset":0,"tstype":"create","ts":1000,"broker":1,"key":"a","payload":"x"}`+"\n", p)
	}
	file := filepath.Join(t.TempDir(), "kp.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var warns []string
	opts := KcatOptions{Dir: dir, File: file, Topic: "kp", Warn: func(s string) { warns = append(warns, s) }}

	limit, restore := catalogtest.LimitOpenFiles(t, 61)
	if limit >= parts {
		restore()
		t.Fatalf("the limit of open files is %d: the test needs one below %d partitions", limit, parts)
	}
	sum, err := ImportKcat(t.Context(), opts)
	restore()

	if err == nil {
		t.Fatal("import past the limit of open files: no error")
	}
	if !errors.Is(err, catalog.ErrTooManyFiles) || errors.Is(err, catalog.ErrBadManifest) || strings.Contains(err.Error(), "damaged") {
		t.Fatalf("error %q: want the limit of open files, not damage", err)
	}
	if code, hint := exit.Of(err); code != exit.Error || !strings.Contains(hint, "ulimit -n") || strings.Contains(hint, "verify") {
		t.Fatalf("exit %d, hint %q: want 2 and how to raise the limit", code, hint)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("ulimit -n, is %d", limit)) || !strings.Contains(err.Error(), "partitions not imported") {
		t.Errorf("error %q: want the limit and the partitions not imported counted", err)
	}
	if len(warns) != 1 || strings.Contains(warns[0], "damaged") {
		t.Errorf("warnings %q: want one, naming the limit", warns)
	}
	if sum.Records == 0 || sum.Records >= parts {
		t.Fatalf("imported %d records of %d: want those that had files to open", sum.Records, parts)
	}

	// A higher limit imports the rest: every partition's record, once.
	warns = nil
	if _, err := ImportKcat(t.Context(), opts); err != nil {
		t.Fatalf("import again with the limit raised: %v", err)
	}
	for p := range int32(parts) {
		_, rows := readRows(t, dir, catalog.TopicPartition{Topic: "kp", Partition: p})
		if len(rows) != 1 || rows[0].Offset != 0 {
			t.Fatalf("partition %d: %d rows, want its one record", p, len(rows))
		}
	}
}
