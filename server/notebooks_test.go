package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

// teaShopFixture is fixture plus the topic app_events: the tea shop
// generator's Monday for a few users (Mia, u000001, among them), as the
// shipped notebook did-kafka-lose-my-event.md expects, and its orders.csv.
func teaShopFixture(t testing.TB) string {
	t.Helper()
	dir := fixture(t)
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := seeds.TeaShop(seeds.TeaShopConfig{Users: 60, Seed: 7})
	parts := map[int32][]catalog.Row{}
	for _, e := range data.Events {
		parts[e.Partition] = append(parts[e.Partition], catalog.Row{Partition: e.Partition, Offset: int64(len(parts[e.Partition])),
			Timestamp: e.Timestamp.UnixMilli(), TimestampType: catalog.TimestampCreate, Key: e.Key, Value: e.Value})
	}
	for p, rows := range parts {
		tp := catalog.TopicPartition{Topic: seeds.TopicAppEvents, Partition: p}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "t1")
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: seeds.TopicAppEvents, Partition: p, NextOffset: fe.LastOffset + 1, Files: []catalog.FileEntry{fe}}); err != nil {
			t.Fatal(err)
		}
	}
	var csv bytes.Buffer
	if err := data.OrdersCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const countsNotebook = `---
title: Records per partition
topic: shop.events-v2
---

# Records per partition

` + "```sql chart=bar x=partition y=records\n" +
	`SELECT "partition", count(*) AS records FROM {{topic}} GROUP BY 1 ORDER BY 1
` + "```\n"

