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

// TestImportKcatLinesThatDoNotRead: after a first line of kcat -J, a line that does
// not read (cut short, as the last line of a kcat stopped mid-write is;
// not JSON; a negative offset; headers that are not pairs; past
// MaxKcatLine) failed the whole import (exit 13, "line 2 is not a line of
// kcat -C -J"), so none of the file's good lines could ever be imported.
// Now each costs its line: counted, named, not imported, its offset one
// the file passes over.
func TestImportKcatLinesThatDoNotRead(t *testing.T) {
	good := func(off int) string {
		return fmt.Sprintf(`{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":%d,"key":"k","payload":"v%d"}`, off, 1000+off, off)
	}
	lines := []string{
		good(0),
		`{"topic":"t","partition":0,"offset":1,"tstype":"create","ts":1001,"key":"k","payl`,
		good(2),
		`{"topic":"t","partition":0,"offset":-3}`,
		good(4),
		`{"topic":"t","partition":0,"offset":5,"headers":["a"]}`,
		good(6),
		`{"topic":"t","partition":0,"offset":7,"payload":"` + strings.Repeat("x", MaxKcatLine) + `"}`,
		good(8),
		`{"topic":"t","partition":0,"offset":9,"ts":10`, // the last, without its newline
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var warns []string
	sum, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t", Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.BadLines != 5 || !strings.Contains(sum.String(), "5 lines that did not read as kcat -C -J") {
		t.Fatalf("summary %+v: %s", sum, sum)
	}
	m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
	var offs, lost []string
	for _, r := range rows {
		offs = append(offs, fmt.Sprint(r.Offset))
	}
	for _, l := range m.Lost {
		lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
	}
	if strings.Join(offs, " ") != "0 2 4 6 8" || strings.Join(lost, ", ") != "not-in-file 1-1, not-in-file 3-3, not-in-file 5-5, not-in-file 7-7" {
		t.Fatalf("rows %v, lost %v", offs, lost)
	}
	w := strings.Join(warns, "\n")
	for _, want := range []string{"line 2 (byte ", "line 4 (byte ", "partition 0 offset -3", "line 6 (byte ", "line 8 (byte ", "a line past 67108864 bytes"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%.2000s", want, w)
		}
	}
	if note := m.Snapshots[0].Note; !strings.Contains(note, "5 lines of the file did not read as kcat -C -J") {
		t.Errorf("note %q", note)
	}
}

// TestImportKcatHeadersBound: a kcat -J line of millions of empty headers
// (a few bytes each) decoded to twenty times its bytes (a 40 MB line of 5
// million took 1.3 GB); past MaxKcatHeaders the line does not read, the
// others are imported, and a line at the bound still reads.
func TestImportKcatHeadersBound(t *testing.T) {
	line := func(off, headers int) string {
		return fmt.Sprintf(`{"topic":"t","partition":0,"offset":%d,"ts":1,"key":null,"payload":"v","headers":[%s]}`, off,
			strings.TrimSuffix(strings.Repeat(`"",null,`, headers), ","))
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	os.WriteFile(file, []byte(strings.Join([]string{line(0, 2), line(1, MaxKcatHeaders+1), line(2, MaxKcatHeaders)}, "\n")+"\n"), 0o644)
	dir := t.TempDir()
	var warns []string
	sum, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t", Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	_, rows := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
	if sum.BadLines != 1 || len(rows) != 2 || rows[1].Offset != 2 || len(rows[1].Headers) != MaxKcatHeaders || rows[0].Headers[1].Value != nil {
		t.Fatalf("summary %+v, %d rows", sum, len(rows))
	}
	if !strings.Contains(strings.Join(warns, "\n"), "more than 1000000 headers") {
		t.Errorf("warnings %q", warns)
	}
}
