package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/queries"
)

// testCookieName is the session cookie's name for a test server.
func testCookieName(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	return "topicsnap_session_" + u.Port()
}

// TestDriveBy: a request another origin's page made (an <img>, a script, a
// fetch, a form) is refused on every route that computes; a top-level
// navigation from elsewhere, a request from our own pages and a client
// that is not a browser are served.
func TestDriveBy(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	self := ts.URL // http://127.0.0.1:PORT
	u, _ := url.Parse(self)
	otherPort := "http://127.0.0.1:1" + u.Port() // another port of this host: "same-site"
	if u.Port() == "1" {
		otherPort = "http://127.0.0.1:2"
	}
	nav := map[string]string{"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
	h := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := h(kv...)
		for k, v := range base {
			m[k] = v
		}
		return m
	}
	img := h("Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "image")
	check := q("/api/checks/duplicates", "topic", topic)
	sqlBody := `{"sql":"SELECT 1"}`
	cases := []struct {
		name, method, path string
		header             map[string]string
		code               int
	}{
		{"img from another port, API check", "GET", check, img, 403},
		{"img from another port, check page", "GET", q("/checks/skew", "topic", topic), img, 403},
		{"img from another port, overview", "GET", "/", img, 403},
		{"img from another port, notebook", "GET", "/notebooks/did-kafka-lose-my-event.md", img, 403},
		{"img from another site", "GET", check, with(img, "Sec-Fetch-Site", "cross-site"), 403},
		{"script from another site", "GET", check, h("Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "script"), 403},
		{"fetch from another port", "GET", check, h("Sec-Fetch-Site", "same-site", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty", "Origin", otherPort), 403},
		{"iframe from another site", "GET", "/", h("Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"), 403},
		{"form POST from another port", "POST", "/api/sql", with(nav, "Sec-Fetch-Site", "same-site", "Content-Type", "application/json"), 403},
		{"fetch POST from another site", "POST", "/api/sql", h("Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Content-Type", "application/json"), 403},
		{"old browser, Origin of another port", "POST", "/api/sql", h("Origin", otherPort, "Content-Type", "application/json"), 403},
		{"old browser, Origin null", "POST", "/api/sql", h("Origin", "null", "Content-Type", "application/json"), 403},
		{"old browser, Origin of another site", "GET", check, h("Origin", "https://evil.example"), 403},
		{"old browser, Referer of another port", "GET", check, h("Referer", otherPort+"/page.html"), 403},
		{"link from a chat, check page", "GET", q("/checks/gaps", "topic", topic), with(nav, "Sec-Fetch-Site", "cross-site", "Sec-Fetch-User", "?1"), 200},
		{"link from another port, overview", "GET", "/", with(nav, "Sec-Fetch-Site", "same-site"), 200},
		{"link from a chat, API", "GET", check, with(nav, "Sec-Fetch-Site", "cross-site"), 200},
		{"typed in the address bar", "GET", check, with(nav, "Sec-Fetch-Site", "none"), 200},
		{"our own fetch", "POST", "/api/sql", h("Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "cors", "Origin", self, "Content-Type", "application/json"), 200},
		{"our own form under no-referrer", "POST", "/api/sql", h("Sec-Fetch-Site", "same-origin", "Origin", "null", "Content-Type", "application/json"), 200},
		{"old browser, our Origin", "POST", "/api/sql", h("Origin", self, "Content-Type", "application/json"), 200},
		{"old browser, our Referer", "GET", check, h("Referer", self+"/"), 200},
		{"curl", "GET", check, nil, 200},
		{"curl POST", "POST", "/api/sql", h("Content-Type", "application/json"), 200},
		{"static from anywhere", "GET", "/static/style.css", img, 200},
		{"healthz from anywhere", "GET", "/healthz", img, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader
			if c.method == "POST" {
				body = strings.NewReader(sqlBody)
			}
			r := do(t, c.method, ts.URL+c.path, body, c.header)
			if r.code != c.code {
				t.Fatalf("%s %s %v: %d, want %d: %.300s", c.method, c.path, c.header, r.code, c.code, r.body)
			}
		})
	}
}

func TestLocalRedirect(t *testing.T) {
	cases := []struct{ next, want string }{
		{"/checks/gaps?topic=a", "/checks/gaps?topic=a"},
		{"/", "/"},
		{"/notebooks/a%20b.md?key=x%26y", "/notebooks/a%20b.md?key=x%26y"},
		{"", "/"},
		{"//evil.example/", "/"},
		{"///evil.example/", "/"},
		{"/\\evil.example/", "/"},
		{"\\\\evil.example/", "/"},
		{"/\t/localhost:8080/", "/"},
		{"/\n/evil.example", "/"},
		{"/%09/localhost:8080/", "/"},
		{"/%0a/evil.example", "/"},
		{"/%2F%2Fevil.example", "/"},
		{"/%2f/evil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"%2F%2Fevil.example", "/"},
		{"https://evil.example/", "/"},
		{"http:evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"//user@evil.example", "/"},
		{" /checks", "/"},
		{"/\x7f/evil", "/"},
	}
	for _, c := range cases {
		if got := localRedirect(c.next); got != c.want {
			t.Errorf("localRedirect(%q) = %q, want %q", c.next, got, c.want)
		}
	}
	// Through the server: the login form's redirect, query-escaped as the
	// issue found it.
	_, ts := newTestServer(t, Options{})
	for _, next := range []string{"/%09/localhost:1/", "//evil.example/", "/%5Cevil.example"} {
		r := get(t, ts.URL+"/login?next="+url.QueryEscape(next))
		if loc := r.header.Get("Location"); r.code != http.StatusSeeOther || loc != "/" {
			t.Errorf("login?next=%s: %d Location %q, want 303 to /", next, r.code, loc)
		}
	}
	r := get(t, ts.URL+"/login?next=/%09/localhost:1/")
	if strings.ContainsAny(r.header.Get("Location"), "\t") {
		t.Errorf("a tab in Location")
	}
}

// login posts the token and returns the session cookie.
func login(t *testing.T, ts *httptest.Server, token string) (*http.Cookie, response) {
	t.Helper()
	r := do(t, "POST", ts.URL+"/login", strings.NewReader(url.Values{"token": {token}}.Encode()),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == testCookieName(t, ts) {
			return c, r
		}
	}
	return nil, r
}

func TestSessions(t *testing.T) {
	s, ts := newTestServer(t, Options{Token: "s3cret"})
	name := testCookieName(t, ts)
	withCookie := func(v string) map[string]string { return map[string]string{"Cookie": name + "=" + v} }

	a, r := login(t, ts, "s3cret")
	if a == nil {
		t.Fatalf("login set no cookie named %s: %d %v", name, r.code, r.header)
	}
	b, _ := login(t, ts, "s3cret")
	if a.Value == b.Value || len(a.Value) < 40 || strings.Contains(a.Value, "s3cret") {
		t.Errorf("session ids %q and %q: want two different random ids", a.Value, b.Value)
	}
	if a.MaxAge != int(sessionTTL/time.Second) || !a.HttpOnly || a.SameSite != http.SameSiteStrictMode || a.Path != "/" {
		t.Errorf("cookie %+v", a)
	}
	if r := do(t, "GET", ts.URL+"/api/topics", nil, withCookie(a.Value)); r.code != 200 {
		t.Fatalf("with the session: %d", r.code)
	}

	t.Run("logout ends the session on the server", func(t *testing.T) {
		r := do(t, "POST", ts.URL+"/logout", nil, withCookie(a.Value))
		if r.code != http.StatusSeeOther {
			t.Fatalf("logout: %d", r.code)
		}
		// The old value, replayed, is worth nothing.
		if r := do(t, "GET", ts.URL+"/api/topics", nil, withCookie(a.Value)); r.code != 401 {
			t.Errorf("after logout, API: %d, want 401", r.code)
		}
		if r := do(t, "GET", ts.URL+"/", nil, withCookie(a.Value)); r.code != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Errorf("after logout, page: %d %q, want 303 to the login form", r.code, r.header.Get("Location"))
		}
		if r := do(t, "GET", ts.URL+"/api/topics", nil, withCookie(b.Value)); r.code != 200 {
			t.Errorf("the other session: %d", r.code)
		}
	})

	t.Run("sessions expire", func(t *testing.T) {
		now := time.Now()
		ss := newSessions(func() time.Time { return now })
		id := ss.create()
		now = now.Add(sessionTTL - time.Second)
		if !ss.valid(id) {
			t.Fatal("not valid before its expiry")
		}
		now = now.Add(time.Second)
		if ss.valid(id) {
			t.Error("valid at its expiry")
		}
		if ss.valid("") || ss.valid("made-up") {
			t.Error("a made-up id is valid")
		}
	})

	t.Run("the table is bounded", func(t *testing.T) {
		ss := newSessions(time.Now)
		first := ss.create()
		for range maxSessions {
			ss.create()
		}
		if len(ss.m) != maxSessions || ss.valid(first) {
			t.Errorf("%d sessions, first still valid: %v", len(ss.m), ss.valid(first))
		}
	})

	t.Run("a cookie of another server is not valid here", func(t *testing.T) {
		// Another topicsnap on another port of the host, same token: the
		// browser sends its cookie here too, under its own name or ours.
		_, other := newTestServer(t, Options{Token: "s3cret"})
		oc, _ := login(t, other, "s3cret")
		if oc == nil || oc.Name == name {
			t.Fatalf("the other server's cookie %+v has our name %s", oc, name)
		}
		for _, hdr := range []string{oc.Name + "=" + oc.Value, name + "=" + oc.Value} {
			if r := do(t, "GET", ts.URL+"/api/topics", nil, map[string]string{"Cookie": hdr}); r.code != 401 {
				t.Errorf("Cookie: %s: %d, want 401", hdr, r.code)
			}
		}
		_ = s
	})
}

func TestSessionCookieName(t *testing.T) {
	cases := []struct {
		host string
		tls  bool
		want string
	}{
		{"127.0.0.1:8080", false, "topicsnap_session_8080"},
		{"localhost:9000", false, "topicsnap_session_9000"},
		{"[::1]:8081", false, "topicsnap_session_8081"},
		{"example.com", false, "topicsnap_session_80"},
		{"example.com", true, "__Host-topicsnap_session_443"},
		{"example.com:8443", true, "__Host-topicsnap_session_8443"},
		{"127.0.0.1:80x;y", false, "topicsnap_session_0"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = c.host
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if got := sessionCookieName(r); got != c.want {
			t.Errorf("%s tls=%v: %q, want %q", c.host, c.tls, got, c.want)
		}
	}
}

// TestTokenGuessesAreLimited: wrong tokens from one address use up a
// small bucket; then even the right token gets 429 with Retry-After until
// the bucket refills. The clock is the server's, moved by the test.
func TestTokenGuessesAreLimited(t *testing.T) {
	s, ts := newTestServer(t, Options{Token: "s3cret"})
	now := time.Now()
	s.fails.now = func() time.Time { return now }
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	form := func(tok string) (io.Reader, map[string]string) {
		return strings.NewReader(url.Values{"token": {tok}}.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	}
	for i := range failBurst {
		path, method := "/api/topics", "GET"
		var body io.Reader
		hdr := bearer(fmt.Sprintf("guess%d", i))
		if i%2 == 1 { // the login form and the bearer header share the bucket
			path, method = "/login", "POST"
			body, hdr = form(fmt.Sprintf("guess%d", i))
		}
		if r := do(t, method, ts.URL+path, body, hdr); r.code != 401 {
			t.Fatalf("guess %d: %d, want 401", i, r.code)
		}
	}
	for _, c := range []struct {
		name, method, path string
		body               func() (io.Reader, map[string]string)
	}{
		{"bearer", "GET", "/api/topics", func() (io.Reader, map[string]string) { return nil, bearer("s3cret") }},
		{"login form", "POST", "/login", func() (io.Reader, map[string]string) { return form("s3cret") }},
	} {
		body, hdr := c.body()
		r := do(t, c.method, ts.URL+c.path, body, hdr)
		if r.code != http.StatusTooManyRequests {
			t.Errorf("%s, right token with the bucket empty: %d, want 429", c.name, r.code)
		}
		if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs < 1 || secs > int(failRefill/time.Second) {
			t.Errorf("%s: Retry-After %q", c.name, r.header.Get("Retry-After"))
		}
	}
	now = now.Add(failRefill)
	if r := do(t, "GET", ts.URL+"/api/topics", nil, bearer("s3cret")); r.code != 200 {
		t.Errorf("after %s: %d, want 200", failRefill, r.code)
	}
	// A session is not a guess: it goes on working while the bucket is empty.
	c, _ := login(t, ts, "s3cret")
	for range failBurst + 1 {
		do(t, "GET", ts.URL+"/api/topics", nil, bearer("nope"))
	}
	if c == nil {
		t.Fatal("no session")
	}
	if r := do(t, "GET", ts.URL+"/api/topics", nil, map[string]string{"Cookie": c.Name + "=" + c.Value}); r.code != 200 {
		t.Errorf("session while the bucket is empty: %d", r.code)
	}
}

// TestGuessBucketPerIPv6Network: the addresses of one IPv6 /64 (what one
// host is given) share one bucket; keyed by address, each of its 2^64
// addresses had five guesses of its own.
func TestGuessBucketPerIPv6Network(t *testing.T) {
	addr := func(remote string) string { return clientAddr(&http.Request{RemoteAddr: remote}) }
	for _, c := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:5000", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:6000"},
		{"[2001:db8:1:2::1]:5000", "[2001:db8:1:2::1%eth0]:5000"},
		{"10.0.0.1:5000", "10.0.0.1:6000"},
		{"[::ffff:10.0.0.1]:1", "10.0.0.1:2"},
	} {
		if addr(c.a) != addr(c.b) {
			t.Errorf("%s and %s have buckets %q and %q; want one", c.a, c.b, addr(c.a), addr(c.b))
		}
	}
	for _, c := range []struct{ a, b string }{
		{"[2001:db8:1:2::1]:5000", "[2001:db8:1:3::1]:5000"},
		{"10.0.0.1:5000", "10.0.0.2:5000"},
		{"[::1]:5000", "127.0.0.1:5000"},
	} {
		if addr(c.a) == addr(c.b) {
			t.Errorf("%s and %s share bucket %q", c.a, c.b, addr(c.a))
		}
	}
	l := newFailLimiter(time.Now)
	for i := range failBurst {
		l.failed(addr(fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1)))
	}
	if l.wait(addr("[2001:db8:1:2::beef]:443")) == 0 {
		t.Error("a sixth address of the /64 may guess after five guesses from the others")
	}
}

func TestFailLimiterIsBounded(t *testing.T) {
	l := newFailLimiter(time.Now)
	for i := range maxFailBucket + 10 {
		l.failed(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
	}
	if len(l.m) > maxFailBucket {
		t.Errorf("%d addresses kept, bound %d", len(l.m), maxFailBucket)
	}
}

func TestCacheIsBoundedInBytes(t *testing.T) {
	svg := func(n int) []chart.Chart {
		return []chart.Chart{{SVG: template.HTML("<svg>" + strings.Repeat("x", n) + "</svg>")}}
	}
	c := newReportCache(512, 1<<20) // 1 MiB
	for i := range 40 {
		if !c.put("v1", fmt.Sprint("k", i), cached{charts: svg(100 << 10)}) { // ~100 KiB each
			t.Fatalf("entry %d not kept", i)
		}
		if _, b := c.usage(); b > 1<<20 {
			t.Fatalf("after %d entries: %d bytes held, bound %d", i+1, b, 1<<20)
		}
	}
	n, b := c.usage()
	if n < 8 || n > 10 {
		t.Errorf("%d entries (%d bytes) of ~100 KiB in 1 MiB", n, b)
	}
	if _, ok := c.get("v1", "k39"); !ok {
		t.Error("the newest entry is gone")
	}
	if _, ok := c.get("v1", "k0"); ok {
		t.Error("the oldest entry is still there")
	}
	// An entry larger than an eighth of the bound is served, not kept.
	if c.put("v1", "big", cached{charts: svg(200 << 10)}) {
		t.Error("a 200 KiB entry kept in a 1 MiB cache")
	}
	// The entry bound holds too.
	c = newReportCache(3, 1<<20)
	for i := range 5 {
		c.put("v1", fmt.Sprint("k", i), cached{err: errors.New("x")})
	}
	if n, _ := c.usage(); n != 3 {
		t.Errorf("%d entries, bound 3", n)
	}
	// A new catalog version starts over.
	c.put("v2", "k", cached{err: errors.New("x")})
	if n, _ := c.usage(); n != 1 {
		t.Errorf("%d entries after a new version", n)
	}
}

// TestCacheEstimate checks that a report's estimated size is not below
// what building it allocates: a report shaped like skew's what-if rows.
// Rows are allocated at their final size, so what is allocated is what is
// held; the least of three builds keeps other goroutines' allocations out.
func TestCacheEstimate(t *testing.T) {
	const n = 10000
	build := func() *queries.Report {
		r := &queries.Report{Check: "skew", Topic: "t", Status: "warn", Message: "m", Rows: make([]queries.Row, 0, n)}
		for i := range n {
			r.Rows = append(r.Rows, queries.Row{Keys: []string{"kind", "partition", "records", "share"}, Vals: map[string]any{
				"kind": "what_if", "partition": int64(i), "records": int64(i * 7), "share": float64(i) / float64(n),
			}})
		}
		return r
	}
	var held int64 = -1
	var r *queries.Report
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r = build()
		runtime.ReadMemStats(&after)
		if a := int64(after.TotalAlloc - before.TotalAlloc); held < 0 || a < held {
			held = a
		}
	}
	est := cached{report: r}.size()
	t.Logf("%d rows: %d bytes allocated, %d estimated", n, held, est)
	if est < held || est > 3*held {
		t.Errorf("estimate %d for %d bytes allocated: want between 1 and 3 times", est, held)
	}
}

func TestWhatIfPartitionsBound(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	if r := get(t, ts.URL+q("/api/checks/skew", "topic", topic, "what_if_key", "key", "what_if_partitions", "10001")); r.code != 400 || !strings.Contains(r.body, "what_if_partitions") {
		t.Errorf("10001 partitions: %d %s", r.code, r.body)
	}
	if r := get(t, ts.URL+q("/api/checks/skew", "topic", topic, "what_if_key", "key", "what_if_partitions", "10000")); r.code != 200 {
		t.Errorf("10000 partitions: %d %s", r.code, r.body)
	}
}

// TestChecksAreBounded: with every check slot taken, a check that is not
// cached gets 429 with Retry-After, on the API, on its page and on a
// notebook; a cached one is still served.
func TestChecksAreBounded(t *testing.T) {
	s, ts := newTestServer(t, Options{MaxConcurrentChecks: 2})
	cachedPath := q("/api/checks/gaps", "topic", topic)
	if r := get(t, ts.URL+cachedPath); r.code != 200 {
		t.Fatalf("warm: %d", r.code)
	}
	for range cap(s.checkSlots) {
		s.checkSlots <- struct{}{}
	}
	for _, path := range []string{
		q("/api/checks/duplicates", "topic", topic),
		q("/checks/lag", "topic", topic),
		"/notebooks/did-kafka-lose-my-event.md",
	} {
		r := get(t, ts.URL+path)
		if r.code != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Errorf("%s with every slot taken: %d Retry-After %q, want 429", path, r.code, r.header.Get("Retry-After"))
		}
	}
	if r := get(t, ts.URL+cachedPath); r.code != 200 {
		t.Errorf("cached check with every slot taken: %d", r.code)
	}
	for range cap(s.checkSlots) {
		<-s.checkSlots
	}
	if r := get(t, ts.URL+q("/api/checks/duplicates", "topic", topic)); r.code != 200 {
		t.Errorf("with the slots free again: %d", r.code)
	}
}

// TestSQLIsBoundedInBytes: no answer of /api/sql passes maxResultBytes,
// not even one made of a single value larger than it; the rows that fit
// are kept and the answer says it was cut.
func TestSQLIsBoundedInBytes(t *testing.T) {
	_, ts := newTestServer(t, Options{QueryTimeout: 10 * time.Second})
	js := map[string]string{"Content-Type": "application/json"}
	cases := []struct {
		name, sql, format string
		rows              int // rows expected, -1: some, fewer than asked
	}{
		{"one value past the bound", `SELECT repeat('x', 40000000) AS big`, "json", 0},
		{"one value past the bound, csv", `SELECT repeat('x', 40000000) AS big`, "csv", 0},
		{"one value past the bound, arrow", `SELECT repeat('x', 40000000) AS big`, "arrow", 0},
		{"a list past the bound", `SELECT range(0, 2000000) AS r`, "json", 0},
		{"rows past the bound", `SELECT repeat('x', 1000000) AS s FROM range(100)`, "json", -1},
		{"rows past the bound, csv", `SELECT repeat('x', 1000000) AS s FROM range(100)`, "csv", -1},
		{"rows past the bound, arrow", `SELECT repeat('x', 1000000) AS s FROM range(100)`, "arrow", -1},
		{"escapes grow JSON past the estimate", `SELECT repeat(chr(1), 1000000) AS s FROM range(100)`, "json", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, "POST", ts.URL+"/api/sql", strings.NewReader(fmt.Sprintf(`{"sql": %q, "format": %q}`, c.sql, c.format)), js)
			if r.code != 200 {
				t.Fatalf("%d: %.300s", r.code, r.body)
			}
			if len(r.body) > maxResultBytes+4096 {
				t.Errorf("%d bytes, bound %d", len(r.body), maxResultBytes)
			}
			n, _ := strconv.Atoi(r.header.Get("X-Topicsnap-Rows"))
			if r.header.Get("X-Topicsnap-Truncated") != "true" || (c.rows >= 0 && n != c.rows) || (c.rows < 0 && (n == 0 || n >= 100)) {
				t.Errorf("rows %s truncated %s, want %d", r.header.Get("X-Topicsnap-Rows"), r.header.Get("X-Topicsnap-Truncated"), c.rows)
			}
		})
	}
}

// TestSQLDeadlineHolds: a query whose result takes long to read and
// encode is answered within 10% of the timeout.
func TestSQLDeadlineHolds(t *testing.T) {
	const timeout = 2 * time.Second
	_, ts := newTestServer(t, Options{QueryTimeout: timeout, MaxRows: 1 << 30})
	js := map[string]string{"Content-Type": "application/json"}
	for _, sql := range []string{
		`SELECT range(0, 20000000) AS r`,
		`SELECT i, i::VARCHAR AS s FROM range(1000000000) r(i)`,
		`SELECT count(*) FROM range(100000000000) a`,
	} {
		start := time.Now()
		r := do(t, "POST", ts.URL+"/api/sql", strings.NewReader(fmt.Sprintf(`{"sql": %q}`, sql)), js)
		took := time.Since(start)
		t.Logf("%s: %d in %s", sql, r.code, took.Round(time.Millisecond))
		if took > timeout+timeout/10 {
			t.Errorf("%s: answered %d after %s, timeout %s", sql, r.code, took.Round(time.Millisecond), timeout)
		}
		if r.code != 200 && r.code != http.StatusRequestTimeout {
			t.Errorf("%s: %d %.200s", sql, r.code, r.body)
		}
	}
	// A check with an expression DuckDB folds for seconds keeps its
	// deadline too.
	path := q("/api/checks/duplicates", "topic", topic, "id", "len(range(0, 20000000))")
	start := time.Now()
	r := get(t, ts.URL+path)
	took := time.Since(start)
	t.Logf("%s: %d in %s", path, r.code, took.Round(time.Millisecond))
	if took > timeout+timeout/10 || r.code != http.StatusRequestTimeout {
		t.Errorf("check: %d after %s, want 408 within %s", r.code, took.Round(time.Millisecond), timeout+timeout/10)
	}
}

// TestNotebookListingStaysInside: the listing reads only regular files
// inside each folder: a link to /dev/zero, to a file outside, a pipe and a
// file past 4 MiB are left out, and none is served.
func TestNotebookListingStaysInside(t *testing.T) {
	dir := fixture(t)
	nbDir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.md")
	writeFile(t, outside, "# Secret\n\n```sql\nSELECT 'the secret' AS s\n```\n")
	writeFile(t, filepath.Join(nbDir, "good.md"), "# Good\n\n```sql\nSELECT 1 AS one\n```\n")
	writeFile(t, filepath.Join(nbDir, "inner.md"), "# Inner\n\n```sql\nSELECT 2 AS two\n```\n")
	for name, target := range map[string]string{"zero.md": "/dev/zero", "out.md": outside, "inlink.md": "inner.md"} {
		if err := os.Symlink(target, filepath.Join(nbDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(nbDir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(nbDir, "huge.md"), "# Huge\n\n```sql\nSELECT 1\n```\n"+strings.Repeat("x", 4<<20))
	_, ts := newTestServer(t, Options{Dir: dir, NotebookDirs: []string{nbDir}})

	client := &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	fetch := func(path string) response {
		res, err := client.Get(ts.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v (a read that does not end?)", path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return response{res.StatusCode, res.Header, string(b)}
	}
	r := fetch("/")
	if r.code != 200 {
		t.Fatalf("overview: %d", r.code)
	}
	for _, w := range []string{`href="/notebooks/good.md"`, `href="/notebooks/inlink.md"`} {
		if !strings.Contains(r.body, w) {
			t.Errorf("no %s in the overview", w)
		}
	}
	for _, w := range []string{"zero.md", "out.md", "Secret", "pipe.md", "huge.md"} {
		if strings.Contains(r.body, w) {
			t.Errorf("the overview lists %s", w)
		}
	}
	for _, name := range []string{"zero.md", "out.md", "pipe.md", "huge.md"} {
		if r := fetch("/notebooks/" + name); r.code != 404 || strings.Contains(r.body, "the secret") {
			t.Errorf("GET /notebooks/%s: %d, want 404", name, r.code)
		}
	}
	if r := fetch("/notebooks/inlink.md"); r.code != 200 || !strings.Contains(r.body, "Inner") {
		t.Errorf("a link inside the folder: %d", r.code)
	}
}

// selfSigned writes a throwaway certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "topicsnap test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})))
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Dir: fixture(t), Addr: "127.0.0.1:0", Token: "s3cret", TLSCert: certFile, TLSKey: keyFile},
			func(a string) { addrs <- a })
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatal(err)
	}
	client := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	res, err := client.Get("https://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.TLS == nil {
		t.Errorf("https healthz: %d", res.StatusCode)
	}
	// The session cookie over TLS: Secure, with the __Host- prefix.
	res, err = client.PostForm("https://"+addr+"/login", url.Values{"token": {"s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var c *http.Cookie
	for _, x := range res.Cookies() {
		c = x
	}
	if c == nil || !strings.HasPrefix(c.Name, "__Host-topicsnap_session_") || !c.Secure {
		t.Errorf("login over TLS: %d, cookie %+v", res.StatusCode, c)
	}
	// Plain HTTP to the TLS port gets no page.
	if res, err := http.Get("http://" + addr + "/healthz"); err == nil {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 && string(b) == "ok" {
			t.Error("plain HTTP served on the TLS port")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}

	t.Run("certificate errors", func(t *testing.T) {
		for _, o := range []Options{
			{TLSCert: certFile},
			{TLSKey: keyFile},
			{TLSCert: keyFile, TLSKey: certFile},
			{TLSCert: filepath.Join(t.TempDir(), "nope.pem"), TLSKey: keyFile},
		} {
			o.Dir, o.Addr = t.TempDir(), "127.0.0.1:0"
			if _, err := New(context.Background(), o); err == nil || !strings.Contains(err.Error(), "TLS") {
				t.Errorf("%+v: %v", o, err)
			}
		}
	})
}

func TestCleartextWarning(t *testing.T) {
	cases := []struct {
		o    Options
		warn bool
	}{
		{Options{Addr: "0.0.0.0:8080", Token: "t"}, true},
		{Options{Addr: ":8080", Token: "t"}, true},
		{Options{Addr: "10.1.2.3:8080", Token: "0123456789abcdef", TLSCert: "c", TLSKey: "k"}, false},
		{Options{Addr: "127.0.0.1:8080"}, false},
		{Options{}, false},
	}
	for _, c := range cases {
		w := c.o.Warnings()
		if (len(w) > 0) != c.warn {
			t.Errorf("%+v: warnings %q", c.o, w)
		}
		if c.warn && !strings.Contains(strings.Join(w, " "), "in clear") {
			t.Errorf("%+v: %q does not say the token travels in clear", c.o, w)
		}
	}
}

// TestShortTokenWarning: off loopback a token of fewer than 16
// characters is named as guessable (it was taken without a word: a token
// of one character falls to 30 guesses a minute); on loopback, where
// every local client shares one bucket, nothing is said.
func TestShortTokenWarning(t *testing.T) {
	for _, c := range []struct {
		o    Options
		warn bool
	}{
		{Options{Addr: "10.1.2.3:8080", Token: "t", TLSCert: "c", TLSKey: "k"}, true},
		{Options{Addr: "0.0.0.0:8080", Token: "hunter2"}, true},
		{Options{Addr: "10.1.2.3:8080", Token: "0123456789abcde", TLSCert: "c", TLSKey: "k"}, true},
		{Options{Addr: "10.1.2.3:8080", Token: "0123456789abcdef", TLSCert: "c", TLSKey: "k"}, false},
		{Options{Addr: "127.0.0.1:8080", Token: "t"}, false},
	} {
		w := strings.Join(c.o.Warnings(), " ")
		if strings.Contains(w, "the token is") != c.warn || c.warn && !strings.Contains(w, "openssl rand -hex 16") {
			t.Errorf("%+v: warnings %q", c.o, w)
		}
	}
}

// TestReportCacheStaysInBytes replays the loop at a small scale:
// skew pages with what-if partition counts one apart, each a new cache
// entry, never hold more than the byte bound.
func TestReportCacheStaysInBytes(t *testing.T) {
	const bound = 48 << 20 // each page here is about 7 MB: a report and its charts
	s, ts := newTestServer(t, Options{MaxCacheBytes: bound})
	var largest int64
	for n := 9990; n <= 10000; n++ {
		r := get(t, ts.URL+q("/checks/skew", "topic", topic, "what_if_key", "key", "what_if_partitions", strconv.Itoa(n)))
		if r.code != 200 {
			t.Fatalf("what_if_partitions=%d: %d %.300s", n, r.code, r.body)
		}
		items, b := s.cache.usage()
		if b > bound {
			t.Fatalf("after what_if_partitions=%d: %d entries, %d bytes held, bound %d", n, items, b, bound)
		}
		largest = max(largest, b)
	}
	if largest == 0 {
		t.Error("nothing was cached")
	}
	t.Logf("at most %d bytes held of %d", largest, bound)
}
