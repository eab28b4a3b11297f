package queries

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries/spark"
)

// TestSparkStatementsTogether: a check's independent statements, run
// together on Spark Connect (runAll), give the rows each gives alone, in
// the order asked; the first failing statement's error is the one
// returned, whichever finished first; and a cancelled context stops them
// all with the context's error, not a Spark error.
func TestSparkStatementsTogether(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "windfarm")
	if _, err := seeds.WriteWindFarmFolder(ctx, dir, seeds.WindFarmConfig{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const topic = "readings"
	d := views(topic)
	d.NoTimestamp = e.noTimestamp()
	from := e.firstCurrentCut(topic)
	ss := []stmt{
		{"lag", d, []any{topic, from}},
		{"lag_members", d, []any{topic}},
		{"lag_unread", d, []any{topic}},
		{"lag_unowned", d, []any{topic, from}},
		{"gaps_partitions", d, nil},
		{"skew_keys", d, []any{10}},
	}
	together, err := e.runAll(ctx, ss...)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range ss {
		alone, err := e.run(ctx, st.name, st.d, st.args...)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(printedSorted(together[i]), printedSorted(alone)) {
			t.Errorf("%s together: %d rows %v; alone: %d rows %v", st.name, len(together[i]), together[i], len(alone), alone)
		}
	}
	if len(together[0]) == 0 || len(together[1]) == 0 {
		t.Fatalf("lag %d rows, lag_members %d rows: the wind farm's group should give both", len(together[0]), len(together[1]))
	}

	// A statement Spark refuses (its argument is no partition count) among
	// good ones: its error, named, whatever the others did.
	bad := stmt{"skew", d, []any{topic, "not a number"}}
	_, err = e.runAll(ctx, ss[0], bad, ss[4])
	var se *spark.Error
	if !errors.As(err, &se) {
		t.Fatalf("runAll with a failing statement: %v, want Spark's error for it", err)
	}

	// Cancelled while they run: the context's error, at once.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err = e.runAll(cctx, ss...)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("runAll cancelled: %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("runAll cancelled took %v", took)
	}
}

// printedSorted orders rows by their printed form: Spark gives rows of a
// statement without an ORDER BY in any order.
func printedSorted(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	sort.Strings(out)
	return out
}
