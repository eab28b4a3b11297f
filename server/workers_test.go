package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// The test binary is its own query worker: started with workerArg as its
// first argument it serves as one (with the test hooks of testHooks), and
// with inProcessArg it runs one statement in process, for the tests that
// show what a worker saves us from.
const (
	workerArg    = "topicsnap-test-serve-worker"
	inProcessArg = "topicsnap-test-in-process"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case workerArg:
			if err := serveWorker(context.Background(), os.Stdin, os.Stdout, os.Stderr, testHooks); err != nil {
				os.Exit(1)
			}
			os.Exit(0)
		case inProcessArg:
			os.Exit(runInProcess(os.Args[2], os.Args[3]))
		}
	}
	os.Exit(m.Run())
}

// testHooks lets a test make a worker misbehave in ways no statement we
// know of does today: X-Test-Crash kills it with SIGSEGV, X-Test-Hang
// makes it ignore its request for good, X-Test-Sleep delays the answer.
func testHooks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Crash") != "" {
			syscall.Kill(os.Getpid(), syscall.SIGSEGV)
			select {}
		}
		if r.Header.Get("X-Test-Hang") != "" {
			select {}
		}
		if d, err := time.ParseDuration(r.Header.Get("X-Test-Sleep")); err == nil {
			time.Sleep(d)
		}
		next.ServeHTTP(w, r)
	})
}

