package server

import (
	"context"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// TestOverviewShowsConfiguredChecks: with a checks file, the overview's
// tiles of a topic lead with the checks it configures, in its order, and
// run them with their options (a verdict, not "needs options"); a tile's
// link, the check page and the API give the same answer as the engine with
// the same options given by hand (what `check` prints).
func TestOverviewShowsConfiguredChecks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), dir, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	reset := queries.CheckOptions{Topic: seeds.TopicReadings, Group: seeds.IncidentGroup, ToTime: seeds.DefaultWindFarmStart, Partitions: []int32{18, 19, 20, 21, 22, 23}}
	var keep []queries.ConfiguredCheck
	for _, c := range []struct {
		name string
		o    queries.CheckOptions
	}{{"members", queries.CheckOptions{Topic: seeds.TopicReadings, Group: seeds.IncidentGroup}}, {"reset", reset}} {
		k, err := queries.ConfiguredFrom(dir, c.name, c.o)
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, k)
	}
	if err := queries.RememberChecks(dir, keep...); err != nil {
		t.Fatal(err)
	}
	e, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := e.RunCheck(context.Background(), "reset", reset)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}

	_, ts := newTestServer(t, Options{Dir: dir, QueryTimeout: 30 * time.Second})
	body := get(t, ts.URL+"/").body
	tiles := regexp.MustCompile(`<a class="tile ([a-z]+)" href="([^"]*)"[^>]*>\s*<span class="name">([a-z]+)</span>\s*<span class="verdict">([^<]*)</span>`).FindAllStringSubmatch(body, -1)
	if len(tiles) < 2 {
		t.Fatalf("no tiles in the overview:\n%s", body)
	}
	// The readings topic is the only one: its first two tiles are the
	// configured ones.
	if tiles[0][3] != "members" || tiles[0][1] != "warn" || tiles[1][3] != "reset" || tiles[1][1] != "warn" {
		t.Fatalf("first tiles: %v %v", tiles[0][1:], tiles[1][1:])
	}
	for _, tl := range tiles {
		if tl[3] == "reset" && strings.Count(body, `<span class="name">reset</span>`) != 1 {
			t.Errorf("reset has more than one tile")
		}
	}
	if !strings.Contains(body, html.EscapeString(want.Message)) {
		t.Errorf("the overview does not show reset's verdict %q", want.Message)
	}
	// The tile's link carries the options; the page and the API say the same.
	link := html.UnescapeString(tiles[1][2])
	if !strings.Contains(link, "group=") || !strings.Contains(link, "to_time=") {
		t.Errorf("reset's link %s lacks its options", link)
	}
	if page := get(t, ts.URL+link).body; !strings.Contains(page, html.EscapeString(want.Message)) {
		t.Errorf("the check page does not say %q", want.Message)
	}
	r := get(t, ts.URL+q("/api/checks/reset", "topic", seeds.TopicReadings))
	var api struct{ Status, Message string }
	if err := json.Unmarshal([]byte(r.body), &api); err != nil || api.Status != want.Status || api.Message != want.Message {
		t.Errorf("API %d %s %v, want %s %s", r.code, r.body[:min(len(r.body), 300)], err, want.Status, want.Message)
	}
}

// TestChecksFileWithSQLOff: on a server with ad-hoc SQL off, an entry
// whose option is an SQL expression is refused as the same option in a URL
// is, and the tile says so; a damaged file is a problem on the overview.
func TestChecksFileWithSQLOff(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 100, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	k, err := queries.ConfiguredFrom(dir, "duplicates", queries.CheckOptions{Topic: seeds.TopicAppEvents, ID: "value.event_id"})
	if err != nil {
		t.Fatal(err)
	}
	if err := queries.RememberChecks(dir, k); err != nil {
		t.Fatal(err)
	}
	off := false
	_, ts := newTestServer(t, Options{Dir: dir, SQL: &off, QueryTimeout: 20 * time.Second})
	body := get(t, ts.URL+"/").body
	if !strings.Contains(body, "id (from checks.json) is a SQL expression and ad-hoc SQL is off on this server") {
		t.Errorf("the duplicates tile does not say why it did not run:\n%s", body)
	}
	if r := get(t, ts.URL+q("/api/checks/duplicates", "topic", seeds.TopicAppEvents)); r.code != 400 || !strings.Contains(r.body, "checks.json") {
		t.Errorf("API with SQL off: %d %s", r.code, r.body)
	}
	if err := os.WriteFile(filepath.Join(dir, queries.ChecksFileName), []byte(`{"format_version":1,"checks":[{"check":"nope"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if body := get(t, ts.URL+"/").body; !strings.Contains(body, "checks.json") || !strings.Contains(body, "unknown check") {
		t.Errorf("a damaged checks file is not said on the overview")
	}
}

// TestChecksFileAnotherQuestion: a request that asks another question than
// the folder's entry (another file of expected keys and another match)
// takes none of the entry's options, as on the command line: before, it
// took the remembered --where and --by and failed users who had events.
func TestChecksFileAnotherQuestion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 100, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	k, err := queries.ConfiguredFrom(dir, "missing", queries.CheckOptions{Topic: seeds.TopicAppEvents, Where: "value.event_name = 'order_completed'",
		Match: "value.order_id", Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id", By: "platform"})
	if err != nil {
		t.Fatal(err)
	}
	if err := queries.RememberChecks(dir, k); err != nil {
		t.Fatal(err)
	}
	e, err := queries.Open(context.Background(), dir, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var users strings.Builder
	users.WriteString("user_id\n")
	seen := map[string]bool{}
	ob, _ := os.ReadFile(filepath.Join(dir, "orders.csv"))
	for _, line := range strings.Split(strings.TrimSpace(string(ob)), "\n")[1:] {
		if u := strings.Split(line, ",")[1]; !seen[u] {
			seen[u] = true
			users.WriteString(u + "\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "users.csv"), []byte(users.String()), 0o644)
	o := queries.CheckOptions{Topic: seeds.TopicAppEvents, Against: filepath.Join(dir, "users.csv"), AgainstKey: "user_id", Match: "value.user_id"}
	want, err := e.RunCheck(context.Background(), "missing", o)
	e.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want.Status != queries.StatusOK {
		t.Fatalf("every user of an order has an event: %s %s", want.Status, want.Message)
	}
	_, ts := newTestServer(t, Options{Dir: dir, QueryTimeout: 30 * time.Second})
	r := get(t, ts.URL+q("/api/checks/missing", "topic", seeds.TopicAppEvents, "against", "users.csv", "against_key", "user_id", "match", "value.user_id"))
	var api struct{ Status, Message string }
	if err := json.Unmarshal([]byte(r.body), &api); err != nil || api.Status != want.Status || api.Message != want.Message {
		t.Errorf("API %d %s %v, want %s %s", r.code, r.body[:min(len(r.body), 300)], err, want.Status, want.Message)
	}
}
