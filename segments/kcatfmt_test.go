package segments

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

func TestParseKcatFormat(t *testing.T) {
	tests := []struct {
		format, err string // err "" : accepted
	}{
		{`%p %o %k %s\n`, "%k and %s have no length before them"},
		{`%p %o %K %k %S %s\n`, ""},
		{`%t/%p@%o: %s|%h\n`, "%s and %h have no length"},
		{`%t/%p@%o: %S %s|%h\n`, ""},
		{`%t/%p@%o %T %K %k %S %s %h\n`, ""},
		{`%p %o %R%s\n`, ""},
		{`%o %s\n`, "lacks %o or %p"},
		{`%p %s\n`, "lacks %o or %p"},
		{`%p%o %s\n`, "%p is not followed by text that ends a number"},
		{`%p %o1%s\n`, "%o is not followed by text that ends a number"},
		{`%p %o %s`, "%s has no length before it and no text after it"},
		{`%p %o %K %k`, ""},
		{`%p %o %t-x %s\n`, "%t is not followed by text that ends a topic"},
		{`%p %o %s %o\n`, "%o twice"},
		{`%p %o %q\n`, "%q is not a kcat format token"},
		{`%p %o %`, "ends with a lone %"},
		{`%p %o %s %S\n`, ""}, // a length after its field checks the cut
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			_, err := ParseKcatFormat(tc.format)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
	f, err := ParseKcatFormat(`%p %o a\tb\x41\101\\%%\n`)
	if err != nil || len(f.toks) != 4 || string(f.toks[3].lit) != " a\tbAe\\%\n" {
		t.Errorf("escapes: %v %+v", err, f)
	}
}

// TestImportKcatFormat reads files as kcat -f writes them: lengths before
// keys and values keep null, empty and values holding the delimiter; a
// length after its value finds the right cut; a key holding its delimiter
// is read whole when the rest of the line decides; a value cut at its
// delimiter leaves a line that does not match, counted and named, as is a
// foreign line; gaps are not-in-file; what the format lacks is in the note.
func TestImportKcatFormat(t *testing.T) {
	be := func(n int32) string { return string(binary.BigEndian.AppendUint32(nil, uint32(n))) }
	tests := []struct {
		name, format, file string
		want               string // rows, then lost ranges
		unmatched          int
		note               string
	}{
		{"lengths", `%t %p %o %T %K %k %S %s %h\n`,
			"t 0 3 1000 1 a 5 x|y\nz h=1,h=NULL,e=\n" +
				"t 0 4 1001 -1  0  \n" +
				"u 0 5 1002 1 b 1 y \n" +
				"t 0 7 1003 0  -1  \n",
			`3 ts1000 key "a" value "x|y\nz" [h="1" h=<null> e=""] | 4 ts1001 key <null> value "" [] | 7 ts1003 key "" value <null> [] | not-in-file 0-2 | not-in-file 5-6`,
			0, "headers as kcat prints them"},
		{"binary length", `%p %o %R%s\n`,
			"0 0 " + be(3) + "a\nb\n0 1 " + be(-1) + "\n",
			`0 ts-1 key <null> value "a\nb" [] | 1 ts-1 key <null> value <null> []`,
			0, "no timestamp"},
		{"length after", `%p %o %s|%S\n`,
			"0 0 a|b|3\n0 1 c|1\n",
			`0 ts-1 key <null> value "a|b" [] | 1 ts-1 key <null> value "c" []`,
			0, "no key"},
		{"a key holding its delimiter", `%p %o %k %S %s\n`,
			"0 0 a 1 x\n0 1 b c 2 yz\n0 2 q 1 x 2 zz\n",
			`0 ts-1 key "a" value "x" [] | 1 ts-1 key "b c" value "yz" [] | 2 ts-1 key "q 1 x" value "zz" []`,
			0, "an empty key and a null one look the same"},
		{"cut at the delimiter", `%p %o %K %k %s\n`,
			"0 0 1 a x\n0 1 1 b y\nz\nnot kcat\n0 3 1 d w\n",
			`0 ts-1 key "a" value "x" [] | 1 ts-1 key "b" value "y" [] | 3 ts-1 key "d" value "w" [] | not-in-file 2-2`,
			2, `a value holding "\n" is cut there`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "kcat.txt")
			os.WriteFile(file, []byte(tc.file), 0o644)
			dir := t.TempDir()
			var warns []string
			sum, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Format: tc.format, Topic: "t", Warn: func(s string) { warns = append(warns, s) }})
			if err != nil {
				t.Fatal(err)
			}
			m, rows := readRows(t, dir, catalog.TopicPartition{Topic: "t", Partition: 0})
			var got []string
			for _, r := range rows {
				var hs []string
				for _, h := range r.Headers {
					hs = append(hs, h.Key+"="+bsq(h.Value))
				}
				if r.TimestampType != catalog.TimestampUnknown || r.ProducerID != -1 {
					t.Errorf("row %d: timestamp type %s, producer %d", r.Offset, r.TimestampType, r.ProducerID)
				}
				got = append(got, fmt.Sprintf("%d ts%d key %s value %s [%s]", r.Offset, r.Timestamp, bsq(r.Key), bsq(r.Value), strings.Join(hs, " ")))
			}
			for _, l := range m.Lost {
				got = append(got, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
			}
			if g := strings.Join(got, " | "); g != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", g, tc.want)
			}
			if sum.Unmatched != tc.unmatched || len(warns) < tc.unmatched {
				t.Errorf("unmatched %d, warnings %q; want %d", sum.Unmatched, warns, tc.unmatched)
			}
			note := m.Snapshots[0].Note
			if !strings.Contains(note, tc.note) || !strings.Contains(note, tc.format) || (tc.unmatched > 0) != strings.Contains(note, "did not match the format") {
				t.Errorf("note %q", note)
			}
		})
	}
	t.Run("not this format", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "kcat.txt")
		os.WriteFile(file, []byte(`{"topic":"t","partition":0,"offset":1}`+"\n"), 0o644)
		dir := filepath.Join(t.TempDir(), "snap")
		_, err := ImportKcat(context.Background(), KcatOptions{Dir: dir, File: file, Format: `%p %o %s\n`, Topic: "t"})
		if err == nil || !strings.Contains(err.Error(), "does not match --kcat-format") {
			t.Fatalf("err %v", err)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Error("a refused import made the snapshot folder")
		}
	})
}

func bsq(b []byte) string {
	if b == nil {
		return "<null>"
	}
	return fmt.Sprintf("%q", b)
}

func FuzzKcatFormatMatch(f *testing.F) {
	f.Add(`%p %o %K %k %S %s %h\n`, []byte("0 1 1 a 2 bc h=1\n"))
	f.Add(`%p %o %s|%S\n`, []byte("0 0 a|b|3\n"))
	f.Fuzz(func(t *testing.T, format string, b []byte) {
		kf, err := ParseKcatFormat(format)
		if err != nil {
			return
		}
		for _, eof := range []bool{false, true} {
			rec, n, st := kf.match(b, eof)
			if st == matchOK {
				if n > len(b) {
					t.Fatalf("read %d of %d bytes", n, len(b))
				}
				_ = rec.row()
			}
		}
	})
}
