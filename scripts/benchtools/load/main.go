// Command load is a small HTTP load generator for benchmarking topicsnap's
// server on this machine. It is a bench tool, not part of the product, and
// it only talks to loopback: a URL whose host is not a loopback address (or
// "localhost" resolving only to loopback) is refused, every connection's
// remote address is checked again when it is dialled, and redirects are not
// followed.
//
//	go run ./scripts/benchtools/load -c 16 -d 20s \
//	    -url 'http://127.0.0.1:18080/' -url 'http://127.0.0.1:18080/checks/gaps?topic=app_events'
//
//	go run ./scripts/benchtools/load -c 16 -d 60s -method POST \
//	    -header 'Content-Type: application/json' \
//	    -body '{"sql": "SELECT count(*) FROM range(10000000000)", "format": "json"}' \
//	    -timeout 30s -pid "$(pgrep -n topicsnap)" -url http://127.0.0.1:18080/api/sql
//
// Each of -c workers sends requests back to back on its own keep-alive
// connection, taking the URLs in turn (worker i starts at URL i), until -d
// has passed; requests in flight then are let finish (within -timeout). A
// request's latency runs from sending it to reading the last byte of the
// answer. Statuses other than 2xx and transport failures (timeouts,
// refused connections) count as errors. Ctrl-C (or SIGTERM) stops the run
// early: what was measured is reported, then the tool dies of SIGINT.
//
// It reports, overall and per URL: requests, requests/s, errors by status,
// and p50/p90/p99/max latency; the load average at start and end; the CPU
// time the load generator itself used; and, with -pid, the server's CPU time
// and resident memory (VmRSS from /proc/PID/status, sampled every
// -rss-every): min, max, last and the trend (see summarizeRSS for what
// counts as steady). -format markdown prints markdown tables, -format row
// one markdown table row, -format json one JSON document. -rate paces the
// requests instead of sending them back to back; -want-rps and -want-p99
// add a met/missed verdict on the overall numbers.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// listFlag is a repeatable flag whose values may also be comma lists.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// headerFlag is a repeatable "Name: value" flag (values keep their commas).
type headerFlag []string

func (h *headerFlag) String() string { return strings.Join(*h, "; ") }

func (h *headerFlag) Set(v string) error {
	if !strings.Contains(v, ":") {
		return fmt.Errorf("want Name: value, got %q", v)
	}
	*h = append(*h, v)
	return nil
}

type config struct {
	urls      []*url.URL
	conc      int
	dur       time.Duration
	method    string
	body      []byte
	headers   http.Header
	timeout   time.Duration
	pid       int
	rssEvery  time.Duration
	format    string
	label     string
	rssCSV    string
	warmup    bool
	rate      float64
	wantRPS   float64
	wantP99   time.Duration
	maxErrLog int
}

