package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/server"
)

// TestOneAnswerEverywhere: every check, on the tea shop's and the wind
// farm's folders, gives the same status and summary through `check
// --format json`, GET /api/checks/NAME and the /checks/NAME page.
func TestOneAnswerEverywhere(t *testing.T) {
	tea := filepath.Join(t.TempDir(), "teashop")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), tea, seeds.TeaShopConfig{Users: 300, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	wind := filepath.Join(t.TempDir(), "windfarm")
	if _, err := seeds.WriteWindFarmFolder(t.Context(), wind, seeds.WindFarmConfig{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	folders := []struct {
		dir, topic string
		opts       map[string][]string // per check, option name and value pairs
	}{
		{tea, seeds.TopicAppEvents, map[string][]string{
			"duplicates": {"id", "value.event_id"},
			"skew":       {"what_if_key", "value.city"},
			// reset and members: the tea shop's cuts record no group, so
			// every group is unknown there (exit 4,
			// TestUnknownGroupIsExitFourWithDidYouMean); both are compared
			// on the wind farm's group below.
			"missing": {"where", "value.event_name = 'order_completed'", "match", "value.order_id", "against", "orders.csv", "against_key", "order_id", "by", "platform"},
		}},
		{wind, seeds.TopicReadings, map[string][]string{
			"duplicates": {"id", "value.turbine_id || value.recorded_at"},
			"missing":    {"match", "value.turbine_id", "against_topic", seeds.TopicReadings + "-backfill", "against_match", "value.turbine_id"},
			"reset":      {"group", "galewatch-writers", "to_time", "2026-07-16T11:10:00Z", "partitions", "16-19", "id", "value.turbine_id"},
			"members":    {"group", "galewatch-writers"},
		}},
	}
	for _, f := range folders {
		s, err := server.New(context.Background(), server.Options{Dir: f.dir, Addr: "127.0.0.1:0", QueryTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		for _, name := range queries.CheckNames {
			kv, ok := f.opts[name]
			if c, _ := queries.LookupCheck(name); !ok && c.Needs != nil && len(c.Needs(queries.CheckOptions{})) > 0 {
				continue // needs options this folder cannot give (see above)
			}
			args := []string{"check", name, "--dir", f.dir, "--topic", f.topic, "--format", "json"}
			params := url.Values{"topic": {f.topic}}
			for i := 0; i+1 < len(kv); i += 2 {
				op := queries.CheckOptionSet[kv[i]]
				v := kv[i+1]
				if op.Kind == queries.KindFile {
					params.Set(kv[i], v) // the server takes it relative to the folder
					v = filepath.Join(f.dir, v)
				} else {
					params.Set(kv[i], v)
				}
				args = append(args, "--"+op.FlagName(), v)
			}
			code, stdout, stderr := cli(t, args...)
			if code > 1 {
				t.Fatalf("%s %s: exit %d: %s", f.topic, name, code, stderr)
			}
			var cliDoc, apiDoc struct {
				Status  string
				Summary map[string]any
			}
			if err := json.Unmarshal([]byte(stdout), &cliDoc); err != nil {
				t.Fatalf("%s %s: %v", f.topic, name, err)
			}
			body := fetch(t, ts.URL+"/api/checks/"+name+"?"+params.Encode())
			if err := json.Unmarshal([]byte(body), &apiDoc); err != nil {
				t.Fatalf("%s %s api: %v: %s", f.topic, name, err, body)
			}
			if cliDoc.Status != apiDoc.Status || !reflect.DeepEqual(cliDoc.Summary, apiDoc.Summary) {
				t.Errorf("%s %s: the CLI says %s %v, the API %s %v", f.topic, name, cliDoc.Status, cliDoc.Summary, apiDoc.Status, apiDoc.Summary)
			}
			page := fetch(t, ts.URL+"/checks/"+name+"?"+params.Encode())
			if m := verdictRE.FindStringSubmatch(page); m == nil || m[1] != cliDoc.Status {
				t.Errorf("%s %s: the page's verdict is %v, the CLI's %s", f.topic, name, m, cliDoc.Status)
			}
			pageSummary := map[string]any{}
			for _, m := range factRE.FindAllStringSubmatch(page, -1) {
				var v any
				if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &v); err != nil {
					t.Fatalf("%s %s: page fact %s: %v", f.topic, name, m[1], err)
				}
				pageSummary[html.UnescapeString(m[1])] = v
			}
			if !reflect.DeepEqual(pageSummary, cliDoc.Summary) {
				t.Errorf("%s %s: the page's summary %v, the CLI's %v", f.topic, name, pageSummary, cliDoc.Summary)
			}
		}
		ts.Close()
		s.Close()
	}
}

var (
	verdictRE = regexp.MustCompile(`<div class="verdict ([a-z]+)">`)
	factRE    = regexp.MustCompile(`<dt>([^<]*)</dt><dd data-value="([^"]*)">`)
)

func fetch(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return string(b)
}
