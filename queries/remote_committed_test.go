package queries

import (
	"context"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestRemoteCommittedRecords: the relation lag.spark.sql joins the
// committed offsets to reads only the data files holding an offset some
// group committed on the topic at any cut (other topics' apart), filtered
// to those offsets by partition; nothing to read when no group committed
// or no file holds a committed offset; the topic's whole view without a
// topic, past maxCommittedOffsets, or when not bounded.
func TestRemoteCommittedRecords(t *testing.T) {
	snap := func(topic string, offs ...[2]int64) *catalog.ClusterSnapshot {
		g := catalog.GroupState{Group: "g"}
		for _, o := range offs {
			g.Offsets = append(g.Offsets, catalog.GroupOffset{Partition: int32(o[0]), Offset: o[1]})
		}
		return &catalog.ClusterSnapshot{Topic: topic, Groups: []catalog.GroupState{g}}
	}
	many := snap("t")
	for i := range maxCommittedOffsets + 1 {
		many.Groups[0].Offsets = append(many.Groups[0].Offsets, catalog.GroupOffset{Partition: 0, Offset: int64(i)})
	}
	manifest := func(p int32, ranges ...[2]int64) *catalog.Manifest {
		m := &catalog.Manifest{Topic: "t", Partition: p}
		for _, r := range ranges {
			m.Files = append(m.Files, catalog.FileEntry{Name: catalog.FileName(r[0], r[1]), FirstOffset: r[0], LastOffset: r[1]})
		}
		return m
	}
	files := []topicFiles{
		{name: "u", manifests: []*catalog.Manifest{{Topic: "u", Partition: 0, Files: []catalog.FileEntry{{Name: catalog.FileName(0, 99), LastOffset: 99}}}}},
		{name: "t", manifests: []*catalog.Manifest{
			manifest(0, [2]int64{0, 9}, [2]int64{10, 19}, [2]int64{20, 29}),
			manifest(1, [2]int64{0, 49}),
			manifest(2, [2]int64{0, 29}, [2]int64{30, 59}),
		}},
	}
	e := &Engine{dir: &catalog.Dir{Path: "/snap"}}
	file := func(p int32, first, last int64) string {
		return "FROM parquet.`" + e.dir.FilePath(catalog.TopicPartition{Topic: "t", Partition: p}, catalog.FileName(first, last)) + "`"
	}
	whole := `(SELECT "partition", "offset", "timestamp" FROM "t$all")`
	for _, c := range []struct {
		name    string
		snaps   []*catalog.ClusterSnapshot
		topic   string
		bounded bool
		has     []string // the relation holds each
		hasNot  []string // and none of these
		is      string   // or is exactly this
	}{
		{name: "two cuts, two groups' offsets", snaps: []*catalog.ClusterSnapshot{snap("t", [2]int64{2, 40}, [2]int64{0, 7}), snap("u", [2]int64{0, 15}), snap("t", [2]int64{0, 7}, [2]int64{0, 12})}, topic: "t", bounded: true,
			has:    []string{file(0, 0, 9), file(0, 10, 19), file(2, 30, 59), `WHERE ("partition" = 0 AND "offset" IN (7, 12)) OR ("partition" = 2 AND "offset" IN (40))`},
			hasNot: []string{file(0, 20, 29), file(1, 0, 49), file(2, 0, 29), "/snap/topic=u/", "15"}},
		{name: "an offset past every file (committed at the end)", snaps: []*catalog.ClusterSnapshot{snap("t", [2]int64{1, 50})}, topic: "t", bounded: true,
			is: `(SELECT CAST(NULL AS INT) AS "partition", CAST(NULL AS BIGINT) AS "offset", CAST(NULL AS TIMESTAMP) AS "timestamp" WHERE FALSE)`},
		{name: "no group", snaps: []*catalog.ClusterSnapshot{snap("u", [2]int64{0, 1})}, topic: "t", bounded: true,
			is: `(SELECT CAST(NULL AS INT) AS "partition", CAST(NULL AS BIGINT) AS "offset", CAST(NULL AS TIMESTAMP) AS "timestamp" WHERE FALSE)`},
		{name: "no topic", snaps: []*catalog.ClusterSnapshot{snap("t", [2]int64{0, 1})}, topic: "", bounded: true, is: whole},
		{name: "too many offsets", snaps: []*catalog.ClusterSnapshot{many}, topic: "t", bounded: true, is: whole},
		{name: "not bounded", snaps: []*catalog.ClusterSnapshot{snap("t", [2]int64{0, 1})}, topic: "t", is: whole},
	} {
		got, err := e.remoteCommittedRecords(files, c.snaps, c.topic, `"t$all"`, c.bounded)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.is != "" && got != c.is {
			t.Errorf("%s: %s, want %s", c.name, got, c.is)
		}
		for _, s := range c.has {
			if !strings.Contains(got, s) {
				t.Errorf("%s: %s does not hold %s", c.name, got, s)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(got, s) {
				t.Errorf("%s: %s holds %s", c.name, got, s)
			}
		}
	}
}

// TestRemoteWant: a statement for the remote builds what its code and
// quoted identifiers name, never less; text the lexer cannot read builds
// everything.
func TestRemoteWant(t *testing.T) {
	w := remoteWant(`SELECT o.x FROM group_offsets o JOIN "Orders$all" a ON epoch(a.t) > 0 -- files
JOIN (SELECT * FROM parquet.` + "`/snap/topic=bench/partition=0/x.parquet`" + `) p ON true JOIN ` + "`Lost_Ranges`" + ` l ON true
WHERE 'partitions' <> "x""y"`)
	for _, n := range []string{"group_offsets", "orders$all", "epoch", `x"y`, "lost_ranges"} {
		if !w.names[n] {
			t.Errorf("%s not wanted: %v", n, w.names)
		}
	}
	for _, n := range []string{"files", "partitions", "bench", "snap"} {
		if w.names[n] {
			t.Errorf("%s (in a comment, a string or a path) wanted", n)
		}
	}
	if w := remoteWant(`SELECT 'open`); !w.all {
		t.Errorf("unreadable text: %+v, want all", w)
	}
}

// statements is a Remote that keeps the statements it is sent (the
// statements' choice is under test, not Spark: TestSparkAgreesWithDuckDB
// runs them on a real server).
type statements struct{ sent []string }

func (s *statements) Dialect() string { return "spark" }
func (s *statements) Exec(_ context.Context, stmt string) error {
	s.sent = append(s.sent, stmt)
	return nil
}
func (s *statements) Query(context.Context, string) ([]string, [][]any, error) {
	return nil, nil, nil
}
func (s *statements) Literal(v any) (string, error) { return "", nil }
func (s *statements) Close() error                  { return nil }

// TestRemoteFunctionsMadeAsNamed: the remote's session gets the functions
// a statement names and those they call, in the script's order, each once.
func TestRemoteFunctionsMadeAsNamed(t *testing.T) {
	r := &statements{}
	e := &Engine{opts: Options{Remote: r}}
	made := func(names map[string]bool) []string {
		t.Helper()
		r.sent = nil
		if err := e.ensureRemoteFunctions(t.Context(), names); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, st := range r.sent {
			m := remoteFunctionRE.FindStringSubmatch(st)
			if m == nil {
				t.Fatalf("not a function: %q", st)
			}
			out = append(out, m[1])
		}
		return out
	}
	for _, c := range []struct {
		names map[string]bool
		want  string
	}{
		{map[string]bool{"group_offsets": true, "epoch": true}, "epoch"},
		{map[string]bool{"kafka_partition": true}, "tsnap_murmur2_u,kafka_partition"},
		{map[string]bool{"epoch": true, "murmur2": true}, "murmur2"},
		{map[string]bool{"files": true}, ""},
		{nil, "kafka_partition_crc32,tsnap_row_text,tsnap_blob_text"},
		{nil, ""},
	} {
		if got := strings.Join(made(c.names), ","); got != c.want {
			t.Errorf("%v: made %q, want %q", c.names, got, c.want)
		}
	}
}
