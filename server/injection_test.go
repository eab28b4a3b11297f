package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/queries/hostile"
)

// exprParams are the expression options of each check, as query
// parameters, with what the check needs besides to reach them.
var exprParams = []struct {
	check, param string
	extra        []string
}{
	{"duplicates", "id", nil},
	{"duplicates", "by", nil},
	{"skew", "what_if_key", nil},
	{"order", "time", nil},
	{"freshness", "event_time", nil},
	{"missing", "match", []string{"against_topic", topic, "against_match", "value.event_id"}},
	{"missing", "where", []string{"match", "value.event_id", "against_topic", topic, "against_match", "value.event_id"}},
	{"missing", "against_match", []string{"match", "value.event_id", "against_topic", topic}},
	{"missing", "against_where", []string{"match", "value.event_id", "against_topic", topic, "against_match", "value.event_id"}},
	{"missing", "by", []string{"match", "value.event_id", "against_topic", topic, "against_match", "value.event_id"}},
}

// TestHostileCheckParameters sends every hostile text in every expression
// parameter of every check, to the JSON API and to the HTML page: each is a
// 400 that says why, and the folder is byte for byte what it was, with
// nothing new beside it.
func TestHostileCheckParameters(t *testing.T) {
	dir := fixture(t)
	_, ts := newTestServer(t, Options{Dir: dir})
	before, parent := hostile.FolderHash(t, dir), listNames(t, filepath.Dir(dir))
	for _, attack := range hostile.Expressions(dir) {
		for _, p := range exprParams {
			kv := append([]string{"topic", topic, p.param, attack}, p.extra...)
			for _, route := range []string{"/api/checks/", "/checks/"} {
				r := get(t, ts.URL+q(route+p.check, kv...))
				if strings.TrimSpace(attack) == "" {
					continue // an empty parameter is no parameter
				}
				if r.code != http.StatusBadRequest {
					t.Errorf("%s%s %s=%q: %d, want 400: %.200s", route, p.check, p.param, attack, r.code, r.body)
				}
			}
		}
	}
	// The report's payload reads as the constant 1: answered, harmlessly.
	payload := "1 /*\nCOPY (SELECT 42 AS x) TO '" + dir + "/pwned.csv'; --'*/"
	for _, p := range exprParams {
		kv := append([]string{"topic", topic, p.param, payload}, p.extra...)
		get(t, ts.URL+q("/api/checks/"+p.check, kv...))
		get(t, ts.URL+q("/checks/"+p.check, kv...))
	}
	// Notebook parameters become quoted literals and identifiers, and the
	// cells run on the locked engine: a hostile value is data.
	for _, attack := range hostile.Expressions(dir)[:16] {
		for _, param := range []string{"topic", "key"} {
			r := get(t, ts.URL+q("/notebooks/did-kafka-lose-my-event", param, attack))
			if r.code >= 500 {
				t.Errorf("notebook %s=%q: %d: %.200s", param, attack, r.code, r.body)
			}
		}
	}
	if after := hostile.FolderHash(t, dir); after != before {
		t.Errorf("the folder changed:\n%s\n---\n%s", before, after)
	}
	if after := listNames(t, filepath.Dir(dir)); after != parent {
		t.Errorf("something was written beside the folder: %s -> %s", parent, after)
	}
	// DuckDB is in this process: its peak memory over every attack stays
	// far under the host's (the engine's memory_limit is 1 GB).
	if peak := peakRSS(t); peak > 1536<<20 {
		t.Errorf("peak RSS %d MiB over the hostile requests", peak>>20)
	}
}

// peakRSS is this process's peak resident memory (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatalf("read peak memory: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestSQLDisclosesNothing: /api/sql answers the topic views and catalog
// tables, not DuckDB's settings, view definitions or files by path.
func TestSQLDisclosesNothing(t *testing.T) {
	dir := fixture(t)
	_, ts := newTestServer(t, Options{Dir: dir})
	for _, stmt := range []string{
		`SELECT current_setting('allowed_directories')`,
		`SELECT current_setting('temp_directory')`,
		`SELECT * FROM pg_catalog.pg_settings`,
		`SELECT sql FROM information_schema.views`,
		`FROM duckdb_databases`,
		`SELECT * FROM duckdb_views`,
		`SELECT * FROM 'topicsnap.json'`,
		`SELECT * FROM '` + dir + `/snapshots/s1.json'`,
		`SELECT * FROM '` + dir + `/expected.csv'`,
		`SELECT pg_get_viewdef('` + topic + `')`,
		`WITH pg_settings AS (SELECT 1) SELECT * FROM (SELECT 1), pg_settings`,
	} {
		r := do(t, http.MethodPost, ts.URL+"/api/sql", strings.NewReader(`{"sql": `+jsonString(stmt)+`}`),
			map[string]string{"Content-Type": "application/json"})
		if r.code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400: %.300s", stmt, r.code, r.body)
		}
		if strings.Contains(r.body, dir) {
			t.Errorf("%s: the answer names the folder's path: %.300s", stmt, r.body)
		}
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func listNames(t *testing.T, dir string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(m, "\n")
}