func TestNotebooks(t *testing.T) {
	dir := teaShopFixture(t)
	nbDir := filepath.Join(t.TempDir(), "team-notebooks")
	os.Mkdir(nbDir, 0o755)
	writeFile(t, filepath.Join(nbDir, "counts.md"), countsNotebook)
	writeFile(t, filepath.Join(nbDir, "notes.md"), "# Just notes\n\nno cells here\n")
	writeFile(t, filepath.Join(nbDir, "broken.md"), "# Broken\n\n```sql chart=pie\nSELECT 1\n```\n")
	// The snapshot folder's own copy of a shipped notebook wins.
	writeFile(t, filepath.Join(dir, "the-group-that-ate-six-partitions.md"), "---\ntitle: Our own group story\n---\n\n```sql\nSELECT 1 AS one\n```\n")
	// A notebook next to the folder, which no name may reach.
	writeFile(t, filepath.Join(filepath.Dir(dir), "outside.md"), "# Outside\n\n```sql\nSELECT 1\n```\n")
	s, ts := newTestServer(t, Options{Dir: dir, NotebookDirs: []string{nbDir}})

	t.Run("the overview lists them", func(t *testing.T) {
		r := get(t, ts.URL+"/")
		if r.code != 200 {
			t.Fatalf("%d %s", r.code, r.body)
		}
		for _, w := range []string{
			`href="/notebooks/did-kafka-lose-my-event.md"`, "Did Kafka lose my event?", "shipped with topicsnap", "key=u000001",
			`href="/notebooks/the-group-that-ate-six-partitions.md"`, "Our own group story", "snapshot folder",
			`href="/notebooks/counts.md"`, "Records per partition", "notebooks folder team-notebooks",
			"broken.md", "does not parse",
		} {
			if !strings.Contains(r.body, w) {
				t.Errorf("no %q in the overview", w)
			}
		}
		for _, w := range []string{"notes.md", "The group that ate six partitions"} {
			if strings.Contains(r.body, w) {
				t.Errorf("the overview shows %q", w)
			}
		}
		if csp := r.header.Get("Content-Security-Policy"); csp != contentSecurityPolicy {
			t.Errorf("overview CSP %q", csp)
		}
	})

	t.Run("both shipped notebooks, and they run with SQL off", func(t *testing.T) {
		off := false
		_, ts := newTestServer(t, Options{SQL: &off})
		r := get(t, ts.URL+"/")
		for _, w := range []string{`href="/notebooks/did-kafka-lose-my-event.md"`, `href="/notebooks/the-group-that-ate-six-partitions.md"`} {
			if !strings.Contains(r.body, w) {
				t.Errorf("no %q in the overview", w)
			}
		}
		r = get(t, ts.URL+q("/notebooks/the-group-that-ate-six-partitions.md", "topic", topic, "group", "watchers"))
		if r.code != 200 || !strings.Contains(r.body, "<td>watcher-1</td>") {
			t.Errorf("%d %s", r.code, r.body)
		}
	})

	t.Run("did Kafka lose my event", func(t *testing.T) {
		r := get(t, ts.URL+"/notebooks/did-kafka-lose-my-event.md")
		if r.code != 200 {
			t.Fatalf("%d %s", r.code, r.body)
		}
		for _, w := range []string{"<title>Did Kafka lose my event?</title>", "<table", "<td>u000001</td>", "Every record of the key",
			"Missing offsets per partition", `href="/static/notebook.css"`, `class="ts-bar"`, `value="u000001"`, `<option value="app_events">`} {
			if !strings.Contains(r.body, w) {
				t.Errorf("no %q in the page", w)
			}
		}
		if n := strings.Count(r.body, "<tr>"); n < 5 {
			t.Errorf("%d table rows", n)
		}
		// Every cell runs, the last one reading orders.csv from the folder
		// ({{dir}}), shown as the folder's base name, not a made-up text.
		if strings.Contains(r.body, "This cell failed") {
			t.Errorf("a cell failed: %s", r.body[strings.Index(r.body, "This cell failed"):][:300])
		}
		for _, w := range []string{"Orders with no order_completed event", "read_csv(&#39;…/" + filepath.Base(dir) + "&#39; || &#39;/orders.csv&#39;"} {
			if !strings.Contains(r.body, w) {
				t.Errorf("no %q in the page", w)
			}
		}
		if strings.Contains(r.body, "&#39;the snapshot folder&#39;") {
			t.Errorf("{{dir}} became a text that is no path")
		}
		if strings.Contains(r.body, dirPrefix(t)) {
			t.Errorf("the page shows a temporary path")
		}
		checkHeaders(t, r)
		checkStyleHash(t, r)
	})

	t.Run("the route takes the name without .md", func(t *testing.T) {
		if r := get(t, ts.URL+"/notebooks/did-kafka-lose-my-event"); r.code != 200 {
			t.Errorf("%d", r.code)
		}
	})

	t.Run("parameters", func(t *testing.T) {
		r := get(t, ts.URL+q("/notebooks/did-kafka-lose-my-event.md", "key", "u000002"))
		if r.code != 200 || !strings.Contains(r.body, "<td>u000002</td>") || strings.Contains(r.body, "<td>u000001</td>") {
			t.Errorf("key=u000002: %d", r.code)
		}
		// An empty value (a form field left empty) is the default.
		r = get(t, ts.URL+q("/notebooks/did-kafka-lose-my-event.md", "key", ""))
		if r.code != 200 || !strings.Contains(r.body, "<td>u000001</td>") {
			t.Errorf("key empty: %d", r.code)
		}
		// A hostile value stays a literal: no error, no rows.
		r = get(t, ts.URL+q("/notebooks/did-kafka-lose-my-event.md", "key", "x' OR 1=1 --"))
		if r.code != 200 || strings.Contains(r.body, "<td>u000001</td>") {
			t.Errorf("quoted key: %d", r.code)
		}
	})

	t.Run("a chart", func(t *testing.T) {
		r := get(t, ts.URL+"/notebooks/counts.md")
		if r.code != 200 || !strings.Contains(r.body, "<svg") || !strings.Contains(r.body, "<rect") {
			t.Fatalf("%d %s", r.code, r.body)
		}
		r = get(t, ts.URL+q("/notebooks/counts.md", "topic", "app_events"))
		if r.code != 200 || !strings.Contains(r.body, "<svg") || !strings.Contains(r.body, `<option value="shop.events-v2">`) {
			t.Errorf("topic=app_events: %d", r.code)
		}
	})

	t.Run("bad requests", func(t *testing.T) {
		cases := []struct {
			path string
			code int
			want string
		}{
			{q("/notebooks/did-kafka-lose-my-event.md", "nope", "1"), 400, "unknown parameter nope: this notebook takes key, topic"},
			{q("/notebooks/did-kafka-lose-my-event.md", "dir", "/etc"), 400, "dir is reserved"},
			{"/notebooks/did-kafka-lose-my-event.md?key=a&key=b", 400, "key is given 2 times"},
			{"/notebooks/did-kafka-lose-my-event.md?key=%zz", 400, "malformed query string"},
			{q("/notebooks/counts.md", "key", "u1"), 400, "unknown parameter key"},
			{"/notebooks/broken.md", 500, "does not parse"},
			{"/notebooks/notes.md", 404, "no notebook"},
			{"/notebooks/nope.md", 404, "no notebook"},
		}
		for _, c := range cases {
			r := get(t, ts.URL+c.path)
			if r.code != c.code || !strings.Contains(r.body, c.want) {
				t.Errorf("GET %s: %d, want %d with %q:\n%s", c.path, r.code, c.code, c.want, r.body)
			}
			if strings.Contains(r.body, dirPrefix(t)) {
				t.Errorf("GET %s shows a temporary path", c.path)
			}
		}
	})

	t.Run("no path reaches a file", func(t *testing.T) {
		base := filepath.Base(dir)
		for _, name := range []string{
			"..%2Foutside.md", "..%2F..%2Foutside.md", "..%2F" + base + "%2Fthe-group-that-ate-six-partitions.md",
			"%2Fetc%2Fpasswd", "..%2F..%2F..%2F..%2Fetc%2Fpasswd", "..%5Coutside.md", "outside.md",
			"%2E%2E%2Foutside.md", "orders.csv", "expected.csv", "server_test.go", "%2E%2E",
			"counts.md%00", url.PathEscape(filepath.Join(nbDir, "counts.md")),
		} {
			r := get(t, ts.URL+"/notebooks/"+name)
			if r.code != 404 {
				t.Errorf("GET /notebooks/%s: %d, want 404:\n%.300s", name, r.code, r.body)
			}
		}
	})

	t.Run("cached per catalog version and parameters", func(t *testing.T) {
		path := ts.URL + q("/notebooks/counts.md", "topic", "shop.events-v2")
		first := get(t, path)
		h0, m0 := s.metrics.cacheCounts("notebooks")
		second := get(t, ts.URL+"/notebooks/counts.md") // the same parameters, by default
		get(t, path)
		h1, m1 := s.metrics.cacheCounts("notebooks")
		if h1 != h0+2 || m1 != m0 || first.body != second.body {
			t.Errorf("hits %d→%d, misses %d→%d", h0, h1, m0, m1)
		}
		get(t, ts.URL+q("/notebooks/counts.md", "topic", "app_events"))
		// An edited notebook is run again.
		writeFile(t, filepath.Join(nbDir, "counts.md"), strings.Replace(countsNotebook, "title: Records per partition", "title: Records per partition, edited", 1))
		r := get(t, path)
		if _, m2 := s.metrics.cacheCounts("notebooks"); m2 != m1+1 || !strings.Contains(r.body, "edited") {
			t.Errorf("edit not seen: misses %d→%d", m1, m2)
		}
	})
}

