package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// BenchmarkCachedReports serves the cached pages and API reports of the
// five URLs scripts/bench-serve.sh loads, in process (no sockets): what a
// cached request costs the server's CPU.
//
//	go test ./server -run '^$' -bench CachedReports -cpuprofile /tmp/serve.prof
func BenchmarkCachedReports(b *testing.B) {
	s, err := New(context.Background(), Options{Dir: fixture(b), Addr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	urls := []string{
		"/",
		q("/checks/gaps", "topic", topic),
		q("/checks/skew", "topic", topic),
		q("/api/checks/gaps", "topic", topic),
		q("/api/checks/duplicates", "topic", topic, "id", "value.event_id"),
	}
	get := func(u string) {
		r := httptest.NewRequest(http.MethodGet, u, nil)
		r.RemoteAddr, r.Host = "127.0.0.1:40000", "127.0.0.1:18080"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", u, w.Code, w.Body.String())
		}
	}
	for _, u := range urls {
		get(u) // fill the cache
	}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		get(urls[i%len(urls)])
		i++
	}
}

// BenchmarkFront compares a request served in process with one that the
// front forwards to a worker, both over a real socket: a cached page and
// a small /api/sql query.
//
//	go test ./server -run '^$' -bench Front -benchtime 200x
func BenchmarkFront(b *testing.B) {
	dir := fixture(b)
	for _, mode := range []struct {
		name    string
		workers int
	}{{"in-process", 0}, {"workers", 2}} {
		o := Options{Dir: dir, Addr: "127.0.0.1:0", Workers: mode.workers}
		if mode.workers > 0 {
			o.WorkerCommand = []string{os.Args[0], workerArg}
		}
		s, err := New(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		page := ts.URL + q("/checks/gaps", "topic", topic)
		for range 10 { // fill the cache, of every worker
			if res, err := http.Get(page); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}
		for _, req := range []struct {
			name string
			do   func() (*http.Response, error)
		}{
			{"cached page", func() (*http.Response, error) { return http.Get(page) }},
			{"small sql", func() (*http.Response, error) {
				return http.Post(ts.URL+"/api/sql", "application/json", strings.NewReader(`{"sql":"SELECT 41 + 1 AS answer"}`))
			}},
		} {
			b.Run(mode.name+"/"+req.name, func(b *testing.B) {
				for b.Loop() {
					res, err := req.do()
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						b.Fatalf("%d", res.StatusCode)
					}
				}
			})
		}
		ts.Close()
		s.Close()
	}
}