func main() {
	var urls listFlag
	var headers headerFlag
	c := flag.Int("c", 16, "concurrent connections (workers)")
	d := flag.Duration("d", 10*time.Second, "how long to send requests")
	method := flag.String("method", "GET", "HTTP method")
	body := flag.String("body", "", "request body (sent with every request)")
	bodyFile := flag.String("body-file", "", "read the request body from this file")
	timeout := flag.Duration("timeout", 30*time.Second, "per-request timeout (a request past it counts as a \"timeout\" error)")
	pid := flag.Int("pid", 0, "server process id: sample its VmRSS and CPU time (Linux /proc)")
	rssEvery := flag.Duration("rss-every", time.Second, "RSS sampling interval with -pid")
	rssCSV := flag.String("rss-csv", "", "write the RSS samples (seconds since start, KiB) to this CSV file")
	format := flag.String("format", "text", "output: text, markdown, json, or row (one markdown table row: URL, req/s, p50, p90, p99, max ms, errors, server cores, load average at the end)")
	label := flag.String("label", "", "name of this run in the output")
	warmup := flag.Bool("warmup", false, "first send one request per URL (not counted) and fail unless each is 2xx")
	rate := flag.Float64("rate", 0, "at most this many requests per second in all (0: as fast as the server answers)")
	wantRPS := flag.Float64("want-rps", 0, "target: overall requests/s at least this (reported as met or missed)")
	wantP99 := flag.Duration("want-p99", 0, "target: overall p99 latency under this (reported as met or missed)")
	flag.Var(&urls, "url", "URL to load (repeatable, or a comma list); loopback hosts only")
	flag.Var(&headers, "header", "request header \"Name: value\" (repeatable)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: load -url URL [-url URL ...] [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		for _, a := range flag.Args() {
			urls.Set(a)
		}
	}
	cfg, err := makeConfig(urls, headers, *c, *d, *method, *body, *bodyFile, *timeout, *pid, *rssEvery, *format, *label, *rssCSV, *warmup)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if *rate < 0 || *wantRPS < 0 || *wantP99 < 0 {
		fmt.Fprintln(os.Stderr, "load: -rate, -want-rps and -want-p99 cannot be negative")
		os.Exit(2)
	}
	cfg.rate, cfg.wantRPS, cfg.wantP99 = *rate, *wantRPS, *wantP99
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	switch cfg.format {
	case "json":
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	case "markdown":
		writeMarkdown(os.Stdout, res)
	case "row":
		writeRow(os.Stdout, res)
	default:
		writeText(os.Stdout, res)
	}
	if ctx.Err() != nil {
		// Stopped by a signal: the numbers so far are out; now die of the
		// signal so a calling shell stops too (it would take a normal exit
		// as the signal handled).
		stop()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		time.Sleep(time.Second)
		os.Exit(130)
	}
}

func makeConfig(urls, headers []string, c int, d time.Duration, method, body, bodyFile string, timeout time.Duration,
	pid int, rssEvery time.Duration, format, label, rssCSV string, warmup bool) (*config, error) {
	cfg := &config{conc: c, dur: d, method: strings.ToUpper(method), timeout: timeout, pid: pid, rssEvery: rssEvery,
		format: format, label: label, rssCSV: rssCSV, warmup: warmup, headers: http.Header{}, maxErrLog: 5}
	if len(urls) == 0 {
		return nil, errors.New("no -url given")
	}
	if c < 1 || d <= 0 || timeout <= 0 || rssEvery <= 0 {
		return nil, errors.New("-c, -d, -timeout and -rss-every must be positive")
	}
	switch format {
	case "text", "markdown", "json", "row":
	default:
		return nil, fmt.Errorf("-format %q: want text, markdown, json or row", format)
	}
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("parse %q: %w", raw, err)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("%s: only http and https URLs", raw)
		}
		if err := checkLoopbackHost(u.Hostname()); err != nil {
			return nil, fmt.Errorf("%s: %w", raw, err)
		}
		cfg.urls = append(cfg.urls, u)
	}
	if body != "" && bodyFile != "" {
		return nil, errors.New("give -body or -body-file, not both")
	}
	cfg.body = []byte(body)
	if bodyFile != "" {
		b, err := os.ReadFile(bodyFile)
		if err != nil {
			return nil, err
		}
		cfg.body = b
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		cfg.headers.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if len(cfg.body) > 0 && cfg.headers.Get("Content-Type") == "" && json.Valid(cfg.body) {
		cfg.headers.Set("Content-Type", "application/json")
	}
	if pid > 0 {
		if _, err := readRSS(pid); err != nil {
			return nil, fmt.Errorf("-pid %d: %w", pid, err)
		}
	}
	return cfg, nil
}

// checkLoopbackHost accepts loopback IPs, and names that resolve only to
// loopback addresses.
func checkLoopbackHost(host string) error {
	if host == "" {
		return errors.New("no host")
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s is not a loopback address: this tool only loads servers on this machine", host)
		}
		return nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("%s resolves to %s, not loopback: this tool only loads servers on this machine", host, ip)
		}
	}
	return nil
}

// loopbackOnly refuses, at dial time, any connection whose address is not loopback.
func loopbackOnly(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing to connect to %s: not loopback", address)
	}
	return nil
}

// sample is one finished request.
type sample struct {
	url     int
	lat     time.Duration
	status  int    // 0 on a transport error
	errKind string // "" when the request got an answer
	bytes   int64
}

