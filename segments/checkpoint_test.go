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

func TestParseCheckpoint(t *testing.T) {
	tests := []struct {
		name, file string
		want       string // the entries, or the error's text
	}{
		{"good", "0\n3\norders 0 12\norders 1 0\n__consumer_offsets 0 4\n", "__consumer_offsets/0=4 orders/0=12 orders/1=0"},
		{"empty list", "0\n0\n", ""},
		{"no newline at the end", "0\n1\nt 2 7", "t/2=7"},
		{"empty file", "", "fewer than its version and count lines"},
		{"version 1", "1\n0\n", "line 1: version"},
		{"count not a number", "0\nx\n", "line 2"},
		{"count negative", "0\n-1\n", "line 2"},
		{"count short", "0\n2\nt 0 1\n", "counts 2 entries, the file holds 1"},
		{"count long", "0\n0\nt 0 1\n", "counts 0 entries, the file holds 1"},
		{"two fields", "0\n1\nt 0\n", "line 3: 2 fields"},
		{"tabs", "0\n1\nt\t0\t1\n", "line 3: 1 fields"},
		{"bad topic", "0\n1\n../x 0 1\n", "no topic name"},
		{"bad partition", "0\n1\nt -1 1\n", "partition"},
		{"huge partition", "0\n1\nt 9999999999 1\n", "partition"},
		{"negative offset", "0\n1\nt 0 -5\n", "offset"},
		{"twice", "0\n2\nt 0 1\nt 0 2\n", "t/0 twice"},
		{"binary", "0\n1\n\x00\xff 0 1\n", "no topic name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseCheckpoint([]byte(tc.file))
			var got string
			if err != nil {
				got = err.Error()
			} else {
				var es []string
				for tp, o := range m {
					es = append(es, fmt.Sprintf("%s=%d", tp, o))
				}
				got = strings.Join(sortStrings(es), " ")
			}
			if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

func FuzzParseCheckpoint(f *testing.F) {
	f.Add([]byte("0\n2\nt 0 1\nu 3 4\n"))
	f.Add([]byte("0\n1\nt 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseCheckpoint(b)
		if err == nil {
			for tp, o := range m {
				if o < 0 || tp.Partition < 0 || !catalog.ValidTopicName(tp.Topic) {
					t.Fatalf("accepted %s=%d", tp, o)
				}
			}
		}
	})
}

// logDirFixture makes a broker's log directory by code: meta.properties,
// the log start checkpoint given, partition folders d-0 (offsets 0-1, 2-4,
// 5) and d-1 (0-4).
func logDirFixture(t *testing.T, checkpoint string) string {
	logs := t.TempDir()
	os.WriteFile(filepath.Join(logs, "meta.properties"), []byte("version=1\nnode.id=1\n"), 0o644)
	if checkpoint != "" {
		os.WriteFile(filepath.Join(logs, LogStartCheckpoint), []byte(checkpoint), 0o644)
	}
	for p, batches := range [][][]byte{
		{data(0, 0, -1, "a", "b"), data(2, 0, -1, "c", "d", "e"), data(5, 0, -1, "f")},
		{data(0, 0, -1, "v", "w", "x", "y", "z")},
	} {
		pdir := filepath.Join(logs, fmt.Sprintf("d-%d", p))
		os.Mkdir(pdir, 0o755)
		writeSegment(t, pdir, 0, batches...)
	}
	return logs
}

func rowsAndLost(t *testing.T, dir string, tp catalog.TopicPartition) (string, *catalog.Manifest) {
	m, rows := readRows(t, dir, tp)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%d:%s", r.Offset, r.Value))
	}
	for _, l := range m.Lost {
		out = append(out, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
	}
	return strings.Join(out, " "), m
}

// TestImportLogStartCheckpoint: records below the log start a log
// directory's log-start-offset-checkpoint records are lost ranges with
// the checkpoint as their reason, not rows: a log start inside a batch,
// past every record on disk, raised between two imports; a checkpoint that
// does not read is a warning and nothing is left out.
func TestImportLogStartCheckpoint(t *testing.T) {
	d0, d1 := catalog.TopicPartition{Topic: "d", Partition: 0}, catalog.TopicPartition{Topic: "d", Partition: 1}
	t.Run("log dir", func(t *testing.T) {
		logs := logDirFixture(t, "0\n2\nd 0 3\nd 1 10\n")
		out := t.TempDir()
		var warns []string
		opts := Options{Dir: out, Paths: []string{logs}, Warn: func(s string) { warns = append(warns, s) }}
		sum, err := Import(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		got, m := rowsAndLost(t, out, d0)
		if got != "3:d 4:e 5:f expired-before-first-snapshot 0-2" || m.Snapshots[0].LogStart != 3 || m.NextOffset != 6 {
			t.Fatalf("d-0: %s, log start %d, next %d", got, m.Snapshots[0].LogStart, m.NextOffset)
		}
		if r := m.Lost[0].Reason; !strings.HasPrefix(r, "deleted: below the log start offset 3") || !strings.Contains(r, filepath.Join(logs, LogStartCheckpoint)) {
			t.Errorf("reason %q", r)
		}
		got, m = rowsAndLost(t, out, d1)
		if got != "expired-before-first-snapshot 0-9" || m.Snapshots[0].LogStart != 10 || m.NextOffset != 10 || len(m.Files) != 0 {
			t.Fatalf("d-1: %s, log start %d, next %d", got, m.Snapshots[0].LogStart, m.NextOffset)
		}
		if sum.Records != 3 || len(warns) != 0 {
			t.Errorf("summary %v, warnings %q", sum, warns)
		}
		// A newer segment, the log start raised past the last import.
		writeSegment(t, filepath.Join(logs, "d-0"), 6, data(6, 0, -1, "g", "h"))
		os.WriteFile(filepath.Join(logs, LogStartCheckpoint), []byte("0\n2\nd 0 7\nd 1 10\n"), 0o644)
		if _, err := Import(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		if got, m = rowsAndLost(t, out, d0); got != "3:d 4:e 5:f 7:h expired-before-first-snapshot 0-2 expired-between-snapshots 6-6" || !strings.Contains(m.Lost[1].Reason, "log start offset 7") {
			t.Fatalf("d-0 again: %s %q", got, m.Lost[1].Reason)
		}
	})
	t.Run("partition folder", func(t *testing.T) {
		logs := logDirFixture(t, "0\n1\nd 0 2\n")
		out := t.TempDir()
		if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{filepath.Join(logs, "d-0", "00000000000000000000.log")}}); err != nil {
			t.Fatal(err)
		}
		if got, _ := rowsAndLost(t, out, d0); got != "2:c 3:d 4:e 5:f expired-before-first-snapshot 0-1" {
			t.Fatalf("d-0: %s", got)
		}
	})
	for _, tc := range []struct{ name, file, warn string }{
		{"missing", "", "has no log-start-offset-checkpoint"},
		{"bad line", "0\n2\nd 0 3\nd one 10\n", "line 4: partition"},
		{"written half", "0\n2\nd 0 3\n", "counts 2 entries"},
		{"too large", "0\n" + strings.Repeat("#", MaxCheckpointBytes), "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := logDirFixture(t, tc.file)
			out := t.TempDir()
			var warns []string
			if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{logs}, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
				t.Fatal(err)
			}
			if len(warns) != 1 || !strings.Contains(warns[0], tc.warn) {
				t.Fatalf("warnings %q, want one with %q", warns, tc.warn)
			}
			if got, _ := rowsAndLost(t, out, d0); got != "0:a 1:b 2:c 3:d 4:e 5:f" {
				t.Fatalf("d-0: %s", got)
			}
		})
	}
}
