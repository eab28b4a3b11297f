package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/queries"
)

// Query workers. With Options.Workers set, the process that listens (the
// front) opens no engine: it keeps the layers every request shares
// (observe, secure, authenticate, sessions, /metrics, /healthz, the static
// files) and hands every other request to one of a pool of worker
// processes, each a whole Server of its own over the same folder, serving
// one request at a time on a Unix socket in a private (0700) folder. What
// DuckDB does with a statement then costs at most that worker:
//
//   - a worker that dies (DuckDB's stack overflow on a deep JSON literal is
//     a SIGSEGV) answers 502 and is restarted;
//   - a worker whose resident memory passes Options.WorkerMemory (read from
//     /proc every pollEvery while it works) is killed: 503;
//   - a worker still busy past the request's budget (its query timeout plus
//     a margin) is killed: 408. Inside a worker, answers wait for DuckDB to
//     stop instead of leaving it running (see within), so an idle worker is
//     really idle and the deadline is the front's to keep.
//
// Workers start again in the background; Close stops them all and waits.
// A worker also exits when its standard input closes, and on Linux when
// the front dies (Pdeathsig), so none outlives the front.

const (
	// defaultWorkerMemory caps a worker's resident memory.
	defaultWorkerMemory = 2 << 30
	// pollEvery is how often a busy worker's memory is read; pollNear,
	// once it holds half the cap.
	pollEvery = 50 * time.Millisecond
	pollNear  = 5 * time.Millisecond
	// workerWait bounds how long a request waits for an idle worker.
	workerWait = 3 * time.Second
	// workerStartWithin bounds a worker's start, the folder opened.
	workerStartWithin = 60 * time.Second
	// internalHeader prefixes the headers the front and its workers
	// exchange; the front drops any a client sent.
	internalHeader = "X-Topicsnap-Internal-"
	hdrTLS         = internalHeader + "Tls"
	hdrCache       = internalHeader + "Cache"
)

// Why the front killed a worker.
const (
	killDeadline = "deadline"
	killMemory   = "memory"
	killRetired  = "retired"
)

// frontTLS marks a forwarded request that reached the front over TLS.
var frontTLS = &tls.ConnectionState{}

// errNoWorker is the answer while every worker is starting again.
var errNoWorker = errors.New("the query workers are starting again: try again in a moment")

// errWorkersBusy is the answer when no worker came free in time: 429.
var errWorkersBusy = errors.New("every query worker is busy: try again in a moment")

// WorkerError is a worker that could not start: Msg is what it said.
type WorkerError struct{ Msg string }

func (e *WorkerError) Error() string { return "start a query worker: " + e.Msg }

// workerConfig is what the front tells a worker on its standard input.
type workerConfig struct {
	Dir           string        `json:"dir"`
	SQL           bool          `json:"sql"`
	Auth          bool          `json:"auth"`
	QueryTimeout  time.Duration `json:"query_timeout"`
	MaxRows       int           `json:"max_rows"`
	NotebookDirs  []string      `json:"notebook_dirs"`
	MaxCacheBytes int64         `json:"max_cache_bytes"`
	MemoryLimit   string        `json:"memory_limit"` // DuckDB's
	Socket        string        `json:"socket"`
	Tiles         string        `json:"tiles"` // the overview's tiles, shared by the workers (warm.go)
}

// ServeWorker is a query worker's whole life: it reads its configuration
// from in (one JSON line the front writes), opens the folder, serves on the
// Unix socket it was given, says "ready" on out (or "error: why"), and
// returns when in closes or ctx is done. A program offering Options.Workers
// calls it from the command that Options.WorkerCommand names.
func ServeWorker(ctx context.Context, in io.Reader, out io.Writer, log io.Writer) error {
	return serveWorker(ctx, in, out, log, nil)
}

