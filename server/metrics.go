package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// durationBuckets are the upper bounds, in seconds, of the request
// duration histogram.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

type requestKey struct {
	path string
	code int
}

// histogram is one Prometheus histogram: counts per bucket (not
// cumulative; made so when written), sum and count.
type histogram struct {
	buckets []uint64
	sum     float64
	count   uint64
}

// metrics are the server's counters, written by hand in the Prometheus
// text exposition format.
type metrics struct {
	mu        sync.Mutex
	requests  map[requestKey]uint64
	durations map[string]*histogram // by path
	caches    map[string]*[2]uint64 // hits, misses by cache
	// report, in a worker, keeps the cache events of the request being
	// served, for the front (takeCacheEvents).
	report  bool
	pending []string
}

func newMetrics() *metrics {
	return &metrics{requests: map[requestKey]uint64{}, durations: map[string]*histogram{}, caches: map[string]*[2]uint64{}}
}

func (m *metrics) request(path string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{path, code}]++
	h := m.durations[path]
	if h == nil {
		h = &histogram{buckets: make([]uint64, len(durationBuckets))}
		m.durations[path] = h
	}
	sec := d.Seconds()
	for i, b := range durationBuckets {
		if sec <= b {
			h.buckets[i]++
			break
		}
	}
	h.sum += sec
	h.count++
}

// cache counts a hit or a miss of the named cache.
func (m *metrics) cache(name string, hit bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.caches[name]
	if c == nil {
		c = &[2]uint64{}
		m.caches[name] = c
	}
	if hit {
		c[0]++
	} else {
		c[1]++
	}
	if m.report {
		ev := name + "=miss"
		if hit {
			ev = name + "=hit"
		}
		m.pending = append(m.pending, ev)
	}
}

// takeCacheEvents returns and forgets the cache events since the last
// call: in a worker, which serves one request at a time, the request's.
func (m *metrics) takeCacheEvents() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ev := m.pending
	m.pending = nil
	return ev
}

// cacheCounts returns the hits and misses of the named cache so far.
func (m *metrics) cacheCounts(name string) (hits, misses uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.caches[name]; c != nil {
		return c[0], c[1]
	}
	return 0, 0
}

// write writes the request and cache metrics.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].path != keys[j].path {
			return keys[i].path < keys[j].path
		}
		return keys[i].code < keys[j].code
	})
	fmt.Fprintln(w, "# HELP topicsnap_http_requests_total HTTP requests by route and status code.")
	fmt.Fprintln(w, "# TYPE topicsnap_http_requests_total counter")
	for _, k := range keys {
		fmt.Fprintf(w, "topicsnap_http_requests_total{path=%s,code=\"%d\"} %d\n", label(k.path), k.code, m.requests[k])
	}
	paths := make([]string, 0, len(m.durations))
	for p := range m.durations {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	fmt.Fprintln(w, "# HELP topicsnap_http_request_duration_seconds Time to serve a request, by route.")
	fmt.Fprintln(w, "# TYPE topicsnap_http_request_duration_seconds histogram")
	for _, p := range paths {
		h := m.durations[p]
		var cum uint64
		for i, b := range durationBuckets {
			cum += h.buckets[i]
			fmt.Fprintf(w, "topicsnap_http_request_duration_seconds_bucket{path=%s,le=\"%s\"} %d\n", label(p), strconv.FormatFloat(b, 'g', -1, 64), cum)
		}
		fmt.Fprintf(w, "topicsnap_http_request_duration_seconds_bucket{path=%s,le=\"+Inf\"} %d\n", label(p), h.count)
		fmt.Fprintf(w, "topicsnap_http_request_duration_seconds_sum{path=%s} %s\n", label(p), strconv.FormatFloat(h.sum, 'g', -1, 64))
		fmt.Fprintf(w, "topicsnap_http_request_duration_seconds_count{path=%s} %d\n", label(p), h.count)
	}
	names := make([]string, 0, len(m.caches))
	for n := range m.caches {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "# HELP topicsnap_cache_hits_total Results served from a cache (reports: check reports; charts; overview: the whole overview).")
	fmt.Fprintln(w, "# TYPE topicsnap_cache_hits_total counter")
	for _, n := range names {
		fmt.Fprintf(w, "topicsnap_cache_hits_total{cache=%s} %d\n", label(n), m.caches[n][0])
	}
	fmt.Fprintln(w, "# HELP topicsnap_cache_misses_total Results computed because no cache had them.")
	fmt.Fprintln(w, "# TYPE topicsnap_cache_misses_total counter")
	for _, n := range names {
		fmt.Fprintf(w, "topicsnap_cache_misses_total{cache=%s} %d\n", label(n), m.caches[n][1])
	}
}