// runInProcess runs stmt on the engine of an in-process server over dir,
// past the guard, and prints the outcome: the child's way of showing that
// a statement DuckDB crashes on takes the whole process down when there
// are no workers.
func runInProcess(dir, stmt string) int {
	s, err := New(context.Background(), Options{Dir: dir, Addr: "127.0.0.1:0", QueryTimeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	defer s.Close()
	// Straight to DuckDB, past the guard (which refuses json_structure):
	// what a statement the guard does not know to refuse does.
	var out string
	err = s.engine.DB().QueryRowContext(context.Background(), stmt).Scan(&out)
	fmt.Println(err, len(out))
	return 0
}

// deepJSON is a statement that overflows DuckDB's stack: the JSON
// parser behind json_structure recurses once per level of a value nested
// 100,000 arrays deep, built by DuckDB itself so the statement is short.
const deepJSON = `SELECT json_structure(repeat('[', 100000) || repeat(']', 100000)) AS s`

// newWorkerServer serves a fixture folder through two worker processes
// (this test binary).
func newWorkerServer(t *testing.T, o Options) (*Server, *httptest.Server) {
	t.Helper()
	if o.Workers == 0 {
		o.Workers = 2
	}
	o.WorkerCommand = []string{os.Args[0], workerArg}
	return newTestServer(t, o)
}

func sqlBody(stmt string) *strings.Reader {
	return strings.NewReader(`{"sql":` + jsonString(stmt) + `}`)
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

// alive tells whether a process exists (and is not a zombie we reaped).
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// TestDeepJSONCrashesInProcess is the premise of the workers: without
// them, deepJSON kills the process that serves (SIGSEGV), so nothing
// answers. It runs in a child process.
func TestDeepJSONCrashesInProcess(t *testing.T) {
	cmd := exec.Command(os.Args[0], inProcessArg, fixture(t), deepJSON)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("DuckDB answers deepJSON in process now (%v): %.200s; find another statement it crashes on for this premise", err, out)
	}
	// Go's runtime turns the SIGSEGV in DuckDB into exit status 2.
	if !strings.Contains(string(out), "SIGSEGV: segmentation violation") || ee.ExitCode() == 0 {
		t.Fatalf("in-process child: %v, want death by SIGSEGV\n%.500s", err, out)
	}
	t.Logf("in process, deepJSON ends the process: %v, %s", err, strings.SplitN(string(out), "\n", 2)[0])
}

// A statement that crashes its worker costs that request a 502 and a clear
// message; a request running on the other worker meanwhile is answered,
// and so is every request after, on a worker started again.
func TestWorkerCrashCostsOneRequest(t *testing.T) {
	s, ts := newWorkerServer(t, Options{})
	cases := []struct {
		name    string
		method  string
		path    string
		body    string
		header  map[string]string
		refused bool
	}{
		// The statements DuckDB is known to crash on are refused by the
		// guard's allow-list before they reach a worker (400, no restart);
		// a crash the guard does not foresee is the test hook's SIGSEGV.
		{"deep JSON in /api/sql", http.MethodPost, "/api/sql", deepJSON, nil, true},
		{"deep JSON in json_group_structure", http.MethodPost, "/api/sql",
			`SELECT json_group_structure(v::JSON) FROM (SELECT repeat('[', 100000) || repeat(']', 100000) AS v)`, nil, true},
		{"deep JSON in a check's expression option", http.MethodGet,
			q("/checks/duplicates", "topic", topic, "id", `json_structure(repeat('[', 100000) || repeat(']', 100000))`), "", nil, true},
		{"deep JSON in the check API", http.MethodGet,
			q("/api/checks/duplicates", "topic", topic, "id", `json_structure(repeat('[', 100000) || repeat(']', 100000))`), "", nil, true},
		{"a worker killed by SIGSEGV", http.MethodPost, "/api/sql", "SELECT 1", map[string]string{"X-Test-Crash": "1"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			starts := s.pool.started.Load()
			// A request on the other worker, running while the crash happens.
			var wg sync.WaitGroup
			var other response
			wg.Add(1)
			go func() {
				defer wg.Done()
				other = do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 41 + 1 AS answer"), map[string]string{"Content-Type": "application/json", "X-Test-Sleep": "700ms"})
			}()
			time.Sleep(100 * time.Millisecond) // the sleeper takes its worker first
			h := map[string]string{"Content-Type": "application/json"}
			for k, v := range c.header {
				h[k] = v
			}
			var body *strings.Reader
			if c.body != "" {
				body = sqlBody(c.body)
			} else {
				body = strings.NewReader("")
			}
			start := time.Now()
			r := do(t, c.method, ts.URL+c.path, body, h)
			took := time.Since(start)
			if c.refused {
				wg.Wait()
				if r.code != http.StatusBadRequest || !strings.Contains(r.body, "not allowed") {
					t.Errorf("%d %s, want 400: json_structure is not on the allow-list", r.code, r.body)
				}
				if got := s.pool.started.Load(); got != starts {
					t.Errorf("workers started: %d more, want none", got-starts)
				}
				if other.code != http.StatusOK {
					t.Errorf("request on the other worker: %d %s", other.code, other.body)
				}
				return
			}
			// Go's runtime says "SIGSEGV: segmentation violation" when the
			// fault is on a thread it can handle, the kernel "signal:
			// segmentation fault" when DuckDB's own thread's stack is gone.
			if r.code != http.StatusBadGateway || !strings.Contains(r.body, "the query engine crashed on this request") || !strings.Contains(r.body, "segmentation") {
				t.Errorf("crashing request: %d %s, want 502 naming the crash", r.code, r.body)
			}
			t.Logf("crash answered in %s: %d %s", took.Round(time.Millisecond), r.code, strings.TrimSpace(r.body))
			wg.Wait()
			if other.code != http.StatusOK || !strings.Contains(other.body, `"answer":42`) {
				t.Errorf("request on the other worker: %d %s", other.code, other.body)
			}
			for i := range 3 {
				r := do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 6 * 7 AS answer"), jsonHeader)
				if r.code != http.StatusOK || !strings.Contains(r.body, `"answer":42`) {
					t.Errorf("request %d after the crash: %d %s", i, r.code, r.body)
				}
			}
			if got := s.pool.started.Load(); got != starts+1 {
				t.Errorf("workers started: %d more, want 1 (the crashed one's replacement)", got-starts)
			}
		})
	}
}

// A statement that takes more memory than a worker may hold is stopped
// before the worker reaches the cap, within the deadline, with 503; the
// next request is answered.
func TestWorkerMemoryCap(t *testing.T) {
	const capBytes = 1 << 30
	s, ts := newWorkerServer(t, Options{WorkerMemory: capBytes, QueryTimeout: 10 * time.Second})
	for _, path := range []string{"/api/sql", q("/api/checks/duplicates", "topic", topic, "id", "len(range(0, 300000000))")} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			var r response
			if path == "/api/sql" {
				r = do(t, http.MethodPost, ts.URL+path, sqlBody("SELECT len(range(0, 300000000)) AS n"), jsonHeader)
			} else {
				r = get(t, ts.URL+path)
			}
			took := time.Since(start)
			peak := s.pool.lastKillPeak.Swap(0)
			t.Logf("answered in %s: %d %s; worker's peak resident memory %d MiB (cap %d MiB)", took.Round(time.Millisecond), r.code, strings.TrimSpace(r.body), peak>>20, capBytes>>20)
			if r.code != http.StatusServiceUnavailable || !strings.Contains(r.body, "more memory than a query worker may hold (1 GiB)") {
				t.Errorf("%d %s, want 503 naming the cap", r.code, r.body)
			}
			if took > s.budget("POST /api/sql") {
				t.Errorf("answered in %s, past the budget %s", took, s.budget("POST /api/sql"))
			}
			if peak <= 0 || peak >= capBytes {
				t.Errorf("peak resident memory %d bytes, want under the cap %d", peak, capBytes)
			}
			r = do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 6 * 7 AS answer"), jsonHeader)
			if r.code != http.StatusOK || !strings.Contains(r.body, `"answer":42`) {
				t.Errorf("next request: %d %s", r.code, r.body)
			}
		})
	}
}

