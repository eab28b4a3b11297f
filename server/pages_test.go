package server

import (
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

var (
	factRe     = regexp.MustCompile(`<dt>([^<]+)</dt><dd data-value="([^"]*)">([^<]*)</dd>`)
	tableRe    = regexp.MustCompile(`(?s)<h2>([^<]*)</h2>\s*<div class="scroll">\s*<table>\s*<thead>(.*?)</thead>\s*<tbody>(.*?)</tbody>`)
	rowRe      = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	emptyH2Re  = regexp.MustCompile(`(?s)<h2>[^<]*</h2>\s*</section>`)
	floatRe    = regexp.MustCompile(`>[^<]*\d\.\d+e[+-]\d+[^<]*<|>\d+\.\d{5,}<`)
	durationRe = regexp.MustCompile(`^(NULL|0s|\d+ms|\d+(\.\d)?s|\d+m \d+s|\d+h \d+m|[\d,]+d \d+h)$`)
	shareRe    = regexp.MustCompile(`^(NULL|<?\d+(\.\d+)?%)$`)
)

// The check pages read as a person reads: counts with thousands
// separators, durations as durations, shares as percentages, no heading
// over nothing, no table repeating another's rows, and a freshness chart
// with a row per partition and the silent stretches marked, for 6
// partitions (the tea shop) as for 24 (the wind farm).
func TestCheckPagesRead(t *testing.T) {
	tea := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), tea, seeds.TeaShopConfig{Users: 300, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	wind := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), wind, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	folders := []struct {
		dir, topic string
		partitions int
		pages      []string
	}{
		{tea, seeds.TopicAppEvents, 6, []string{"gaps", "freshness", "skew", "lag", "keys", "order", q("duplicates", "id", "value.event_id")}},
		{wind, seeds.TopicReadings, 24, []string{"gaps", "freshness", "skew", "lag", "keys"}},
	}
	// Cells wrap between words only: a long word is broken only when it
	// cannot fit a line of its own (break-word), never anywhere to squeeze
	// a column (anywhere, break-all).
	_, ts := newTestServer(t, Options{Dir: tea})
	css := get(t, ts.URL+"/static/style.css").body
	for _, bad := range []string{"overflow-wrap: anywhere", "word-break: break-all"} {
		if strings.Contains(css, bad) {
			t.Errorf("style.css breaks words mid-word: %s", bad)
		}
	}
	if !strings.Contains(css, "th, td {") || !strings.Contains(css, "overflow-wrap: break-word") {
		t.Errorf("style.css does not say how cells wrap")
	}
	for _, f := range folders {
		_, ts := newTestServer(t, Options{Dir: f.dir, QueryTimeout: 30 * time.Second})
		for _, page := range f.pages {
			t.Run(fmt.Sprintf("%d partitions %s", f.partitions, page), func(t *testing.T) {
				u := ts.URL + "/checks/" + page
				if strings.Contains(u, "?") {
					u += "&topic=" + f.topic
				} else {
					u += "?topic=" + f.topic
				}
				r := get(t, u)
				if r.code != 200 {
					t.Fatalf("%d %s", r.code, r.body)
				}
				checkPageReads(t, r.body)
				if strings.HasPrefix(page, "freshness") {
					if n := strings.Count(r.body, `text-anchor="end" class="label">p`); n != f.partitions {
						t.Errorf("the heat strip has %d rows, want one per partition (%d)", n, f.partitions)
					}
					if !strings.Contains(r.body, `class="silence"><title>partition `) {
						t.Errorf("no silent stretch is marked")
					}
					if strings.Contains(r.body, "<polyline") {
						t.Errorf("a line per partition")
					}
				}
			})
		}
	}
}

// The membership history page shows committed offsets as numbers.
func TestHistoryPageShowsOffsets(t *testing.T) {
	wind := filepath.Join(t.TempDir(), "wind")
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), wind, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, Options{Dir: wind, QueryTimeout: 30 * time.Second})
	r := get(t, ts.URL+q("/history", "topic", seeds.TopicReadings, "group", seeds.IncidentGroup))
	if r.code != 200 {
		t.Fatalf("%d %s", r.code, r.body)
	}
	cells := regexp.MustCompile(`<td class="num">([^<]*)</td></tr>`).FindAllStringSubmatch(r.body, -1)
	if len(cells) == 0 {
		t.Fatalf("no runs in %s", r.body)
	}
	for _, c := range cells {
		if !regexp.MustCompile(`^\d*$`).MatchString(c[1]) {
			t.Fatalf("committed to %q: not an offset", c[1])
		}
	}
}

