package server

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/queries"
)

// TestChecksComeFromTheRegistry: /api/checks lists every registered check
// with its options; each check's page has a form field per option it
// takes; a parameter that is no option of the check is a 400 naming it.
func TestChecksComeFromTheRegistry(t *testing.T) {
	_, ts := newTestServer(t, Options{MaxRows: 700})
	r := get(t, ts.URL+"/api/checks")
	if r.code != http.StatusOK {
		t.Fatalf("/api/checks: %d %s", r.code, r.body)
	}
	var idx []struct {
		Name    string
		Options []struct {
			Name, Kind string
			Max        *float64
		}
	}
	if err := json.Unmarshal([]byte(r.body), &idx); err != nil {
		t.Fatal(err)
	}
	// limit's bound is what this server takes (--max-rows), in the index
	// and in the form: both offered 100,000 and the server refused past
	// --max-rows.
	for _, c := range idx {
		for _, o := range c.Options {
			if o.Name == "limit" && (o.Max == nil || *o.Max != 700) {
				t.Errorf("%s: limit's max is %v, the server takes 700", c.Name, o.Max)
			}
		}
	}
	if page := get(t, ts.URL+q("/checks/duplicates", "topic", topic)); !strings.Contains(page.body, `name="limit" type="number" step="1" min="1" max="700"`) {
		t.Errorf("the form's limit is not bounded by the server's 700")
	}
	if r := get(t, ts.URL+q("/api/checks/duplicates", "topic", topic, "limit", "701")); r.code != http.StatusBadRequest || !strings.Contains(r.body, "at most 700") {
		t.Errorf("limit 701: %d %s", r.code, r.body)
	}
	if len(idx) != len(queries.CheckNames) {
		t.Fatalf("index has %d checks, the registry %d", len(idx), len(queries.CheckNames))
	}
	for i, c := range queries.Checks() {
		if idx[i].Name != c.Name || len(idx[i].Options) != len(c.Options) {
			t.Errorf("index entry %d: %+v, registry %s %v", i, idx[i], c.Name, c.Options)
		}
		page := get(t, ts.URL+q("/checks/"+c.Name, "topic", topic))
		for _, o := range c.Options {
			if !strings.Contains(page.body, `name="`+o+`"`) {
				t.Errorf("the %s page has no field %s", c.Name, o)
			}
		}
	}
	for _, c := range []struct{ path, want string }{
		{q("/api/checks/gaps", "topic", topic, "id", "key"), "unknown option id: check gaps takes topic, limit"},
		{q("/api/checks/duplicates", "topic", topic, "idd", "key"), "unknown option idd"},
		{q("/api/checks/missing", "topic", topic, "match", "key"), "missing needs against or against_topic"},
		{q("/api/checks/values", "topic", topic), `"check":"values"`},
	} {
		r := get(t, ts.URL+c.path)
		if !strings.Contains(r.body, c.want) {
			t.Errorf("GET %s: %d %s, want %q", c.path, r.code, r.body, c.want)
		}
	}
}

// TestSQLBodyWhateverItsType: a JSON body sent without a JSON content type
// (curl -d) is read as JSON; an empty one says what to send.
func TestSQLBodyWhateverItsType(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	r := do(t, http.MethodPost, ts.URL+"/api/sql", strings.NewReader(`{"sql": "SELECT 41 + 1 AS x"}`),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if r.code != http.StatusOK || !strings.Contains(r.body, "42") {
		t.Errorf("JSON as a form: %d %s", r.code, r.body)
	}
	r = do(t, http.MethodPost, ts.URL+"/api/sql", strings.NewReader(`sql=SELECT+7`), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if r.code != http.StatusOK || !strings.Contains(r.body, "7") {
		t.Errorf("a form: %d %s", r.code, r.body)
	}
	r = do(t, http.MethodPost, ts.URL+"/api/sql", strings.NewReader(``), nil)
	if r.code != http.StatusBadRequest || !strings.Contains(r.body, "Content-Type: application/json") {
		t.Errorf("empty: %d %s", r.code, r.body)
	}
}

// TestOverviewNamesADamagedPartition: a damaged manifest is named on the
// overview (and the topic's other partitions are still served).
func TestOverviewNamesADamagedPartition(t *testing.T) {
	dir := fixture(t)
	if err := os.WriteFile(filepath.Join(dir, "topic="+topic, "partition=1", "manifest.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{Dir: dir})
	r := get(t, ts.URL+"/")
	if r.code != http.StatusOK || !strings.Contains(r.body, "partition 1") || !strings.Contains(r.body, "manifest damaged") {
		t.Errorf("overview: %d, no word of the damaged partition:\n%.2000s", r.code, r.body)
	}
	if strings.Contains(r.body, dir) {
		t.Errorf("the overview shows the folder's path")
	}
	if a := get(t, ts.URL+q("/api/checks/gaps", "topic", topic)); !strings.Contains(a.body, "not judged") {
		t.Errorf("gaps over a damaged partition: %s", a.body)
	}
}