// Past the deadline: a statement DuckDB interrupts is answered 408 by its
// worker, which goes on serving; a worker that does not answer at all is
// killed at the request's budget, 408, and replaced. The next request is
// answered either way.
func TestWorkerDeadline(t *testing.T) {
	const timeout = time.Second
	s, ts := newWorkerServer(t, Options{QueryTimeout: timeout})
	cases := []struct {
		name     string
		stmt     string
		header   map[string]string
		restarts int64
	}{
		{"DuckDB interrupts the statement", "SELECT count(*) FROM range(0, 1000000000000) a", nil, 0},
		{"the worker does not answer", "SELECT 1", map[string]string{"X-Test-Hang": "1"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			starts := s.pool.started.Load()
			h := map[string]string{"Content-Type": "application/json"}
			for k, v := range c.header {
				h[k] = v
			}
			start := time.Now()
			r := do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody(c.stmt), h)
			took := time.Since(start)
			t.Logf("answered in %s: %d %s", took.Round(time.Millisecond), r.code, strings.TrimSpace(r.body))
			if r.code != http.StatusRequestTimeout || !strings.Contains(r.body, "timeout") {
				t.Errorf("%d %s, want 408 naming the timeout", r.code, r.body)
			}
			if budget := s.budget("POST /api/sql"); took < timeout || took > budget+time.Second {
				t.Errorf("answered in %s, want between the timeout %s and the budget %s", took, timeout, budget)
			}
			for range 4 { // more requests than workers: each is served
				r = do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 6 * 7 AS answer"), jsonHeader)
				if r.code != http.StatusOK || !strings.Contains(r.body, `"answer":42`) {
					t.Errorf("next request: %d %s", r.code, r.body)
				}
			}
			if got := s.pool.started.Load() - starts; got != c.restarts {
				t.Errorf("workers started: %d, want %d", got, c.restarts)
			}
		})
	}
}

