package queries

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/jsonbound"
	"github.com/topicsnap/topicsnap/queries/hostile"
)

var (
	fuzzOnce sync.Once
	fuzzEng  *Engine
	fuzzDir  string
)

func objects(t *testing.T, e *Engine) string {
	rows, err := e.DB().QueryContext(context.Background(), `SELECT table_name FROM information_schema.tables ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	return strings.Join(names, ",")
}

func listDir(dir string) string {
	var out []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { out = append(out, p); return nil })
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// FuzzCheckExpressions: whatever a user puts in any expression option (--id,
// --by, --what-if-key, --time, --event-time, --match, --where,
// --against-match, --against-where), a check either refuses it or answers;
// it never changes the database or a byte of the folder.
func FuzzCheckExpressions(f *testing.F) {
	for _, s := range []string{"value.event_id", "key", "1", "value.order.total + 1", `"offset"`,
		"1) FROM files; DROP TABLE files; --", "(SELECT count(*) FROM read_csv('/etc/passwd'))", "1; COPY files TO 'x.csv'",
		"'a'; ATTACH 'x.db'", "/* */ 1", "'", `"`, "$1", "?", "getenv('HOME')", "(SELECT 1 FROM files)",
		"1 /*\nCOPY (SELECT 42 AS x) TO 'pwned.csv'; --'*/", "current_setting('temp_directory')", "$$a$$", "E'\\''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		fuzzOnce.Do(func() {
			var err error
			// Not t.TempDir: the folder must outlive this first input.
			if fuzzDir, err = os.MkdirTemp("", "topicsnap-fuzz-"); err != nil {
				t.Fatal(err)
			}
			fixtureAt(t, fuzzDir)
			if fuzzEng, err = Open(context.Background(), fuzzDir, Options{}); err != nil {
				t.Fatal(err)
			}
		})
		before, files := objects(t, fuzzEng), hostile.FolderHash(t, fuzzDir)
		for _, opt := range expressionOptions {
			o := CheckOptions{Topic: "shop.events-v2"}
			opt.set(&o, expr)
			fuzzEng.RunCheck(context.Background(), opt.check, o)
		}
		// The engine still answers from the folder.
		var n int
		if err := fuzzEng.DB().QueryRowContext(context.Background(), `SELECT count(*) FROM "shop.events-v2"`).Scan(&n); err != nil || n != 10 {
			t.Fatalf("after %q the topic reads %d rows: %v", expr, n, err)
		}
		if after := objects(t, fuzzEng); after != before {
			t.Fatalf("expression %q changed the database: %s -> %s", expr, before, after)
		}
		if after := hostile.FolderHash(t, fuzzDir); after != files {
			t.Fatalf("expression %q changed the folder", expr)
		}
	})
}

// FuzzJSONInference: any value bytes (and the same bytes as keys) survive
// byte for byte in value_raw and read without error in value, whether or
// not the topic is inferred as JSON, past jsonbound's bounds with NULL
// fields; the checks over them answer.
func FuzzJSONInference(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":"x","b":[1,2]}`), []byte("not json"))
	f.Add([]byte(`{"a":{"b":{"c":null}}}`), []byte(`{"a":1e400}`), []byte{0xff, 0xfe})
	f.Add([]byte(`{"":1,"\"":2}`), []byte(`[1,2]`), []byte(`{"a":1,"a":2}`))
	// Past jsonbound's bounds: json_group_structure of the first killed
	// the process when inference saw it.
	f.Add([]byte(strings.Repeat(`{"a":`, 20_000)+"1"+strings.Repeat("}", 20_000)), []byte(`{"a":1}`), []byte(strings.Repeat("[", 300)+strings.Repeat("]", 300)))
	f.Add([]byte(`{"a":1}`), []byte(`{"a":`+strings.Repeat("[", jsonbound.MaxDepth)+strings.Repeat("]", jsonbound.MaxDepth)+`}`), []byte(`{"b":"`+strings.Repeat("{[", 5000)+`"}`))
	f.Fuzz(func(t *testing.T, v1, v2, v3 []byte) {
		dir := t.TempDir()
		d, _ := catalog.Create(dir)
		tp := catalog.TopicPartition{Topic: "j", Partition: 0}
		vals := [][]byte{v1, v2, v3}
		var rows []catalog.Row
		for i, v := range vals {
			// The key is hostile too: the value's bytes again.
			rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Key: v, Value: v})
		}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s")
		if err != nil {
			t.Fatal(err)
		}
		d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "j", NextOffset: 3, Files: []catalog.FileEntry{fe}})
		e, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("open over values %q %q %q: %v", v1, v2, v3, err)
		}
		defer e.Close()
		r, err := e.DB().QueryContext(context.Background(), `SELECT value, value_raw FROM "j" ORDER BY "offset"`)
		if err != nil {
			t.Fatalf("query over values %q %q %q: %v", v1, v2, v3, err)
		}
		defer r.Close()
		i := 0
		for r.Next() {
			var val any
			var raw []byte
			if err := r.Scan(&val, &raw); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, vals[i]) || (raw == nil) != (vals[i] == nil) {
				t.Fatalf("value %d changed: %q -> %q", i, vals[i], raw)
			}
			if tp, _ := e.Topic("j"); tp.JSON && jsonbound.Check(vals[i]) != "" && val != nil {
				t.Fatalf("value %d is past a bound (%s) but its fields were read", i, jsonbound.Check(vals[i]))
			}
			i++
		}
		if err := r.Err(); err != nil {
			t.Fatalf("read values %q %q %q: %v", v1, v2, v3, err)
		}
		// The checks over the values and keys answer.
		for _, c := range []struct {
			name string
			o    CheckOptions
		}{
			{"values", CheckOptions{Topic: "j"}},
			{"duplicates", CheckOptions{Topic: "j", ID: "value_raw"}},
			{"keys", CheckOptions{Topic: "j"}},
		} {
			if _, err := e.RunCheck(context.Background(), c.name, c.o); err != nil {
				t.Fatalf("check %s over values %q %q %q: %v", c.name, v1, v2, v3, err)
			}
		}
	})
}