// checkStyleHash checks that the page's CSP allows exactly its inline
// <style> block by hash, and no inline script or unsafe-inline.
func checkStyleHash(t *testing.T, r response) {
	t.Helper()
	csp := r.header.Get("Content-Security-Policy")
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(r.body)
	if m == nil {
		t.Fatalf("no <style> in the page")
	}
	sum := sha256.Sum256([]byte(m[1]))
	want := "style-src 'self' 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if !strings.Contains(csp, want+";") {
		t.Errorf("CSP %q lacks %q", csp, want)
	}
	if strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "script-src 'self';") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Count(r.body, "<style") != 1 || strings.Contains(r.body, " style=") || strings.Contains(r.body, "<script") {
		t.Errorf("the page has inline styles or scripts the CSP would block")
	}
}

func TestSQLPagePrefill(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	sql := `SELECT count(*) AS n FROM "shop.events-v2"`
	r := get(t, ts.URL+q("/sql", "q", sql, "run", "1", "format", "csv"))
	if r.code != 200 || !strings.Contains(r.body, `data-run="1"`) || !strings.Contains(r.body, "count(*) AS n FROM &#34;shop.events-v2&#34;</textarea>") ||
		!strings.Contains(r.body, `<option value="csv" selected>`) {
		t.Errorf("prefill and run: %d\n%s", r.code, r.body)
	}
	if r := get(t, ts.URL+q("/sql", "q", sql)); r.code != 200 || strings.Contains(r.body, "data-run") {
		t.Errorf("prefill only: %d", r.code)
	}
	// Sent from another site: filled, not run.
	r = do(t, "GET", ts.URL+q("/sql", "q", sql, "run", "1"), nil, map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"})
	if r.code != 200 || strings.Contains(r.body, "data-run") || !strings.Contains(r.body, "count(*) AS n") {
		t.Errorf("cross-site: %d", r.code)
	}
	if r := get(t, ts.URL+q("/sql", "q", sql, "run", "maybe")); r.code != 400 {
		t.Errorf("run=maybe: %d", r.code)
	}
	if r := get(t, ts.URL+q("/sql", "format", "xml")); r.code != 400 {
		t.Errorf("format=xml: %d", r.code)
	}
}

// Each shipped notebook runs green on the server on the folder its demo
// makes (notebook ls names it): every cell, the tea shop's read of
// orders.csv included, and the overview says what data each needs.
func TestShippedNotebooksOnTheDemoFolders(t *testing.T) {
	cases := []struct {
		name   string
		demo   string
		want   []string
		folder func(dir string) error
	}{
		{"did-kafka-lose-my-event.md", "topicsnap demo --dir DIR", []string{"<td>u000001</td>", "Orders with no order_completed event", "<svg"},
			func(dir string) error {
				_, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 300, Seed: 1})
				return err
			}},
		{"the-group-that-ate-six-partitions.md", "topicsnap demo --scenario windfarm --dir DIR", []string{seeds.IncidentGroup, "<table", "<svg"},
			func(dir string) error {
				_, err := seeds.WriteWindFarmDayFolder(t.Context(), dir, 1)
				return err
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "snaps")
			if err := c.folder(dir); err != nil {
				t.Fatal(err)
			}
			_, ts := newTestServer(t, Options{Dir: dir, QueryTimeout: 20 * time.Second})
			if r := get(t, ts.URL+"/"); !strings.Contains(r.body, "needs ") || !strings.Contains(r.body, c.demo+" makes") {
				t.Errorf("the overview does not say what %s needs", c.name)
			}
			r := get(t, ts.URL+"/notebooks/"+c.name)
			if r.code != 200 {
				t.Fatalf("%d %s", r.code, r.body)
			}
			if i := strings.Index(r.body, "This cell failed"); i >= 0 {
				t.Fatalf("a cell failed: %s", r.body[i:min(len(r.body), i+400)])
			}
			for _, w := range c.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("no %q in the page", w)
				}
			}
			if strings.Contains(r.body, dir) {
				t.Errorf("the page shows the folder's path")
			}
		})
	}
}