// label quotes a label value as the exposition format wants.
func label(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(v) + `"`
}

// handleMetrics writes the metrics, then the catalog's numbers.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.metrics.write(w)
	if s.pool != nil {
		fmt.Fprintln(w, "# HELP topicsnap_workers Query worker processes running.")
		fmt.Fprintln(w, "# TYPE topicsnap_workers gauge")
		fmt.Fprintf(w, "topicsnap_workers %d\n", len(s.pool.pids()))
		fmt.Fprintln(w, "# HELP topicsnap_worker_starts_total Query workers started, the first ones and the restarts after a crash, a kill or a cap.")
		fmt.Fprintln(w, "# TYPE topicsnap_worker_starts_total counter")
		fmt.Fprintf(w, "topicsnap_worker_starts_total %d\n", s.pool.started.Load())
		s.workerMetrics(r.Context(), w) // the rest is one worker's
		return
	}
	s.writeEngineMetrics(r.Context(), w)
}

// writeEngineMetrics writes the report cache's and the catalog's numbers.
func (s *Server) writeEngineMetrics(ctx context.Context, w io.Writer) {
	items, bytes := s.cache.usage()
	fmt.Fprintln(w, "# HELP topicsnap_report_cache_bytes Estimated bytes the report cache holds (bound: topicsnap_report_cache_max_bytes).")
	fmt.Fprintln(w, "# TYPE topicsnap_report_cache_bytes gauge")
	fmt.Fprintf(w, "topicsnap_report_cache_bytes %d\n", bytes)
	fmt.Fprintln(w, "# HELP topicsnap_report_cache_max_bytes The report cache's bound.")
	fmt.Fprintln(w, "# TYPE topicsnap_report_cache_max_bytes gauge")
	fmt.Fprintf(w, "topicsnap_report_cache_max_bytes %d\n", s.cache.maxBytes)
	fmt.Fprintln(w, "# HELP topicsnap_report_cache_entries Entries in the report cache.")
	fmt.Fprintln(w, "# TYPE topicsnap_report_cache_entries gauge")
	fmt.Fprintf(w, "topicsnap_report_cache_entries %d\n", items)
	s.writeCatalogMetrics(ctx, w)
}

func (s *Server) writeCatalogMetrics(ctx context.Context, w io.Writer) {
	topics := s.engine.Topics()
	files := 0
	for _, t := range topics {
		files += t.Files
	}
	fmt.Fprintln(w, "# HELP topicsnap_catalog_files Parquet files the catalog lists.")
	fmt.Fprintln(w, "# TYPE topicsnap_catalog_files gauge")
	fmt.Fprintf(w, "topicsnap_catalog_files %d\n", files)
	fmt.Fprintln(w, "# HELP topicsnap_topic_records Stored records (data and control) per topic.")
	fmt.Fprintln(w, "# TYPE topicsnap_topic_records gauge")
	for _, t := range topics {
		fmt.Fprintf(w, "topicsnap_topic_records{topic=%s} %d\n", label(t.Name), t.Records)
	}
	lost, err := s.lostByTopic(ctx)
	if err != nil {
		s.logf("metrics: %s", s.clean(err))
		return
	}
	fmt.Fprintln(w, "# HELP topicsnap_topic_lost_ranges Offset ranges Kafka deleted before they were dumped, per topic.")
	fmt.Fprintln(w, "# TYPE topicsnap_topic_lost_ranges gauge")
	for _, t := range topics {
		fmt.Fprintf(w, "topicsnap_topic_lost_ranges{topic=%s} %d\n", label(t.Name), lost[t.Name][0])
	}
	fmt.Fprintln(w, "# HELP topicsnap_topic_lost_offsets Offsets in lost ranges, per topic.")
	fmt.Fprintln(w, "# TYPE topicsnap_topic_lost_offsets gauge")
	for _, t := range topics {
		fmt.Fprintf(w, "topicsnap_topic_lost_offsets{topic=%s} %d\n", label(t.Name), lost[t.Name][1])
	}
}

// lostByTopic counts lost ranges and their offsets per topic.
func (s *Server) lostByTopic(ctx context.Context) (map[string][2]int64, error) {
	rows, err := s.engine.Query(ctx, `SELECT topic, count(*), coalesce(sum(offsets), 0)::BIGINT FROM lost_ranges GROUP BY topic`)
	if err != nil {
		return nil, fmt.Errorf("count lost ranges: %w", err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var t string
		var n, offsets int64
		if err := rows.Scan(&t, &n, &offsets); err != nil {
			return nil, fmt.Errorf("count lost ranges: %w", err)
		}
		out[t] = [2]int64{n, offsets}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count lost ranges: %w", err)
	}
	return out, nil
}
