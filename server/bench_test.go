package server

import (
	"context"
	"net/http"
	"net/http/httptest"
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