// serveWorker is ServeWorker; wrap, for tests, wraps the worker's handler.
func serveWorker(ctx context.Context, in io.Reader, out io.Writer, log io.Writer, wrap func(http.Handler) http.Handler) error {
	say := func(err error) error {
		fmt.Fprintf(out, "error: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return err
	}
	br := bufio.NewReader(in)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return say(fmt.Errorf("read the worker's configuration: %w", err))
	}
	var c workerConfig
	if err := json.Unmarshal(line, &c); err != nil {
		return say(fmt.Errorf("read the worker's configuration: %w", err))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the front closes our input when it goes, or dies
		io.Copy(io.Discard, br)
		cancel()
	}()
	sql := c.SQL
	s, err := New(ctx, Options{Dir: c.Dir, Addr: "127.0.0.1:0", SQL: &sql, QueryTimeout: c.QueryTimeout, MaxRows: c.MaxRows,
		NotebookDirs: c.NotebookDirs, MaxCacheBytes: c.MaxCacheBytes, Logger: log, engineMemory: c.MemoryLimit, worker: true, authOn: c.Auth,
		tileDir: c.Tiles})
	if err != nil {
		return say(err)
	}
	defer s.Close()
	ln, err := net.Listen("unix", c.Socket)
	if err != nil {
		return say(fmt.Errorf("listen on the worker's socket: %w", err))
	}
	defer os.Remove(c.Socket)
	h := s.workerHandler()
	if wrap != nil {
		h = wrap(h)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintln(out, "ready")
	select {
	case err := <-served:
		return fmt.Errorf("serve the worker's socket: %w", err)
	case <-ctx.Done():
	}
	hs.Close()
	<-served
	return nil
}

// workerHandler is a worker's handler: the routes, the catalog refreshed
// first, one request at a time. The outer layers are the front's.
func (s *Server) workerHandler() http.Handler {
	mux := s.routes()
	mux.HandleFunc("GET /internal/metrics", s.handleWorkerMetrics)
	h := s.refreshing(mux)
	var one sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		one.Lock()
		defer one.Unlock()
		if r.Header.Get(hdrTLS) == "1" {
			r.TLS = frontTLS // the front's connection was TLS: same-origin checks and cookies say https
		}
		h.ServeHTTP(&cacheReporter{ResponseWriter: w, m: s.metrics}, r)
	})
}

// cacheReporter tells the front, in a header, which caches this request
// hit or missed, so the front's /metrics counts them.
type cacheReporter struct {
	http.ResponseWriter
	m     *metrics
	wrote bool
}

