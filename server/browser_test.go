package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/queries"
)

// TestBrowser opens the server's pages in headless Chromium, so that what
// a browser makes of them is tested too: the CSP lets the pages' own CSS
// and script through, the SQL page's script runs a query and draws its
// rows, the charts are in the DOM. It runs when TOPICSNAP_CHROMIUM names a
// Chromium binary; `make test` sets it from scripts/chromium.sh. Screenshots
// go to testout/browser/ at the repository root.
func TestBrowser(t *testing.T) {
	bin := os.Getenv("TOPICSNAP_CHROMIUM")
	if bin == "" {
		t.Skip("TOPICSNAP_CHROMIUM is not set: `make test` runs this test (it sets TOPICSNAP_CHROMIUM=$(scripts/chromium.sh)); " +
			"or run TOPICSNAP_CHROMIUM=$(scripts/chromium.sh) go test -run Browser ./server")
	}
	shots := filepath.Join(repoRoot(t), "testout", "browser")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	nbDir := t.TempDir()
	writeFile(t, filepath.Join(nbDir, "counts.md"), countsNotebook)
	_, ts := newTestServer(t, Options{Dir: teaShopFixture(t), NotebookDirs: []string{nbDir}})
	b := browser{t: t, bin: bin, shots: shots}

	t.Run("overview", func(t *testing.T) {
		dom := b.open(t, ts.URL+"/", "overview.png")
		for _, w := range []string{topic, "app_events", `href="/notebooks/did-kafka-lose-my-event.md"`} {
			if !strings.Contains(dom, w) {
				t.Errorf("no %q in the DOM", w)
			}
		}
		if n := count(dom, `<a class="tile `); n != 2*len(queries.CheckNames) {
			t.Errorf("%d check tiles, want %d", n, 2*len(queries.CheckNames))
		}
		if n := count(dom, `<svg[^>]*aria-label="offset coverage of `); n != 2 {
			t.Errorf("%d coverage charts, want 2", n)
		}
		if n := count(dom, `<rect[^>]*class="covered"`); n == 0 {
			t.Errorf("the coverage charts have no covered ranges")
		}
	})

	t.Run("skew report", func(t *testing.T) {
		dom := b.open(t, ts.URL+q("/checks/skew", "topic", "app_events"), "check-skew.png")
		if !strings.Contains(dom, `<div class="verdict `) {
			t.Errorf("no verdict in the DOM")
		}
		if n := count(dom, `<rect[^>]*class="bar"`); n == 0 {
			t.Errorf("the skew chart has no bars")
		}
		// Column names break after their underscores, so a wide report
		// (reset's ten columns, snapshot_id last) fits its page.
		if !strings.Contains(dom, "<th>fair_<wbr>share</th>") {
			t.Errorf("the table's column names cannot break: no fair_<wbr>share header")
		}
	})

	t.Run("sql page runs its query", func(t *testing.T) {
		sql := `SELECT "partition", count(*) AS n FROM "shop.events-v2" GROUP BY ALL ORDER BY ALL`
		dom := b.open(t, ts.URL+q("/sql", "q", sql, "run", "1"), "sql.png")
		for _, w := range []string{"<th>partition</th><th>n</th>", "<tr><td>0</td><td>8</td></tr>", "<tr><td>1</td><td>8</td></tr>"} {
			if !strings.Contains(dom, w) {
				t.Errorf("no %q in the DOM: the page's script did not show the rows", w)
			}
		}
		if !regexp.MustCompile(`<span id="status"[^>]*>2 rows in \d+ ms</span>`).MatchString(dom) {
			t.Errorf("the status line does not say 2 rows")
		}
	})

	t.Run("notebook", func(t *testing.T) {
		dom := b.open(t, ts.URL+"/notebooks/did-kafka-lose-my-event.md", "notebook.png")
		for _, w := range []string{"Did Kafka lose my event?", `class="ts-bar"`, "<td>u000001</td>", "Missing offsets per partition"} {
			if !strings.Contains(dom, w) {
				t.Errorf("no %q in the DOM", w)
			}
		}
		if n := count(dom, `<table`); n < 4 {
			t.Errorf("%d tables, want at least 4", n)
		}
		// Parameter inputs are wide enough for their whole value.
		inputs := regexp.MustCompile(`<input name="[^"]*" type="text" value="([^"]*)" placeholder="([^"]*)" size="(\d+)"`).FindAllStringSubmatch(dom, -1)
		if len(inputs) == 0 {
			t.Errorf("no parameter input with a size in the DOM")
		}
		for _, in := range inputs {
			if size, _ := strconv.Atoi(in[3]); size <= len(in[1]) || size <= len(in[2]) {
				t.Errorf("the input of %q (placeholder %q) is %d characters wide: it cuts its value", in[1], in[2], size)
			}
		}
	})

	t.Run("notebook chart", func(t *testing.T) {
		dom := b.open(t, ts.URL+q("/notebooks/counts.md", "topic", "app_events"), "notebook-chart.png")
		if n := count(dom, `<svg class="chart"`); n != 1 {
			t.Errorf("%d charts, want 1", n)
		}
		if n := count(dom, `<rect [^>]*fill=`); n == 0 {
			t.Errorf("the chart has no bars")
		}
	})
}

// browser runs headless Chromium.
type browser struct {
	t     *testing.T
	bin   string
	shots string
}

// open loads url twice, each time in a fresh profile: once to dump the DOM
// after its scripts ran, once to take a 1280×1600 screenshot named shot.
// It fails the test on a CSP violation in the browser's log.
func (b browser) open(t *testing.T, url, shot string) string {
	t.Helper()
	dom, log := b.run(t, "--dump-dom", url)
	if strings.TrimSpace(dom) == "" {
		t.Fatalf("chromium dumped no DOM for %s; its log:\n%s", url, log)
	}
	path := filepath.Join(b.shots, shot)
	os.Remove(path)
	_, log2 := b.run(t, "--screenshot="+path, "--window-size=1280,1600", url)
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot of %s; chromium's log:\n%s", url, log2)
	} else {
		t.Logf("screenshot of %s: %s", url, path)
	}
	for _, l := range strings.Split(log+"\n"+log2, "\n") {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Refused to") || strings.Contains(l, "violates the following") {
			t.Errorf("the browser refused something on %s: %s", url, l)
		}
	}
	return dom
}

// run runs chromium once, bounded to 30 seconds, and returns its stdout
// and its log (stderr).
func (b browser) run(t *testing.T, args ...string) (stdout, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{
		"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=5000",
		"--enable-logging=stderr", "--v=0",
	}, args...)
	cmd := exec.CommandContext(ctx, b.bin, all...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium %s: still running after 30s; its log:\n%s", strings.Join(args, " "), tail(errb.String()))
	}
	if err != nil {
		t.Fatalf("chromium %s: %v; its log:\n%s", strings.Join(args, " "), err, tail(errb.String()))
	}
	return out.String(), errb.String()
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

func count(s, re string) int { return len(regexp.MustCompile(re).FindAllStringIndex(s, -1)) }

// repoRoot is the folder of go.mod above the test's working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			t.Fatal(fmt.Errorf("no go.mod above the working directory"))
		}
		d = up
	}
}
