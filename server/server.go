package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/notebooks"
	"github.com/topicsnap/topicsnap/queries"
)

// Options configure a server.
type Options struct {
	// Dir is the snapshot folder to serve.
	Dir string
	// Addr is the address to listen on; default 127.0.0.1:8080.
	Addr string
	// Token is required when Addr is not a loopback address.
	Token string
	// SQL enables ad-hoc SQL (the /sql page, /api/sql and SQL expressions
	// in check options). Nil means on for loopback binds only.
	SQL *bool
	// QueryTimeout bounds each query and check; default 10s.
	QueryTimeout time.Duration
	// MaxRows bounds the rows /api/sql returns; default 10000.
	MaxRows int
	// NotebookDirs are folders of *.md notebooks (see package notebooks)
	// the server offers at /notebooks/{file name}, besides the shipped
	// notebooks and the snapshot folder's own top-level *.md notebooks.
	NotebookDirs []string
	// Logger receives one line per request and refresh errors; nil is silent.
	Logger io.Writer
	// MaxConcurrentSQL bounds ad-hoc queries running at once; more get 429.
	// Default 4.
	MaxConcurrentSQL int
	// MaxConcurrentChecks bounds the checks, charts and notebooks computed
	// at once (cached results do not count); more get 429. Default 4.
	MaxConcurrentChecks int
	// MaxCacheBytes bounds the report cache by the estimated size of what
	// it holds; default 64 MiB. One result larger than an eighth of it is
	// served but not kept.
	MaxCacheBytes int64
	// TLSCert and TLSKey are PEM files: with both, Run serves HTTPS only.
	TLSCert, TLSKey string
	// Workers is how many worker processes run the requests that reach
	// the engine (workers.go): a crash or a blow-up in DuckDB then costs
	// one request, not the server. 0 runs them in this process.
	Workers int
	// WorkerCommand starts one worker: a program and its arguments that
	// call ServeWorker. Required with Workers.
	WorkerCommand []string
	// WorkerEnv is a worker's whole environment; nil inherits this
	// process's.
	WorkerEnv []string
	// WorkerMemory caps a worker's resident memory in bytes: a request
	// that takes a worker past it is stopped with 503. DuckDB's own
	// memory_limit in a worker is half of it. Default 2 GiB.
	WorkerMemory int64

	// The overview's bounds (pages.go); zero is the default. Tests make
	// them small.
	overviewPageSize int
	overviewInline   int
	overviewBudget   time.Duration

	engineMemory string // DuckDB's memory_limit; default 1GB
	worker       bool   // this server is a worker: answers wait for DuckDB (see within)
	authOn       bool   // a worker of a front that requires a token: pages show log-out
	// tileDir is where the workers of one front share the overview's
	// tiles (warm.go): a folder in the front's private one; "" keeps them
	// in memory alone.
	tileDir string
}

const (
	defaultAddr    = "127.0.0.1:8080"
	maxBody        = 64 << 10
	refreshEvery   = time.Second
	maxCacheItems  = 512
	defaultCache   = 64 << 20
	shutdownWithin = 10 * time.Second
)

// Server serves one snapshot folder.
type Server struct {
	opts    Options
	sql     bool
	loop    bool     // bound to loopback
	strip   []string // folder prefixes removed from messages, longest first
	engine  *queries.Engine
	pages   *pages
	metrics *metrics
	cache   *reportCache

	refreshMu   sync.Mutex // held while a refresh runs
	lastRefresh time.Time
	refreshWG   sync.WaitGroup // the refresh running, waited for by Close
	// refreshCtx bounds the refreshes, for the server's life: Close
	// cancels it, then waits for the one running.
	refreshCtx    context.Context
	refreshCancel context.CancelFunc

	overviewMu sync.Mutex
	overview   map[string]*overviewData // by catalog version
	// overviewPage is the overview rendered, kept for a second: it says
	// how long ago the last cut was, in minutes, and lists the notebook
	// folders, so it may be a second late, no more.
	overviewPage struct {
		version string
		at      time.Time
		html    []byte
	}

	// tiles are the overview's tiles known; warm computes the pending
	// ones in the background (warm.go). Nil warm in a front of workers.
	tiles tileStore
	warm  *warmer
	// inFlight counts the requests being served (layer 4 on): the warmer
	// starts a tile only when it is 0, so people's requests go first.
	inFlight atomic.Int32

	// sqlSlots bounds the ad-hoc queries running at once, so a crowd of
	// slow queries cannot starve the cached pages of CPU.
	sqlSlots chan struct{}
	// checkSlots does the same for checks, charts and notebooks.
	checkSlots chan struct{}

	// pool is the worker processes; nil when this process runs the
	// engine itself.
	pool *pool

	sessions *sessions
	fails    *failLimiter
	lister   notebooks.Lister
	tls      *tls.Config // nil: plain HTTP
}

