package queries

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// TestFolderWideNamesAreComplete: every view, table and table macro an
// engine builds is a topic's view or one of FolderWideNames. The list is
// kept by hand (sql -c limits an engine to the topics a query names unless
// it names one of these), so a new catalog table, view or macro that is not
// added to it fails here, not in a user's one-shot query that quietly read
// only some topics' rows.
func TestFolderWideNamesAreComplete(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !e.HasCommitLog() {
		t.Fatal("the wind farm's day holds no commit log: the log views are not tried")
	}
	rows, err := e.DB().QueryContext(ctx, `SELECT DISTINCT n FROM (
		SELECT view_name AS n FROM duckdb_views() WHERE NOT internal AND NOT temporary
		UNION ALL SELECT table_name FROM duckdb_tables() WHERE NOT temporary
		UNION ALL SELECT function_name FROM duckdb_functions() WHERE function_type = 'table_macro' AND NOT internal) ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	wide := FolderWideNames()
	var topics []string
	for _, tp := range e.Topics() {
		topics = append(topics, tp.Name)
	}
	seen := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		base, _, _ := strings.Cut(n, "$")
		if slices.Contains(topics, base) {
			continue
		}
		seen[n] = true
		if !slices.Contains(wide, n) {
			t.Errorf("%s is neither a topic's view nor in FolderWideNames: add it there (queries/grouplog.go)", n)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, n := range wide {
		if !seen[n] {
			t.Errorf("FolderWideNames lists %s, which this engine did not build", n)
		}
	}
}

// TestLimitedEngineVersionsItsTopics: an engine limited to some topics
// versions the catalog by their manifests and cuts only (a stat of each of
// a whole cluster's manifests cost a one-topic check most of its time):
// another topic's commit or cut leaves its version alone, its own topic's
// commit and cut change it, and so does a cut of a folder written before
// cuts were kept by topic (its topic is known only inside).
func TestLimitedEngineVersionsItsTopics(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{Lazy: true, Topics: []string{seeds.TopicRouting}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	version := func() string {
		t.Helper()
		v, _, err := e.catalogVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	touch := func(path string) {
		t.Helper()
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
	v0 := version()
	touch(filepath.Join(dir, "topic="+seeds.TopicReadings, "partition=0", "manifest.json"))
	if v := version(); v != v0 {
		t.Errorf("another topic's manifest changed the limited engine's version")
	}
	touch(filepath.Join(dir, "topic="+seeds.TopicRouting, "partition=0", "manifest.json"))
	v1 := version()
	if v1 == v0 {
		t.Errorf("its own topic's manifest left the version as it was")
	}
	cut := func(topic string) string { return cutOf(t, dir, topic) }
	touch(cut(seeds.TopicReadings))
	if version() != v1 {
		t.Errorf("another topic's cut changed the limited engine's version")
	}
	touch(cut(seeds.TopicRouting))
	v2 := version()
	if v2 == v1 {
		t.Errorf("a cut of its own topic left the version as it was")
	}
	old := cut(seeds.TopicReadings)
	if err := os.Rename(old, filepath.Join(dir, "snapshots", filepath.Base(old))); err != nil {
		t.Fatal(err)
	}
	if version() == v2 {
		t.Errorf("a cut of the old layout (snapshots/ID.json) left the version as it was")
	}
}

// TestTopicVersion: an engine over the whole folder gives each topic a
// version of its own (the server's overview keeps a topic's tiles by
// it): a refresh after another topic's commit or cut changes the
// folder's version and leaves the topic's alone; its own manifest or cut
// changes it; so do what every topic's answers may read, the group log
// (__consumer_offsets) and a cut of the old flat layout.
func TestTopicVersion(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 0); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	later := time.Now()
	touch := func(path string) {
		t.Helper()
		later = later.Add(time.Hour)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cut := func(topic string) string { return cutOf(t, dir, topic) }
	manifest := func(topic string) string {
		return filepath.Join(dir, "topic="+topic, "partition=0", "manifest.json")
	}
	type state struct{ all, mine, other string }
	now := func() state {
		return state{e.Version(), e.TopicVersion(seeds.TopicRouting), e.TopicVersion(seeds.TopicReadings)}
	}
	s0 := now()
	if s0.mine == "" || s0.other == "" || s0.mine == s0.other {
		t.Fatalf("topic versions %q and %q: want two different, neither empty", s0.mine, s0.other)
	}
	if v := e.TopicVersion("no-such-topic"); v != "" {
		t.Errorf("a topic the folder does not hold has version %q, want none", v)
	}
	steps := []struct {
		what                string
		path                string
		allMoves, mineMoves bool
	}{
		{"another topic's manifest", manifest(seeds.TopicReadings), true, false},
		{"another topic's cut", cut(seeds.TopicReadings), true, false},
		{"its own manifest", manifest(seeds.TopicRouting), true, true},
		{"its own cut", cut(seeds.TopicRouting), true, true},
		{"the group log's manifest", manifest(seeds.TopicOffsets), true, true},
	}
	for _, st := range steps {
		before := now()
		touch(st.path)
		after := now()
		if (after.all != before.all) != st.allMoves {
			t.Errorf("%s: the folder's version moved %v, want %v", st.what, after.all != before.all, st.allMoves)
		}
		if (after.mine != before.mine) != st.mineMoves {
			t.Errorf("%s: the topic's version moved %v, want %v", st.what, after.mine != before.mine, st.mineMoves)
		}
	}
	before := now()
	old := cut(seeds.TopicReadings)
	if err := os.Rename(old, filepath.Join(dir, "snapshots", filepath.Base(old))); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if now().mine == before.mine {
		t.Errorf("a cut of the old layout (snapshots/ID.json) left every topic's version as it was")
	}
}

// cutOf is a cut of topic in the folder dir (kept by topic).
func cutOf(t *testing.T, dir, topic string) string {
	t.Helper()
	snaps, _ := filepath.Glob(filepath.Join(dir, "snapshots", "topic="+topic, "*.json"))
	if len(snaps) == 0 {
		t.Fatalf("no cut of %s in the folder", topic)
	}
	return snaps[0]
}