// Stats are the numbers of one URL or of all.
type Stats struct {
	URL        string         `json:"url"`
	Requests   int            `json:"requests"`
	OK         int            `json:"ok"`
	Errors     int            `json:"errors"`
	RPS        float64        `json:"requests_per_second"`
	ByStatus   map[string]int `json:"by_status"` // "200", "408", "timeout", "refused", ...
	P50ms      float64        `json:"p50_ms"`
	P90ms      float64        `json:"p90_ms"`
	P99ms      float64        `json:"p99_ms"`
	MaxMs      float64        `json:"max_ms"`
	MeanMs     float64        `json:"mean_ms"`
	BytesPerOK float64        `json:"bytes_per_ok"`
}

// RSS is the server's resident memory over the run.
type RSS struct {
	Samples      int     `json:"samples"`
	MinMiB       float64 `json:"min_mib"`
	MaxMiB       float64 `json:"max_mib"`
	FirstMiB     float64 `json:"first_mib"`
	LastMiB      float64 `json:"last_mib"`
	SlopeMiBMin  float64 `json:"slope_mib_per_min"` // least squares over the samples after the first fifth
	FirstFifth   float64 `json:"mean_first_fifth_mib"`
	LastFifth    float64 `json:"mean_last_fifth_mib"`
	Judged       bool    `json:"judged"` // enough samples to tell
	Steady       bool    `json:"steady"`
	SteadyReason string  `json:"steady_reason"`
}

// Result is the whole run.
type Result struct {
	Label        string    `json:"label,omitempty"`
	Method       string    `json:"method"`
	Concurrency  int       `json:"concurrency"`
	Duration     float64   `json:"duration_s"` // asked for
	Elapsed      float64   `json:"elapsed_s"`  // until the last request finished
	Overall      Stats     `json:"overall"`
	PerURL       []Stats   `json:"per_url"`
	ErrorSamples []string  `json:"error_samples,omitempty"`
	LoadStart    string    `json:"loadavg_start"`
	LoadEnd      string    `json:"loadavg_end"`
	ClientCPU    float64   `json:"client_cpu_s"` // this process, user+system
	ServerCPU    float64   `json:"server_cpu_s,omitempty"`
	RSS          *RSS      `json:"rss,omitempty"`
	RSSEvery     float64   `json:"rss_every_s,omitempty"`
	Rate         float64   `json:"rate_limit,omitempty"`
	Target       string    `json:"target,omitempty"`
	TargetMet    *bool     `json:"target_met,omitempty"`
	Started      time.Time `json:"started"`
}