// New opens a locked engine over o.Dir and checks the options.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.Addr == "" {
		o.Addr = defaultAddr
	}
	if o.QueryTimeout <= 0 {
		o.QueryTimeout = 10 * time.Second
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 10000
	}
	if o.Logger == nil {
		o.Logger = io.Discard
	}
	loop, err := isLoopback(o.Addr)
	if err != nil {
		return nil, err
	}
	if !loop && o.Token == "" {
		return nil, fmt.Errorf("listen on %s: a token is required off loopback (bind 127.0.0.1 or set a token)", o.Addr)
	}
	sqlOn := loop
	if o.SQL != nil {
		sqlOn = *o.SQL
	}
	if o.Dir == "" {
		return nil, errors.New("open server: no snapshot folder given")
	}
	tc, err := tlsConfig(ctx, o.TLSCert, o.TLSKey)
	if err != nil {
		return nil, err
	}
	pg, err := loadPages()
	if err != nil {
		return nil, err
	}
	if o.MaxConcurrentSQL <= 0 {
		o.MaxConcurrentSQL = 4
	}
	if o.MaxConcurrentChecks <= 0 {
		o.MaxConcurrentChecks = 4
	}
	if o.MaxCacheBytes <= 0 {
		o.MaxCacheBytes = defaultCache
	}
	s := &Server{
		sqlSlots:    make(chan struct{}, o.MaxConcurrentSQL),
		checkSlots:  make(chan struct{}, o.MaxConcurrentChecks),
		sessions:    newSessions(time.Now),
		fails:       newFailLimiter(time.Now),
		tls:         tc,
		opts:        o,
		sql:         sqlOn,
		loop:        loop,
		pages:       pg,
		metrics:     newMetrics(),
		cache:       newReportCache(maxCacheItems, o.MaxCacheBytes),
		lastRefresh: time.Now(),
		overview:    map[string]*overviewData{},
	}
	s.refreshCtx, s.refreshCancel = context.WithCancel(context.WithoutCancel(ctx))
	if o.Workers > 0 && !o.worker {
		// The folder is checked here, so that what is wrong with it keeps
		// its type (catalog.ErrNoCatalog); the workers open it again.
		if _, err := catalog.OpenAt(ctx, o.Dir, catalog.S3Config{}); err != nil {
			return nil, fmt.Errorf("open %s: %w", o.Dir, err)
		}
		abs, err := filepath.Abs(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", o.Dir, err)
		}
		s.strip = folderPrefixes(o.Dir, abs)
		if s.pool, err = newPool(ctx, s, o.Workers); err != nil {
			return nil, err
		}
		return s, nil
	}
	mem := o.engineMemory
	if mem == "" {
		mem = "1GB"
	}
	e, err := queries.Open(ctx, o.Dir, queries.Options{Locked: true, MemoryLimit: mem, Threads: 2, Timeout: o.QueryTimeout})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", o.Dir, err)
	}
	s.engine = e
	s.tiles.dir = o.tileDir
	s.warm = newWarmer(ctx, s)
	// The catalog was read just now: the next refresh is due a second
	// from here, not from when the server began opening the folder (the
	// views of a whole cluster take seconds to build).
	s.lastRefresh = time.Now()
	s.strip = folderPrefixes(o.Dir, e.Dir())
	s.metrics.report = o.worker
	return s, nil
}

