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

// TestImportOffsetsPastTheBound: an offset near 2^63 made the next offset
// overflow: a kcat line at offset 9223372036854775807 between lines at 0
// and 5 left a data file of offsets 0, 2^63-1, 5 and a manifest that does
// not validate (exit 9, "lost range 0-4 overlaps or is out of order"), the
// partition unimportable. An offset past 2^62 (the catalog's bound) is now
// no Kafka log's: the line does not read, the batch is damaged.
func TestImportOffsetsPastTheBound(t *testing.T) {
	tp := catalog.TopicPartition{Topic: "o", Partition: 0}
	rowsOf := func(t *testing.T, dir string) string {
		m, rows := readRows(t, dir, tp)
		var offs []string
		for _, r := range rows {
			offs = append(offs, fmt.Sprint(r.Offset))
		}
		return fmt.Sprintf("%s next %d", strings.Join(offs, " "), m.NextOffset)
	}
	t.Run("kcat -J", func(t *testing.T) {
		var b strings.Builder
		for _, off := range []int64{0, 1<<63 - 1, 1<<62 + 1, 5} {
			fmt.Fprintf(&b, `{"topic":"o","partition":0,"offset":%d,"ts":1,"key":null,"payload":"v"}`+"\n", off)
		}
		file := filepath.Join(t.TempDir(), "k.jsonl")
		os.WriteFile(file, []byte(b.String()), 0o644)
		dir := t.TempDir()
		sum, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "o"})
		if err != nil || sum.BadLines != 2 {
			t.Fatalf("%v, summary %+v", err, sum)
		}
		if got := rowsOf(t, dir); got != "0 5 next 6" {
			t.Fatalf("rows %s", got)
		}
	})
	t.Run("segment", func(t *testing.T) {
		pdir := filepath.Join(t.TempDir(), "o-0")
		os.Mkdir(pdir, 0o755)
		writeSegment(t, pdir, 0, data(0, 0, -1, "a"), data(1<<63-3, 0, -1, "b", "c"), data(1<<62+1, 0, -1, "d"),
			v01Message(1<<63-1, 1, 0, 1, nil, []byte("e")), data(5, 0, -1, "f"))
		dir := t.TempDir()
		var warns []string
		sum, err := Import(context.Background(), Options{Dir: dir, Paths: []string{pdir}, Warn: func(s string) { warns = append(warns, s) }})
		if err != nil || sum.Damaged != 3 {
			t.Fatalf("%v, summary %+v, warnings %q", err, sum, warns)
		}
		if got := rowsOf(t, dir); got != "0 5 next 6" {
			t.Fatalf("rows %s", got)
		}
		if !strings.Contains(strings.Join(warns, "\n"), "outside 0 to 2^62") {
			t.Errorf("warnings %q", warns)
		}
	})
}