func (c *cacheReporter) WriteHeader(code int) {
	if !c.wrote {
		c.wrote = true
		if ev := c.m.takeCacheEvents(); len(ev) > 0 {
			c.Header().Set(hdrCache, strings.Join(ev, ","))
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *cacheReporter) Write(b []byte) (int, error) {
	if !c.wrote {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

// handleWorkerMetrics writes what only a worker knows for the front's
// /metrics: its report cache and the catalog.
func (s *Server) handleWorkerMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	s.writeEngineMetrics(r.Context(), w)
}

// pool is the front's set of workers.
type pool struct {
	s      *Server
	argv   []string
	env    []string
	cfg    workerConfig
	memCap int64
	dir    string // the sockets' private folder
	stderr io.Writer
	idle   chan *worker

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup // restarts under way

	mu     sync.Mutex
	live   map[*worker]bool
	closed bool
	gen    int

	started      atomic.Int64 // workers started, restarts included
	lastKillPeak atomic.Int64 // the peak resident bytes of the last worker killed for memory
}

// worker is one worker process.
type worker struct {
	n      int
	cmd    *exec.Cmd
	stdin  *os.File // closing it tells the worker to go
	sock   string
	tr     *http.Transport
	client *http.Client
	exited chan struct{} // closed once the process is reaped; then state is set
	state  *os.ProcessState
	last   *lastWords // what it said on stderr as it died

	mu     sync.Mutex
	killed string // why the front killed it, "" until it did

	peak atomic.Int64 // highest resident bytes seen while busy
}

// newPool starts n workers and waits until they are ready.
func newPool(ctx context.Context, s *Server, n int) (*pool, error) {
	o := s.opts
	if len(o.WorkerCommand) == 0 {
		return nil, errors.New("open server: workers need a worker command (Options.WorkerCommand)")
	}
	dir, err := os.MkdirTemp("", "topicsnap-serve-")
	if err != nil {
		return nil, fmt.Errorf("make the workers' folder: %w", err)
	}
	memCap := o.WorkerMemory
	if memCap <= 0 {
		memCap = defaultWorkerMemory
	}
	tiles := filepath.Join(dir, "tiles")
	if err := os.Mkdir(tiles, 0o700); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("make the workers' folder: %w", err)
	}
	p := &pool{
		s: s, argv: o.WorkerCommand, env: o.WorkerEnv, memCap: memCap, dir: dir, idle: make(chan *worker, n), live: map[*worker]bool{},
		cfg: workerConfig{Dir: o.Dir, SQL: s.sql, Auth: o.Token != "", QueryTimeout: o.QueryTimeout, MaxRows: o.MaxRows,
			NotebookDirs: o.NotebookDirs, MaxCacheBytes: o.MaxCacheBytes, MemoryLimit: fmt.Sprintf("%dMiB", memCap/2>>20), Tiles: tiles},
	}
	if o.Logger != io.Discard {
		p.stderr = o.Logger
	}
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	for range n {
		if err := ctx.Err(); err != nil {
			p.close()
			return nil, err
		}
		w, err := p.start(ctx)
		if err != nil {
			p.close()
			return nil, err
		}
		p.idle <- w
	}
	return p, nil
}

// start starts one worker and waits for its "ready".
func (p *pool) start(ctx context.Context) (*worker, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errNoWorker
	}
	p.gen++
	n := p.gen
	p.mu.Unlock()
	sock := filepath.Join(p.dir, fmt.Sprintf("w%d.sock", n))
	cfg := p.cfg
	cfg.Socket = sock
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start a query worker: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start a query worker: %w", err)
	}
	defer outR.Close()
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	last := &lastWords{log: p.stderr}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, last
	cmd.Env = p.env // nil: this process's
	cmd.SysProcAttr = workerSysProcAttr()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		return nil, fmt.Errorf("start a query worker: %w", err)
	}
	w := &worker{n: n, cmd: cmd, stdin: inW, sock: sock, exited: make(chan struct{}), last: last}
	go func() {
		cmd.Wait()
		w.state = cmd.ProcessState
		close(w.exited)
	}()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		w.stop()
		return nil, errNoWorker
	}
	p.live[w] = true
	p.mu.Unlock()
	p.started.Add(1)

	b, _ := json.Marshal(cfg)
	// A worker that failed at once may be gone before it reads its
	// configuration: the write then fails, but why it failed is the line
	// it wrote on stdout, read below.
	_, werr := inW.Write(append(b, '\n'))
	said := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(outR).ReadString('\n')
		said <- strings.TrimSpace(line)
	}()
	t := time.NewTimer(workerStartWithin)
	defer t.Stop()
	var msg string
	select {
	case msg = <-said:
	case <-t.C:
		msg = "error: not ready within " + workerStartWithin.String()
	case <-ctx.Done():
		msg = "error: " + ctx.Err().Error()
	}
	if msg != "ready" || werr != nil {
		p.drop(w)
		if e, ok := strings.CutPrefix(msg, "error: "); ok {
			return nil, &WorkerError{Msg: e}
		}
		<-w.exited
		return nil, &WorkerError{Msg: "it exited at start (" + w.state.String() + ")"}
	}
	w.tr = &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		DisableCompression: true,
		MaxIdleConns:       1,
		MaxConnsPerHost:    1,
		IdleConnTimeout:    time.Minute,
	}
	w.client = &http.Client{Transport: w.tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return w, nil
}

