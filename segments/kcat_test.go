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

// TestImportKcatLines: nulls and empties kept apart, headers with a null
// value, gaps as not-in-file, lines of another topic and repeated lines
// left out, the same file twice changing nothing, a longer file continuing.
func TestImportKcatLines(t *testing.T) {
	lines := []string{
		`{"topic":"t","partition":0,"offset":3,"tstype":"create","ts":1000,"broker":1,"headers":["h","1","h",null],"key":"a","payload":"x"}`,
		`{"topic":"t","partition":0,"offset":4,"tstype":"logappend","ts":1001,"broker":1,"key":null,"payload":""}`,
		`{"topic":"u","partition":0,"offset":5,"tstype":"create","ts":1002,"broker":1,"key":"b","payload":"y"}`,
		`{"topic":"t","partition":1,"offset":0,"tstype":"create","ts":1003,"broker":1,"key":"","payload":null}`,
		`{"topic":"t","partition":0,"offset":7,"tstype":"create","ts":1004,"broker":1,"key":"c","payload":"z"}`,
		`{"topic":"t","partition":0,"offset":7,"tstype":"create","ts":1004,"broker":1,"key":"c","payload":"z"}`,
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	dir := t.TempDir()
	var warns []string
	opts := KcatOptions{Dir: dir, File: file, Topic: "t", Warn: func(s string) { warns = append(warns, s) }}
	if _, err := ImportKcat(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
	var got []string
	for _, r := range rows {
		var hs []string
		for _, h := range r.Headers {
			hs = append(hs, fmt.Sprintf("%s=%v", h.Key, h.Value == nil))
		}
		got = append(got, fmt.Sprintf("%d %s key-nil=%v %q value-nil=%v %q %v pid%d", r.Offset, r.TimestampType, r.Key == nil, r.Key, r.Value == nil, r.Value, hs, r.ProducerID))
	}
	want := []string{
		`3 create key-nil=false "a" value-nil=false "x" [h=false h=true] pid-1`,
		`4 log_append key-nil=true "" value-nil=false "" [] pid-1`,
		`7 create key-nil=false "c" value-nil=false "z" [] pid-1`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var lost []string
	for _, l := range m.Lost {
		lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
	}
	if strings.Join(lost, ", ") != "not-in-file 0-2, not-in-file 5-6" {
		t.Fatalf("lost %v", lost)
	}
	if s := m.Snapshots[0]; s.Imported != "kcat" || s.Note != KcatLacks || s.LogStart != 3 || s.HighWatermark != -1 {
		t.Errorf("snapshot %+v", s)
	}
	if m.Files[0].Source != file || m.Files[0].SourceFrom != 0 {
		t.Errorf("source %q from %d", m.Files[0].Source, m.Files[0].SourceFrom)
	}
	if len(warns) != 2 {
		t.Errorf("warnings %q: want the other topic's line and the repeated one", warns)
	}
	_, rows1 := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 1})
	if len(rows1) != 1 || rows1[0].Key == nil || len(rows1[0].Key) != 0 || rows1[0].Value != nil {
		t.Fatalf("partition 1 %+v", rows1)
	}

	// Again: nothing changes; then a longer file continues.
	before, _ := os.ReadFile(filepath.Join(dir, catalog.RelPartitionDir(catalog.TopicPartition{Topic: "t", Partition: 0}), "manifest.json"))
	if sum, err := ImportKcat(context.Background(), opts); err != nil || sum.Records != 0 {
		t.Fatalf("second import: %v %v", sum, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, catalog.RelPartitionDir(catalog.TopicPartition{Topic: "t", Partition: 0}), "manifest.json"))
	if string(before) != string(after) {
		t.Fatal("the same file twice changed the manifest")
	}
	f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"topic":"t","partition":0,"offset":9,"tstype":"create","ts":1005,"key":"d","payload":"w"}` + "\n")
	f.Close()
	if _, err := ImportKcat(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	m, rows = readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
	if rows[len(rows)-1].Offset != 9 || m.NextOffset != 10 || m.Lost[len(m.Lost)-1].From != 8 {
		t.Fatalf("continued: next %d, lost %+v", m.NextOffset, m.Lost)
	}
}

func TestImportKcatBadLines(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"empty", "", "is empty"},
		{"kcat -f output", "t [0] at offset 4: key a\n", "line 1 is not a line of kcat -C -J"},
		{"header pairs", `{"topic":"t","partition":0,"offset":1,"headers":["a"]}` + "\n", "key and value pairs"},
		{"negative offset", `{"topic":"t","partition":0,"offset":-4}` + "\n", "offset -4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "k")
			os.WriteFile(file, []byte(tc.content), 0o644)
			_, err := ImportKcat(context.Background(), KcatOptions{Dir: t.TempDir(), File: file, Topic: "t"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestImportKcatFileRows: --file-rows rolls a file at that many records
// even when it is fewer than a batch (before, a file rolled only between
// batches of sinkBatchRows: 1,000 records with --file-rows 50 made one
// file), every record kept once, in order.
func TestImportKcatFileRows(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, `{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":%d,"key":"k%d","payload":"v"}`+"\n", i, 1000+i, i)
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	os.WriteFile(file, []byte(b.String()), 0o644)
	for _, rows := range []int{7, 50, 999, 1000, 5000} {
		t.Run(fmt.Sprint(rows), func(t *testing.T) {
			dir := t.TempDir()
			if _, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t", FileRows: rows, FileBytes: 1 << 30}); err != nil {
				t.Fatal(err)
			}
			m, got := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
			if want := (1000 + rows - 1) / rows; len(m.Files) != want {
				t.Errorf("%d files, want %d", len(m.Files), want)
			}
			for _, f := range m.Files {
				if f.Records > int64(rows) {
					t.Errorf("file %s holds %d records, past --file-rows %d", f.Name, f.Records, rows)
				}
			}
			if len(got) != 1000 {
				t.Fatalf("%d records, want 1000", len(got))
			}
			for i, r := range got {
				if r.Offset != int64(i) {
					t.Fatalf("record %d has offset %d", i, r.Offset)
				}
			}
		})
	}
}

// TestCompactSaysImportedFiles: compact leaves an import's small files as
// they are (their entries name their source) and counts them, so that
// "0 files merged" is explained.
func TestCompactSaysImportedFiles(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, `{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":%d,"key":"k","payload":"v"}`+"\n", i, 1000+i)
	}
	file := filepath.Join(t.TempDir(), "kcat.jsonl")
	os.WriteFile(file, []byte(b.String()), 0o644)
	dir := t.TempDir()
	if _, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Topic: "t", FileRows: 50, FileBytes: 1 << 30}); err != nil {
		t.Fatal(err)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.Compact(context.Background(), catalog.CompactOptions{})
	if err != nil || st.Merged != 0 || st.Imported != 4 || st.FilesAfter != 4 {
		t.Fatalf("compact: %+v %v; want 4 imported files left, none merged", st, err)
	}
}