// folderPrefixes lists the spellings of the folder that may appear in
// messages: as given, absolute and with symlinks resolved, longest first.
func folderPrefixes(given, abs string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = strings.TrimSuffix(p, string(filepath.Separator))
		if p != "" && p != "." && p != string(filepath.Separator) && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		add(real)
	}
	add(filepath.Clean(given))
	for i := 1; i < len(out); i++ { // longest first, so a prefix never eats a longer one
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// isLoopback tells whether addr binds only to loopback. A missing host
// (":8080") binds every interface; a hostname other than localhost counts
// as not loopback.
func isLoopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("parse address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}

// tlsConfig loads a certificate and its key; neither given is plain HTTP.
func tlsConfig(ctx context.Context, cert, key string) (*tls.Config, error) {
	if cert == "" && key == "" {
		return nil, nil
	}
	if cert == "" || key == "" {
		return nil, errors.New("load TLS certificate: give both the certificate and the key")
	}
	pair, err := safefile.LoadX509KeyPair(ctx, cert, key)
	if err != nil {
		return nil, fmt.Errorf("load TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// Warnings are what a person starting a server with o should know: off
// loopback without TLS, the token and the session cookie cross the network
// in clear.
func (o Options) Warnings() []string {
	addr := o.Addr
	if addr == "" {
		addr = defaultAddr
	}
	loop, err := isLoopback(addr)
	if err != nil || loop {
		return nil
	}
	var out []string
	if o.TLSCert == "" || o.TLSKey == "" {
		out = append(out, fmt.Sprintf("serving %s without TLS: the token and the session cookie travel in clear over the network; give --tls-cert and --tls-key", addr))
	}
	if n := utf8.RuneCountInString(o.Token); o.Token != "" && n < minTokenChars {
		out = append(out, fmt.Sprintf("the token is %d characters: a client may guess 30 a minute (and a network of them each as many), so a short one is found; give a random one of %d or more, such as openssl rand -hex 16 prints", n, minTokenChars))
	}
	return out
}

// minTokenChars is the shortest token off loopback that draws no warning.
const minTokenChars = 16

// Close releases the engine, or stops the workers and waits for them.
func (s *Server) Close() error {
	s.refreshCancel()
	if s.pool != nil {
		s.pool.close()
		return nil
	}
	s.refreshWG.Wait()
	s.warm.stop()
	return s.engine.Close()
}

// Handler is the server's handler with every layer of the package doc.
// With workers, the front keeps the outer layers and forwards the routes
// that reach the engine (workers.go).
func (s *Server) Handler() http.Handler {
	mux := s.routes()
	if s.pool != nil {
		return s.observe(mux, s.secure(s.authenticate(s.frontHandler(mux))))
	}
	return s.observe(mux, s.secure(s.authenticate(s.refreshing(mux))))
}

// Run serves o until ctx is done, then shuts down gracefully. ready, if not
// nil, is called with the address once the listener is open.
func Run(ctx context.Context, o Options, ready func(addr string)) error {
	s, err := New(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      s.opts.QueryTimeout*time.Duration(len(queries.CheckNames)+1) + 30*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	served := make(chan error, 1)
	go func() {
		if s.tls != nil {
			hs.TLSConfig = s.tls
			served <- hs.ServeTLS(ln, "", "") // the certificate is in TLSConfig
			return
		}
		served <- hs.Serve(ln)
	}()
	select {
	case err := <-served:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownWithin)
	defer cancel()
	shutErr := hs.Shutdown(sctx)
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	if shutErr != nil {
		hs.Close()
		return fmt.Errorf("shut down: %w", shutErr)
	}
	return nil
}

// refresh re-reads the catalog at most once per refreshEvery, off the
// requests' path: the request that finds it due starts it and goes on
// with the views there are, as do the others while it runs. Telling
// whether a folder of a whole cluster changed is a stat of each of its
// manifests and cuts (a tenth of a second and more for 12,000 partitions),
// which a page about one topic must not wait for. A failed refresh is
// logged and the last good views keep serving.
func (s *Server) refresh() {
	if !s.refreshMu.TryLock() {
		return
	}
	if time.Since(s.lastRefresh) < refreshEvery {
		s.refreshMu.Unlock()
		return
	}
	s.lastRefresh = time.Now()
	s.refreshWG.Add(1)
	go func() {
		defer s.refreshWG.Done()
		defer s.refreshMu.Unlock()
		if _, err := s.engine.Refresh(s.refreshCtx); err != nil && s.refreshCtx.Err() == nil {
			fmt.Fprintf(s.opts.Logger, "refresh catalog: %s\n", s.clean(err))
		}
	}()
}

// clean turns an error into a message for people: no folder paths, and
// for a check's complaint about its options, the complaint alone, with the
// command line's flags (--against-key) spelled as query parameters
// (against_key).
func (s *Server) clean(err error) string {
	msg := err.Error()
	// A check's complaint about its options names them as the URL does.
	var oe *queries.OptionError
	var ne *queries.NeedsError
	switch {
	case errors.As(err, &ne):
		msg = ne.Say(func(o string) string { return o })
	case errors.As(err, &oe) && oe.Value != "":
		msg = fmt.Sprintf("%s %q: %s", oe.Option, oe.Value, oe.Reason)
	case errors.As(err, &oe):
		msg = fmt.Sprintf("%s %s", oe.Option, oe.Reason)
	case errors.Is(err, queries.ErrOutOfMemory):
		// DuckDB's advice (SET memory_limit, SET threads) is dropped: the
		// server refuses a SET. Say what the client, and the operator, can do.
		msg += ": " + queries.ErrOutOfMemory.Hint() + ", " + queries.ServeMemoryHint
	}
	for _, p := range s.strip {
		msg = strings.ReplaceAll(msg, p+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, p, "the snapshot folder")
	}
	return msg
}

// logf writes a line to the logger.
func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Logger, format+"\n", args...)
}