// kill stops the worker with SIGKILL, remembering why (the first reason
// counts).
func (w *worker) kill(why string) {
	w.mu.Lock()
	if w.killed == "" {
		w.killed = why
	}
	w.mu.Unlock()
	w.cmd.Process.Kill()
}

func (w *worker) killedFor() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.killed
}

func (w *worker) dead() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// stop kills the worker and waits until it is reaped.
func (w *worker) stop() {
	w.kill(killRetired)
	<-w.exited
	w.stdin.Close()
	if w.tr != nil {
		w.tr.CloseIdleConnections()
	}
	os.Remove(w.sock)
}

// drop stops a worker and forgets it.
func (p *pool) drop(w *worker) {
	w.stop()
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
}

// retire drops a worker and starts another in its place, in the
// background, until one starts or the pool closes.
func (p *pool) retire(w *worker) {
	p.drop(w)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		wait := 100 * time.Millisecond
		for p.ctx.Err() == nil {
			nw, err := p.start(p.ctx)
			if err == nil {
				p.idle <- nw
				return
			}
			if p.ctx.Err() == nil {
				p.s.logf("restart a query worker: %s", p.s.clean(err))
			}
			select {
			case <-time.After(wait):
			case <-p.ctx.Done():
			}
			wait = min(2*wait, 30*time.Second)
		}
	}()
}

// acquire takes an idle worker, waiting up to workerWait.
func (p *pool) acquire(ctx context.Context) (*worker, error) {
	t := time.NewTimer(workerWait)
	defer t.Stop()
	for {
		select {
		case w := <-p.idle:
			if w.dead() { // died idle (the OOM killer, a signal)
				p.retire(w)
				continue
			}
			return w, nil
		case <-t.C:
			p.mu.Lock()
			n := len(p.live)
			p.mu.Unlock()
			if n == 0 {
				return nil, errNoWorker
			}
			return nil, errWorkersBusy
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.ctx.Done():
			return nil, errNoWorker
		}
	}
}

// release gives back a worker that answered; one that is dead, was
// killed or holds more than the cap at rest is replaced instead.
func (p *pool) release(w *worker, ok bool) {
	if ok && !w.dead() && w.killedFor() == "" && residentBytes(w.cmd.Process.Pid) <= p.memCap {
		p.idle <- w
		return
	}
	p.retire(w)
}

// close stops every worker and waits for them and for the restarts.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	ws := make([]*worker, 0, len(p.live))
	for w := range p.live {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	p.cancel()
	for _, w := range ws {
		w.kill(killRetired)
	}
	p.wg.Wait()
	for _, w := range ws {
		w.stop()
	}
	os.RemoveAll(p.dir)
}

// pids lists the live workers' process ids.
func (p *pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for w := range p.live {
		out = append(out, w.cmd.Process.Pid)
	}
	return out
}

