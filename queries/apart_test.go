package queries

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestTopicsSQLCannotTellApart: Kafka allows topics whose names differ only
// in case ("Orders" beside "orders") and a topic named as a table the engine
// makes ("files"), while SQL names ignore case. Before, one view answered for
// both case-twins and the files table for the topic "files", silently. Now
// none of them has a view, each is named among the problems, the catalog
// tables keep their rows, a check on a case-twin answers for it (on an
// engine of the whole folder too, as on one of it alone: Options.Topics, as
// check --topic opens it), and a check on the topic named as a table refuses
// (ErrNameTaken).
func TestTopicsSQLCannotTellApart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	d := catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 10)}})
	for topic, n := range map[string]int{"Orders": 3, "files": 4, "lonely": 5} {
		tp := catalog.TopicPartition{Topic: topic}
		fe, err := d.WriteDataFile(t.Context(), tp, catalogtest.Rows(0, 0, n), "s1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: topic, Files: []catalog.FileEntry{fe}, NextOffset: int64(n)}); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, lazy := range []bool{false, true} {
		e, err := Open(ctx, dir, Options{Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		count := func(q string) (int64, error) {
			rows, err := e.Query(ctx, q)
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			var n int64
			rows.Next()
			return n, rows.Scan(&n)
		}
		for _, q := range []string{`SELECT count(*) FROM orders`, `SELECT count(*) FROM "Orders"`, `SELECT count(*) FROM "orders$all"`} {
			if n, err := count(q); err == nil {
				t.Errorf("lazy %v: %s answered %d: one view for two topics", lazy, q, n)
			}
		}
		if n, err := count(`SELECT count(*) FROM files`); err != nil || n != 4 {
			t.Errorf("lazy %v: the files table: %d files, %v; want the 4 topics' files", lazy, n, err)
		}
		if n, err := count(`SELECT count(*) FROM lonely`); err != nil || n != 5 {
			t.Errorf("lazy %v: lonely: %d, %v", lazy, n, err)
		}
		problems := strings.Join(e.Problems(), "\n")
		if !strings.Contains(problems, "topics Orders, orders differ only in case") || !strings.Contains(problems, "topic files has the name of the table files") {
			t.Errorf("lazy %v: problems do not name them:\n%s", lazy, problems)
		}
		// A case-twin is checked alone, as check --topic opens it (before,
		// the whole folder's engine refused: "check Orders on Orders: topics
		// Orders, orders differ only in case ... so none has a view", which
		// the server, the overview and notebooks answered while the command
		// gave the verdict); a topic named as a table refuses, naming the
		// check (it named the topic twice).
		for topic, n := range map[string]int64{"orders": 10, "Orders": 3} {
			r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
			if err != nil || r.Summary.Get("records") != n || r.Topic != topic {
				t.Errorf("lazy %v: check gaps on %s of the whole folder: %v, %v; want %d records", lazy, topic, r, err, n)
			}
		}
		if _, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: "files"}); !errors.Is(err, ErrNameTaken) || !strings.Contains(err.Error(), "check gaps on files: topic files has the name of the table files") {
			t.Errorf("lazy %v: check gaps on files: %v, want ErrNameTaken naming the check", lazy, err)
		}
		if _, err := e.RunCheck(ctx, "missing", CheckOptions{Topic: "orders", AgainstTopic: "Orders", Match: "key", AgainstMatch: "key"}); !errors.Is(err, ErrNameTaken) {
			t.Errorf("lazy %v: check missing on orders against Orders: %v, want ErrNameTaken (twins of each other)", lazy, err)
		}
		e.Close()
	}
	for topic, n := range map[string]int64{"orders": 10, "Orders": 3} {
		e, err := Open(ctx, dir, Options{Lazy: true, Topics: []string{topic}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
		if err != nil || r.Summary.Get("records") != n {
			t.Errorf("check gaps on %s alone: %v, %v; want %d records", topic, r, err, n)
		}
		e.Close()
	}
}

// TestQueryOfACaseTwinSaysWhy: a query naming a topic whose name differs
// from another's only in case failed with DuckDB's words alone, "Catalog
// Error: Table with name Orders does not exist! Did you mean "rewrites"?",
// in a notebook's cell and the server's answer, where the warning that
// says why is not printed beside it. Now the error says why, and its Try
// how to read the topic.
func TestQueryOfACaseTwinSaysWhy(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	d := catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 10)}})
	tp := catalog.TopicPartition{Topic: "Orders"}
	fe, err := d.WriteDataFile(t.Context(), tp, catalogtest.Rows(0, 0, 3), "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "Orders", Files: []catalog.FileEntry{fe}, NextOffset: 3}); err != nil {
		t.Fatal(err)
	}
	for _, locked := range []bool{false, true} {
		e, err := Open(t.Context(), dir, Options{Lazy: !locked, Locked: locked, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"Orders", "orders"} {
			rows, err := e.Query(t.Context(), `SELECT count(*) FROM "`+name+`"`)
			if err == nil {
				rows.Close()
				t.Fatalf("locked %v: %s answered", locked, name)
			}
			var se *SQLError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "Table with name "+name+" does not exist!: topics Orders, orders differ only in case") ||
				!strings.Contains(se.Fix, "check NAME --topic "+name+" reads it alone") || se.ExitCode() != ErrUnknownTopic.ExitCode() {
				t.Errorf("locked %v: query of %s: %v (Try: %v); want why and how", locked, name, err, se)
			}
		}
		e.Close()
	}
}