func run(ctx context.Context, cfg *config) (*Result, error) {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: loopbackOnly}
	tr := &http.Transport{
		DialContext:         dialer.DialContext,
		MaxIdleConns:        cfg.conc * 2,
		MaxIdleConnsPerHost: cfg.conc * 2,
		MaxConnsPerHost:     0,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		Timeout:   cfg.timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // report the redirect, never follow it
		},
	}
	if cfg.warmup {
		for i, u := range cfg.urls {
			s, msg := do(context.Background(), client, cfg, i, u)
			if s.status < 200 || s.status > 299 {
				return nil, fmt.Errorf("warm-up %s %s: %s", cfg.method, u, msg)
			}
		}
	}

	res := &Result{Label: cfg.label, Method: cfg.method, Concurrency: cfg.conc, Duration: cfg.dur.Seconds(),
		LoadStart: loadavg(), Started: time.Now().UTC()}
	cpu0 := selfCPU()
	var srvCPU0 float64
	if cfg.pid > 0 {
		srvCPU0, _ = procCPU(cfg.pid)
	}

	// RSS sampler.
	var rssSamples []rssSample
	samplerDone := make(chan struct{})
	stopSampler := make(chan struct{})
	start := time.Now()
	if cfg.pid > 0 {
		go func() {
			defer close(samplerDone)
			t := time.NewTicker(cfg.rssEvery)
			defer t.Stop()
			take := func() {
				if kib, err := readRSS(cfg.pid); err == nil {
					rssSamples = append(rssSamples, rssSample{time.Since(start).Seconds(), kib})
				}
			}
			take()
			for {
				select {
				case <-t.C:
					take()
				case <-stopSampler:
					take()
					return
				}
			}
		}()
	} else {
		close(samplerDone)
	}

	// Workers: send until the deadline; the request in flight then finishes.
	sendCtx, cancelSend := context.WithTimeout(ctx, cfg.dur)
	defer cancelSend()
	perWorker := make([][]sample, cfg.conc)
	var errMu sync.Mutex
	var errSamples []string
	var wg sync.WaitGroup
	for w := 0; w < cfg.conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			out := make([]sample, 0, 4096)
			var every time.Duration
			next := time.Now()
			if cfg.rate > 0 {
				every = time.Duration(float64(cfg.conc) / cfg.rate * float64(time.Second))
				next = next.Add(time.Duration(w) * every / time.Duration(cfg.conc)) // spread the workers
			}
			for i := w; sendCtx.Err() == nil; i++ {
				if every > 0 {
					if wait := time.Until(next); wait > 0 {
						select {
						case <-time.After(wait):
						case <-sendCtx.Done():
						}
						if sendCtx.Err() != nil {
							break
						}
					}
					next = next.Add(every)
				}
				ui := i % len(cfg.urls)
				// ctx (not sendCtx): a request started before the deadline
				// runs to its end or -timeout; Ctrl-C still stops it.
				s, msg := do(ctx, client, cfg, ui, cfg.urls[ui])
				out = append(out, s)
				if msg != "" {
					errMu.Lock()
					if len(errSamples) < cfg.maxErrLog && !slices.Contains(errSamples, msg) {
						errSamples = append(errSamples, msg)
					}
					errMu.Unlock()
				}
				if s.errKind == "refused" {
					time.Sleep(10 * time.Millisecond) // server down: do not spin
				}
			}
			perWorker[w] = out
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopSampler)
	<-samplerDone

	res.Elapsed = elapsed.Seconds()
	res.LoadEnd = loadavg()
	res.ClientCPU = selfCPU() - cpu0
	if cfg.pid > 0 {
		if c, err := procCPU(cfg.pid); err == nil {
			res.ServerCPU = c - srvCPU0
		}
		res.RSS = summarizeRSS(rssSamples)
		res.RSSEvery = cfg.rssEvery.Seconds()
		if cfg.rssCSV != "" {
			if err := writeRSSCSV(cfg.rssCSV, rssSamples); err != nil {
				return nil, err
			}
		}
	}
	res.ErrorSamples = errSamples
	res.Rate = cfg.rate

	var all []sample
	byURL := make([][]sample, len(cfg.urls))
	for _, ws := range perWorker {
		all = append(all, ws...)
		for _, s := range ws {
			byURL[s.url] = append(byURL[s.url], s)
		}
	}
	res.Overall = stats("all", all, elapsed)
	if len(cfg.urls) > 1 {
		for i, u := range cfg.urls {
			res.PerURL = append(res.PerURL, stats(u.RequestURI(), byURL[i], elapsed))
		}
	} else {
		res.Overall.URL = cfg.urls[0].RequestURI()
	}
	if cfg.wantRPS > 0 || cfg.wantP99 > 0 {
		var parts []string
		met := res.Overall.Errors == 0
		if cfg.wantRPS > 0 {
			parts = append(parts, fmt.Sprintf("≥ %g req/s", cfg.wantRPS))
			met = met && res.Overall.RPS >= cfg.wantRPS
		}
		if cfg.wantP99 > 0 {
			parts = append(parts, fmt.Sprintf("p99 < %g ms", float64(cfg.wantP99)/1e6))
			met = met && res.Overall.P99ms < float64(cfg.wantP99)/1e6
		}
		res.Target = strings.Join(parts, " with ") + ", no errors"
		res.TargetMet = &met
	}
	return res, nil
}