// watch polls a busy worker's memory and kills it before it reaches the
// cap, or past the deadline. Reads come every pollEvery, and every
// pollNear once the worker holds half the cap; the kill comes at 7/8 of
// it, so a worker would have to grow by an eighth of the cap within
// pollNear to pass it (a few GB/s is as fast as memory can be touched).
// The returned function stops the watch and waits for it.
func (p *pool) watch(w *worker, budget time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	pid := w.cmd.Process.Pid
	go func() {
		defer close(finished)
		deadline := time.NewTimer(budget)
		defer deadline.Stop()
		poll := time.NewTimer(0)
		defer poll.Stop()
		for {
			select {
			case <-done:
				return
			case <-w.exited:
				return
			case <-deadline.C:
				w.kill(killDeadline)
				return
			case <-poll.C:
			}
			rss := residentBytes(pid)
			if rss > w.peak.Load() {
				w.peak.Store(rss)
			}
			if rss > p.memCap-p.memCap/8 {
				w.peak.Store(max(rss, highWaterBytes(pid)))
				w.kill(killMemory)
				p.lastKillPeak.Store(w.peak.Load())
				return
			}
			if rss > p.memCap/2 {
				poll.Reset(pollNear)
			} else {
				poll.Reset(pollEvery)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// hopHeaders are a connection's own headers, not passed on.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward serves r on a worker within budget.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, budget time.Duration) {
	wk, err := s.pool.acquire(r.Context())
	if err != nil {
		if errors.Is(err, errNoWorker) {
			w.Header().Set("Retry-After", "1")
			httpError(w, r, http.StatusServiceUnavailable, err.Error())
			return
		}
		s.fail(w, r, err)
		return
	}
	s.pool.release(wk, s.forwardTo(wk, w, r, budget))
}

// forwardTo sends r to wk and copies its answer; false means wk must not
// serve again.
func (s *Server) forwardTo(wk *worker, w http.ResponseWriter, r *http.Request, budget time.Duration) bool {
	// A client that goes away does not stop the work: it is bounded by the
	// budget anyway, and what it computes lands in the worker's cache for
	// the next view. Ending the connection instead would leave no way to
	// know when the worker is idle again.
	out, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, "http://worker"+r.URL.RequestURI(), r.Body)
	if err != nil {
		s.fail(w, r, err)
		return true
	}
	out.Header = r.Header.Clone()
	for k := range out.Header {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), internalHeader) {
			delete(out.Header, k)
		}
	}
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if r.TLS != nil {
		out.Header.Set(hdrTLS, "1")
	}
	out.Host, out.ContentLength = r.Host, r.ContentLength
	if r.ContentLength == 0 {
		out.Body = nil
	}
	stop := s.pool.watch(wk, budget)
	res, err := wk.client.Do(out)
	if err != nil {
		stop()
		s.workerFailed(wk, w, r)
		return false
	}
	h := w.Header()
	for k, v := range res.Header {
		h[k] = v // the worker's value wins over the front's (a notebook's CSP)
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
	if ev := h.Get(hdrCache); ev != "" {
		h.Del(hdrCache)
		for e := range strings.SplitSeq(ev, ",") {
			name, hit, _ := strings.Cut(e, "=")
			s.metrics.cache(name, hit == "hit")
		}
	}
	w.WriteHeader(res.StatusCode)
	cw := &clientWriter{w: w}
	_, err = io.Copy(cw, res.Body) // errors here are the worker's: cw drops the client's
	res.Body.Close()
	stop()
	return err == nil
}

// clientWriter writes to the client until a write fails, then discards,
// so that the worker's answer is still read to its end and the worker
// can serve again.
type clientWriter struct {
	w      http.ResponseWriter
	failed bool
}

func (c *clientWriter) Write(b []byte) (int, error) {
	if !c.failed {
		if _, err := c.w.Write(b); err != nil {
			c.failed = true
		}
	}
	return len(b), nil
}

// workerFailed answers a request whose worker gave no answer: killed at
// the deadline (408) or past the memory cap (503), crashed (502).
func (s *Server) workerFailed(wk *worker, w http.ResponseWriter, r *http.Request) {
	why := wk.killedFor()
	if why == "" {
		select { // a crash: the connection drops as the process dies
		case <-wk.exited:
		case <-time.After(time.Second):
		}
		why = wk.killedFor()
	}
	switch {
	case why == killDeadline:
		httpError(w, r, http.StatusRequestTimeout, fmt.Sprintf("%s of %s: the statement was stopped", queries.ErrTimeout, s.opts.QueryTimeout))
	case why == killMemory:
		httpError(w, r, http.StatusServiceUnavailable, fmt.Sprintf("the statement needed more memory than a query worker may hold (%s) and was stopped", units.Size(s.pool.memCap)))
	case wk.dead():
		how := wk.last.fatal()
		if how == "" {
			how = wk.state.String()
		}
		s.logf("%s %s: the query engine crashed (%s); a new worker starts", r.Method, r.URL.Path, how)
		httpError(w, r, http.StatusBadGateway, fmt.Sprintf("the query engine crashed on this request (%s); the server goes on", how))
	default:
		s.logf("%s %s: the query worker stopped answering; a new worker starts", r.Method, r.URL.Path)
		httpError(w, r, http.StatusBadGateway, "the query engine failed on this request; the server goes on")
	}
}

// budget is how long the front lets a worker work on a request matching
// pattern before killing it: the timeout the server itself keeps for that
// route, plus a margin for DuckDB to notice it.
func (s *Server) budget(pattern string) time.Duration {
	qt := s.opts.QueryTimeout
	margin := max(2*time.Second, qt/4)
	switch pattern {
	case "POST /api/sql", "GET /api/checks/{name}":
		return qt + margin
	case "GET /{$}", "GET /notebooks/{name}":
		return qt*time.Duration(len(queries.CheckNames)+1) + margin
	}
	return 3*qt + margin
}

// frontServes lists the routes the front answers itself: they need the
// front's own state (sessions, metrics) or no engine at all.
func frontServes(pattern string) bool {
	switch pattern {
	case "", "GET /login", "POST /login", "POST /logout", "GET /metrics", "GET /healthz", "GET /static/":
		return true
	}
	return false
}

// frontHandler answers what the front serves and forwards the rest.
func (s *Server) frontHandler(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := mux.Handler(r)
		if frontServes(pattern) {
			mux.ServeHTTP(w, r)
			return
		}
		s.forward(w, r, s.budget(pattern))
	})
}