// No worker outlives its server: after Close, every process the pool
// ever ran is gone and so is the sockets' folder, restarts included.
func TestWorkersStopWithServer(t *testing.T) {
	o := Options{Dir: fixture(t), Addr: "127.0.0.1:0", QueryTimeout: 3 * time.Second, Workers: 2, WorkerCommand: []string{os.Args[0], workerArg}}
	s, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	seen := map[int]bool{}
	for _, pid := range s.pool.pids() {
		seen[pid] = true
	}
	r := do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 1"), map[string]string{"X-Test-Crash": "1"})
	if r.code != http.StatusBadGateway {
		t.Errorf("crash: %d %s", r.code, r.body)
	}
	do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 1"), jsonHeader)
	deadline := time.Now().Add(10 * time.Second)
	for len(s.pool.pids()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range s.pool.pids() {
		seen[pid] = true
	}
	if len(seen) < 3 {
		t.Errorf("saw %d worker processes, want 3 (two, and one restarted)", len(seen))
	}
	ts.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for pid := range seen {
		if alive(pid) {
			t.Errorf("worker %d is still running after Close", pid)
		}
	}
	if _, err := os.Stat(s.pool.dir); !os.IsNotExist(err) {
		t.Errorf("the sockets' folder is left: %v", err)
	}
}

// Through workers, the server answers as it does in process: pages, the
// API, SQL, notebooks with their own style hash, 404s, log-in and the
// drive-by rule, which the front keeps.
func TestWorkersAnswerLikeInProcess(t *testing.T) {
	dir := fixture(t)
	_, in := newTestServer(t, Options{Dir: dir, Token: "t0ken"})
	_, out := newWorkerServer(t, Options{Dir: dir, Token: "t0ken"})
	auth := map[string]string{"Authorization": "Bearer t0ken"}
	cases := []struct {
		name, method, path, body string
		header                   map[string]string
	}{
		{"overview", "GET", "/", "", auth},
		{"check page", "GET", q("/checks/gaps", "topic", topic), "", auth},
		{"check API", "GET", q("/api/checks/duplicates", "topic", topic, "id", "value.event_id"), "", auth},
		{"bad option", "GET", q("/checks/skew", "topic", topic, "hot", "lots"), "", auth},
		{"topics", "GET", "/api/topics", "", auth},
		{"sql", "POST", "/api/sql", `{"sql":"SELECT count(*) AS n FROM \"shop.events-v2\""}`, map[string]string{"Authorization": "Bearer t0ken", "Content-Type": "application/json"}},
		{"refused sql", "POST", "/api/sql", `{"sql":"COPY records TO '/tmp/x'"}`, map[string]string{"Authorization": "Bearer t0ken", "Content-Type": "application/json"}},
		{"notebook", "GET", "/notebooks/" + firstNotebook(t, dir), "", auth},
		{"no token", "GET", "/api/topics", "", nil},
		{"page without token", "GET", "/", "", nil},
		{"login form", "GET", "/login", "", nil},
		{"drive-by", "GET", "/api/topics", "", map[string]string{"Authorization": "Bearer t0ken", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}},
		{"unknown path", "GET", "/nothing-here", "", auth},
		{"a worker's own route", "GET", "/internal/metrics", "", auth},
		{"wrong method", "GET", "/api/sql", "", auth},
		{"healthz", "GET", "/healthz", "", nil},
		{"static", "GET", "/static/style.css", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := do(t, c.method, in.URL+c.path, strings.NewReader(c.body), c.header)
			b := do(t, c.method, out.URL+c.path, strings.NewReader(c.body), c.header)
			if a.code != b.code {
				t.Fatalf("%s %s: in process %d, through workers %d\n%s", c.method, c.path, a.code, b.code, b.body)
			}
			for _, h := range []string{"Content-Type", "Content-Security-Policy", "X-Frame-Options", "Cache-Control", "X-Topicsnap-Rows", "Location"} {
				if x, y := strings.Join(a.header[h], " | "), strings.Join(b.header[h], " | "); x != y {
					t.Errorf("%s: in process %q, through workers %q", h, x, y)
				}
			}
			if strings.Contains(c.path, "/api/") && a.body != b.body {
				t.Errorf("bodies differ:\nin process %s\nworkers    %s", a.body, b.body)
			}
			for k := range b.header {
				if strings.HasPrefix(k, internalHeader) {
					t.Errorf("internal header %s reached the client", k)
				}
			}
		})
	}
	// The front's /metrics counts requests and the workers' cache hits.
	m := do(t, "GET", out.URL+"/metrics", nil, auth)
	for _, want := range []string{`topicsnap_http_requests_total{path="GET /api/topics",code="200"}`, "topicsnap_workers 2", "topicsnap_worker_starts_total 2",
		`topicsnap_cache_misses_total{cache="reports"}`, "topicsnap_catalog_files 2"} {
		if !strings.Contains(m.body, want) {
			t.Errorf("/metrics has no %s:\n%s", want, m.body)
		}
	}
}