func checkPageReads(t *testing.T, body string) {
	t.Helper()
	main := body[strings.Index(body, "<main"):]
	for _, m := range factRe.FindAllStringSubmatch(main, -1) {
		key, raw, shown := m[1], m[2], html.UnescapeString(m[3])
		switch {
		case strings.HasSuffix(key, "_seconds"):
			if !durationRe.MatchString(shown) {
				t.Errorf("%s = %q (raw %s): not a duration", key, shown, raw)
			}
		case strings.HasSuffix(key, "share"):
			if !shareRe.MatchString(shown) {
				t.Errorf("%s = %q (raw %s): not a percentage", key, shown, raw)
			}
		case regexp.MustCompile(`^\d{4,}$`).MatchString(raw):
			if !strings.Contains(shown, ",") {
				t.Errorf("%s = %q (raw %s): no thousands separator", key, shown, raw)
			}
		}
	}
	if m := floatRe.FindString(main); m != "" {
		t.Errorf("a raw float on the page: %q", m)
	}
	if m := emptyH2Re.FindString(main); m != "" {
		t.Errorf("a heading over nothing: %q", m)
	}
	seen := map[string]string{}
	for _, tm := range tableRe.FindAllStringSubmatch(main, -1) {
		title, head, rows := tm[1], tm[2], rowRe.FindAllStringSubmatch(tm[3], -1)
		if len(rows) == 0 {
			t.Errorf("table %q has no rows", title)
		}
		cols := strings.Split(strings.Trim(head, "<>tr/h"), "</th><th>")
		for ci, c := range cols {
			c = strings.TrimPrefix(strings.TrimSuffix(c, "</th></tr"), "tr><th>")
			for _, row := range rows {
				cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(row[1], "<td>"), "</td>"), "</td><td>")
				if ci >= len(cells) {
					continue
				}
				v := html.UnescapeString(cells[ci])
				switch {
				case strings.HasSuffix(c, "seconds") || strings.HasPrefix(c, "seconds"):
					if v != "" && !durationRe.MatchString(v) {
						t.Errorf("table %q column %s: %q is not a duration", title, c, v)
					}
				case strings.HasSuffix(c, "share"):
					if v != "" && !shareRe.MatchString(v) {
						t.Errorf("table %q column %s: %q is not a percentage", title, c, v)
					}
				case (c == "records" || c == "bytes") && regexp.MustCompile(`^\d{4,}$`).MatchString(v):
					t.Errorf("table %q column %s: %q has no thousands separator", title, c, v)
				}
			}
		}
		// A row is its non-empty values, in any order and column, without
		// a kind: the same record in two tables however each lays it out.
		for _, row := range rows {
			var vals []string
			for _, c := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(row[1], "<td>"), "</td>"), "</td><td>") {
				if c != "" && c != "top_key" && c != "member" && c != "partition" {
					vals = append(vals, c)
				}
			}
			sort.Strings(vals)
			sig := strings.Join(vals, "\x00")
			if other, ok := seen[sig]; ok && other != title {
				t.Errorf("tables %q and %q repeat the row %s", other, title, row[1])
				break
			}
			seen[sig] = title
		}
	}
}

// TestFormBoundsAreTheOptions: a number's input is bounded as Option.Set
// bounds it, from the registry, never a bound written in the template.
func TestFormBoundsAreTheOptions(t *testing.T) {
	for name, op := range queries.CheckOptionSet {
		p := paramOf(op)
		switch op.Kind {
		case queries.KindNumber, queries.KindInt:
			if p.Min != strconv.FormatFloat(op.Min, 'f', -1, 64) || p.Max != strconv.FormatFloat(op.Max, 'f', -1, 64) {
				t.Errorf("%s: form bounds %q..%q, option bounds %v..%v", name, p.Min, p.Max, op.Min, op.Max)
			}
		default:
			if p.Min != "" || p.Max != "" {
				t.Errorf("%s (%s): bounds %q..%q on an input that is no number", name, op.Kind, p.Min, p.Max)
			}
		}
	}
	hot := paramOf(queries.CheckOptionSet["hot"])
	if hot.Min != "1" {
		t.Errorf("hot's form minimum is %q: a partition is hot at 1x its fair share at least", hot.Min)
	}
}
