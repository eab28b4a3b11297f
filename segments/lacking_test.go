package segments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportSaysWhatItCannotAdd: a folder that records offsets lost
// (not in a kcat file, before the first segment, damaged) and holds later
// ones cannot take them from segments imported after: an import adds after
// a partition's last offset. Those records were passed over as imported
// before, and the import said "nothing new: every offset was already
// imported". Now they are counted and named. Offsets the cleaner removed
// or below the broker's log start hold no record, and a second import of
// the same segments adds no warning.
func TestImportSaysWhatItCannotAdd(t *testing.T) {
	pdir := filepath.Join(t.TempDir(), "t-0")
	os.Mkdir(pdir, 0o755)
	var bs [][]byte
	for i := int64(0); i < 100; i++ {
		bs = append(bs, data(i, 0, -1, "v"))
	}
	writeSegment(t, pdir, 0, bs...)
	var b strings.Builder
	for i := 50; i < 150; i++ {
		fmt.Fprintf(&b, `{"topic":"t","partition":0,"offset":%d,"ts":1,"key":null,"payload":"v"}`+"\n", i)
	}
	file := filepath.Join(t.TempDir(), "k.jsonl")
	os.WriteFile(file, []byte(b.String()), 0o644)
	dir := t.TempDir()
	if _, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t"}); err != nil {
		t.Fatal(err)
	}
	var warns []string
	sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.NotAdded != 50 || strings.Contains(sum.String(), "every offset was already imported") || !strings.Contains(sum.String(), "50 records the folder records lost") {
		t.Fatalf("summary %s", sum)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "offset 0 (and any others") || !strings.Contains(warns[0], "not-in-file 0-49") {
		t.Fatalf("warnings %q", warns)
	}
	if _, rows := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0}); len(rows) != 100 {
		t.Fatalf("%d rows", len(rows))
	}

	// A compacted topic's holes, imported twice: nothing to say.
	cdir := filepath.Join(t.TempDir(), "c-0")
	os.Mkdir(cdir, 0o755)
	writeSegment(t, cdir, 0, data(0, 0, -1, "a"), testBatch{base: 1, lastDelta: 9, recs: []testRec{{value: []byte("b"), delta: 9}}}.encode())
	out := t.TempDir()
	for run := 0; run < 2; run++ {
		var warns []string
		sum, err := Import(context.Background(), Options{Dir: out, Paths: []string{cdir}, Warn: func(s string) { warns = append(warns, s) }})
		if err != nil || sum.NotAdded != 0 || len(warns) != 0 {
			t.Fatalf("compacted, import %d: %v %+v %q", run+1, err, sum, warns)
		}
	}
}