// firstNotebook names a notebook the server lists (a shipped one).
func firstNotebook(t *testing.T, dir string) string {
	t.Helper()
	s, err := New(context.Background(), Options{Dir: dir, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns := s.listNotebooks()
	if len(ns) == 0 {
		t.Fatal("no notebooks listed")
	}
	return ns[0].Key
}

// A folder that is none fails New with its typed error before any worker
// starts; a worker that cannot start fails it with what the worker said.
func TestWorkerStartError(t *testing.T) {
	cases := []struct {
		name    string
		dir     string
		command []string
		is      error
		says    string
	}{
		{"no folder", t.TempDir() + "/missing", []string{os.Args[0], workerArg}, catalog.ErrNoCatalog, "missing does not exist"},
		{"a worker that says why", fixture(t), []string{"sh", "-c", "echo 'error: no luck'"}, nil, "start a query worker: no luck"},
		{"a worker that exits", fixture(t), []string{"false"}, nil, "start a query worker: it exited at start (exit status 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(context.Background(), Options{Dir: c.dir, Addr: "127.0.0.1:0", Workers: 2, WorkerCommand: c.command})
			if err == nil {
				s.Close()
				t.Fatal("New: no error")
			}
			var we *WorkerError
			if c.is != nil && !errors.Is(err, c.is) || c.is == nil && !errors.As(err, &we) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("New: %v, want %v saying %q", err, c.is, c.says)
			}
		})
	}
}

// A client that leaves before its answer does not cost the worker: the
// work finishes, the worker serves again, nothing is restarted. With every
// worker busy past workerWait, a request is turned away with 429.
func TestWorkersBusyAndLeavingClients(t *testing.T) {
	s, ts := newWorkerServer(t, Options{})
	starts := s.pool.started.Load()
	c := &http.Client{Timeout: 100 * time.Millisecond}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 1"))
	req.Header.Set("X-Test-Sleep", "500ms")
	if res, err := c.Do(req); err == nil {
		res.Body.Close()
		t.Fatalf("the client should have given up, got %d", res.StatusCode)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 1 AS one"), map[string]string{"X-Test-Sleep": (workerWait + time.Second).String()})
			if r.code != http.StatusOK {
				t.Errorf("busy request: %d %s", r.code, r.body)
			}
		}()
	}
	time.Sleep(700 * time.Millisecond) // both workers taken
	start := time.Now()
	r := do(t, http.MethodPost, ts.URL+"/api/sql", sqlBody("SELECT 1"), jsonHeader)
	if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("with every worker busy: %d %s, want 429 with Retry-After", r.code, r.body)
	}
	if took := time.Since(start); took < workerWait {
		t.Errorf("turned away after %s, want a wait of %s first", took, workerWait)
	}
	wg.Wait()
	if got := s.pool.started.Load() - starts; got != 0 {
		t.Errorf("workers started: %d, want none", got)
	}
}

// A worker at rest holds far less than its cap. The figure is logged.
func TestWorkersIdleMemory(t *testing.T) {
	s, ts := newWorkerServer(t, Options{})
	get(t, ts.URL+"/") // the overview runs every check once
	for _, pid := range s.pool.pids() {
		rss := residentBytes(pid)
		t.Logf("worker %d at rest after the overview: %d MiB resident", pid, rss>>20)
		if rss <= 0 || rss > defaultWorkerMemory/8 {
			t.Errorf("worker %d holds %d bytes at rest", pid, rss)
		}
	}
}