// do sends one request and reads the whole answer. msg describes an error.
func do(ctx context.Context, client *http.Client, cfg *config, ui int, u *url.URL) (sample, string) {
	var body io.Reader
	if len(cfg.body) > 0 {
		body = bytes.NewReader(cfg.body)
	}
	req, err := http.NewRequestWithContext(ctx, cfg.method, u.String(), body)
	if err != nil {
		return sample{url: ui, errKind: "bad-request"}, err.Error()
	}
	req.Header = cfg.headers.Clone()
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return sample{url: ui, lat: time.Since(t0), errKind: errKind(err)}, err.Error()
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	var head headWriter // the start of an error's body, for the report
	var dst io.Writer = io.Discard
	if !ok {
		dst = &head
	}
	n, rerr := io.Copy(dst, resp.Body)
	resp.Body.Close()
	s := sample{url: ui, lat: time.Since(t0), status: resp.StatusCode, bytes: n}
	if rerr != nil {
		s.errKind = errKind(rerr)
		return s, fmt.Sprintf("%s: read body: %s", u.RequestURI(), rerr)
	}
	if !ok {
		return s, fmt.Sprintf("%s: %d %s", u.RequestURI(), resp.StatusCode, strings.TrimSpace(string(head.b)))
	}
	return s, ""
}

// headWriter keeps the first 200 bytes written to it.
type headWriter struct{ b []byte }

func (h *headWriter) Write(p []byte) (int, error) {
	if room := 200 - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func errKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "reset"
	}
	return "transport"
}

func stats(name string, ss []sample, elapsed time.Duration) Stats {
	st := Stats{URL: name, Requests: len(ss), ByStatus: map[string]int{}}
	if len(ss) == 0 {
		return st
	}
	lats := make([]time.Duration, len(ss))
	var sum time.Duration
	var okBytes int64
	for i, s := range ss {
		lats[i] = s.lat
		sum += s.lat
		key := s.errKind
		if key == "" {
			key = strconv.Itoa(s.status)
		}
		st.ByStatus[key]++
		if s.errKind == "" && s.status >= 200 && s.status <= 299 {
			st.OK++
			okBytes += s.bytes
		} else {
			st.Errors++
		}
	}
	slices.Sort(lats)
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
	st.P50ms = ms(percentile(lats, 50))
	st.P90ms = ms(percentile(lats, 90))
	st.P99ms = ms(percentile(lats, 99))
	st.MaxMs = ms(lats[len(lats)-1])
	st.MeanMs = ms(sum / time.Duration(len(lats)))
	st.RPS = float64(len(ss)) / elapsed.Seconds()
	if st.OK > 0 {
		st.BytesPerOK = float64(okBytes) / float64(st.OK)
	}
	return st
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return sorted[rank-1]
}

// ---- /proc ----

type rssSample struct {
	t   float64 // seconds since start
	kib int64
}