// workerMetrics fetches a worker's part of /metrics; nothing if none is
// free or it fails.
func (s *Server) workerMetrics(ctx context.Context, w io.Writer) {
	wk, err := s.pool.acquire(ctx)
	if err != nil {
		s.logf("metrics: %s", err)
		return
	}
	ok := false
	defer func() { s.pool.release(wk, ok) }()
	stop := s.pool.watch(wk, s.opts.QueryTimeout+2*time.Second)
	defer stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://worker/internal/metrics", nil)
	if err != nil {
		return
	}
	res, err := wk.client.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	_, err = io.Copy(w, res.Body)
	ok = err == nil
}

// lastWords passes a worker's stderr on to the log, if any, and keeps the
// line that names a fatal signal or error: Go's runtime turns a SIGSEGV in
// DuckDB into "SIGSEGV: segmentation violation" and exit status 2.
type lastWords struct {
	log  io.Writer // nil: none
	mu   sync.Mutex
	line string
	buf  []byte // an unfinished line, bounded
}

func (l *lastWords) Write(b []byte) (int, error) {
	if l.log != nil {
		l.log.Write(b)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.line != "" {
		return len(b), nil
	}
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		l.buf = l.buf[i+1:]
		if fatalLine(line) {
			l.line = strings.TrimSpace(line)
			l.buf = nil
			break
		}
	}
	if len(l.buf) > 4096 {
		l.buf = l.buf[len(l.buf)-4096:]
	}
	return len(b), nil
}

// fatalLine tells whether a line of a dying Go program says why it dies.
func fatalLine(line string) bool {
	if strings.HasPrefix(line, "fatal error: ") || strings.HasPrefix(line, "panic: ") {
		return true
	}
	sig, _, ok := strings.Cut(line, ": ")
	return ok && len(sig) > 3 && strings.HasPrefix(sig, "SIG") && strings.ToUpper(sig) == sig && !strings.Contains(sig, " ")
}

// fatal is the line, if the worker said one, cut to a length for people.
func (l *lastWords) fatal() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.line) > 200 {
		return l.line[:200]
	}
	return l.line
}