// readRSS reads VmRSS (KiB) from /proc/PID/status.
func readRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				break
			}
			return strconv.ParseInt(fields[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// procCPU is a process's user+system CPU seconds from /proc/PID/stat.
func procCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: skip past it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("parse /proc stat")
	}
	f := strings.Fields(s[i+1:])
	// After ")": state(3) ... utime is field 14, stime 15 (1-based over the whole line).
	if len(f) < 13 {
		return 0, errors.New("parse /proc stat")
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("parse /proc stat")
	}
	return (ut + st) / 100, nil // USER_HZ is 100 on Linux
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// summarizeRSS gives min/max/last and whether memory is steady: after a
// warm-up (the first fifth of the samples, when the server's caches and
// DuckDB's buffers fill), the least-squares slope is under 1% of the mean
// per minute (or negative), or the mean of the last fifth is within 5% (or
// 8 MiB) of the mean of the second fifth: a step up that does not continue.
func summarizeRSS(ss []rssSample) *RSS {
	r := &RSS{Samples: len(ss)}
	if len(ss) == 0 {
		r.SteadyReason = "no samples"
		return r
	}
	mib := func(kib int64) float64 { return math.Round(float64(kib)/1024*10) / 10 }
	lo, hi := ss[0].kib, ss[0].kib
	for _, s := range ss {
		lo, hi = min(lo, s.kib), max(hi, s.kib)
	}
	r.MinMiB, r.MaxMiB, r.FirstMiB, r.LastMiB = mib(lo), mib(hi), mib(ss[0].kib), mib(ss[len(ss)-1].kib)
	if len(ss) < 10 {
		r.SteadyReason = "too few samples to tell"
		return r
	}
	fifth := len(ss) / 5
	mean := func(part []rssSample) float64 {
		var s float64
		for _, x := range part {
			s += float64(x.kib)
		}
		return s / float64(len(part)) / 1024
	}
	rest := ss[fifth:]
	second, last := ss[fifth:2*fifth], ss[len(ss)-fifth:]
	r.FirstFifth = math.Round(mean(ss[:fifth])*10) / 10
	r.LastFifth = math.Round(mean(last)*10) / 10
	// Least squares slope over the samples after the warm-up.
	var sx, sy, sxx, sxy float64
	n := float64(len(rest))
	for _, x := range rest {
		y := float64(x.kib) / 1024
		sx += x.t
		sy += y
		sxx += x.t * x.t
		sxy += x.t * y
	}
	slope := 0.0
	if den := n*sxx - sx*sx; den != 0 {
		slope = (n*sxy - sx*sy) / den * 60 // MiB per minute
	}
	r.SlopeMiBMin = math.Round(slope*100) / 100
	r.Judged = true
	m2, mLast, avg := mean(second), mean(last), sy/n
	growth := mLast - m2
	switch {
	case slope <= 0:
		r.Steady = true
		r.SteadyReason = fmt.Sprintf("no growth: slope %.2f MiB/min after warm-up", slope)
	case slope < 0.01*avg:
		r.Steady = true
		r.SteadyReason = fmt.Sprintf("slope %.2f MiB/min after warm-up (< 1%% of %.0f MiB per minute)", slope, avg)
	case growth < math.Max(0.05*m2, 8):
		r.Steady = true
		r.SteadyReason = fmt.Sprintf("last fifth %.1f MiB vs second fifth %.1f MiB (growth %.1f MiB) despite slope %.2f MiB/min", mLast, m2, growth, slope)
	default:
		r.SteadyReason = fmt.Sprintf("growing: slope %.2f MiB/min, last fifth %.1f MiB vs second fifth %.1f MiB", slope, mLast, m2)
	}
	return r
}

func writeRSSCSV(path string, ss []rssSample) error {
	var b strings.Builder
	b.WriteString("seconds,rss_kib\n")
	for _, s := range ss {
		fmt.Fprintf(&b, "%.1f,%d\n", s.t, s.kib)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ---- output ----

func statusList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func errorList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if n, err := strconv.Atoi(k); err == nil && n >= 200 && n <= 299 {
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return "0"
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}

func writeText(w io.Writer, r *Result) {
	if r.Label != "" {
		fmt.Fprintf(w, "== %s\n", r.Label)
	}
	fmt.Fprintf(w, "%s, %d connections, %.0fs asked, %.1fs elapsed; load average %s -> %s; load generator CPU %.1fs",
		r.Method, r.Concurrency, r.Duration, r.Elapsed, r.LoadStart, r.LoadEnd, r.ClientCPU)
	if r.ServerCPU > 0 {
		fmt.Fprintf(w, ", server CPU %.1fs (%.2f cores)", r.ServerCPU, r.ServerCPU/r.Elapsed)
	}
	fmt.Fprintln(w)
	line := func(s Stats) {
		fmt.Fprintf(w, "%-60s %8d req %9.1f req/s  p50 %8.2f  p90 %8.2f  p99 %8.2f  max %8.2f ms  statuses: %s\n",
			s.URL, s.Requests, s.RPS, s.P50ms, s.P90ms, s.P99ms, s.MaxMs, statusList(s.ByStatus))
	}
	line(r.Overall)
	for _, s := range r.PerURL {
		line(s)
	}
	for _, e := range r.ErrorSamples {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	if r.TargetMet != nil {
		fmt.Fprintf(w, "target %s: %s\n", r.Target, metWord(*r.TargetMet))
	}
	if r.RSS != nil {
		fmt.Fprintf(w, "server RSS: %d samples, min %.1f MiB, max %.1f MiB, first %.1f, last %.1f; steady: %v (%s)\n",
			r.RSS.Samples, r.RSS.MinMiB, r.RSS.MaxMiB, r.RSS.FirstMiB, r.RSS.LastMiB, r.RSS.Steady, r.RSS.SteadyReason)
	}
}

// writeRow writes the overall numbers as one markdown table row.
func writeRow(w io.Writer, r *Result) {
	s := r.Overall
	name := s.URL
	if len(r.PerURL) > 0 {
		var us []string
		for _, p := range r.PerURL {
			us = append(us, p.URL)
		}
		name = strings.Join(us, " + ")
	}
	cores := "-"
	if r.ServerCPU > 0 {
		cores = fmt.Sprintf("%.2f", r.ServerCPU/r.Elapsed)
	}
	fmt.Fprintf(w, "| `%s` | %.1f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |\n", strings.ReplaceAll(name, "|", `\|`),
		s.RPS, s.P50ms, s.P90ms, s.P99ms, s.MaxMs, errorList(s.ByStatus), cores, r.LoadEnd)
}

func writeMarkdown(w io.Writer, r *Result) {
	if r.Label != "" {
		fmt.Fprintf(w, "**%s** — %s, %d connections, %.0f s (%.1f s until the last answer); load average %s → %s; load generator CPU %.1f s",
			r.Label, r.Method, r.Concurrency, r.Duration, r.Elapsed, r.LoadStart, r.LoadEnd, r.ClientCPU)
	} else {
		fmt.Fprintf(w, "%s, %d connections, %.0f s (%.1f s until the last answer); load average %s → %s; load generator CPU %.1f s",
			r.Method, r.Concurrency, r.Duration, r.Elapsed, r.LoadStart, r.LoadEnd, r.ClientCPU)
	}
	if r.ServerCPU > 0 {
		fmt.Fprintf(w, "; server CPU %.1f s (%.2f cores)", r.ServerCPU, r.ServerCPU/r.Elapsed)
	}
	if r.Rate > 0 {
		fmt.Fprintf(w, "; paced at %g req/s", r.Rate)
	}
	fmt.Fprint(w, "\n\n")
	fmt.Fprintln(w, "| URL | requests | req/s | p50 ms | p90 ms | p99 ms | max ms | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|")
	row := func(name string, s Stats) {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n",
			name, s.Requests, s.RPS, s.P50ms, s.P90ms, s.P99ms, s.MaxMs, errorList(s.ByStatus))
	}
	for _, s := range r.PerURL {
		row("`"+strings.ReplaceAll(s.URL, "|", `\|`)+"`", s)
	}
	name := "**all**"
	if len(r.PerURL) == 0 {
		name = "`" + strings.ReplaceAll(r.Overall.URL, "|", `\|`) + "`"
	}
	row(name, r.Overall)
	if r.TargetMet != nil {
		fmt.Fprintf(w, "\nTarget %s (overall): **%s** (%.0f req/s, p99 %.2f ms, %d errors)\n",
			r.Target, metWord(*r.TargetMet), r.Overall.RPS, r.Overall.P99ms, r.Overall.Errors)
	}
	if r.RSS != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| server RSS | samples | min MiB | max MiB | first MiB | last MiB | slope MiB/min | steady |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|")
		steady := "no"
		if !r.RSS.Judged {
			steady = "?"
		} else if r.RSS.Steady {
			steady = "yes"
		}
		fmt.Fprintf(w, "| every %g s | %d | %.1f | %.1f | %.1f | %.1f | %.2f | %s: %s |\n", r.RSSEvery, r.RSS.Samples, r.RSS.MinMiB, r.RSS.MaxMiB,
			r.RSS.FirstMiB, r.RSS.LastMiB, r.RSS.SlopeMiBMin, steady, r.RSS.SteadyReason)
	}
	if len(r.ErrorSamples) > 0 {
		fmt.Fprintln(w)
		for _, e := range r.ErrorSamples {
			fmt.Fprintf(w, "- first errors: %s\n", strings.ReplaceAll(e, "\n", " "))
		}
	}
	fmt.Fprintln(w)
}
