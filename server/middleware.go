package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// statusWriter remembers the status code a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe counts and times each request by the route pattern it matches
// (bounded label values, unlike raw paths) and logs it.
func (s *Server) observe(mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, pattern := mux.Handler(r)
		if pattern == "" {
			pattern = "unmatched"
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.code == 0 {
			sw.code = http.StatusOK
		}
		d := time.Since(start)
		s.metrics.request(pattern, sw.code, d)
		s.logf("%s %s %d %s", r.Method, r.URL.Path, sw.code, d.Round(time.Microsecond))
	})
}

// contentSecurityPolicy allows inline SVG (it is markup, not a resource),
// our own stylesheet and script, fetches to ourselves, and nothing else.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// secure sets the security headers, bounds the body, and refuses requests
// a browser was tricked into sending: a foreign Host (DNS rebinding) when
// no token protects us, and a request another origin's page made (the
// drive-by rule in guard.go).
//
// Referrer-Policy is same-origin, not no-referrer: under no-referrer a
// browser sends "Origin: null" with our own forms' POSTs, which cannot be
// told from a sandboxed page elsewhere.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-store")
		}
		if s.opts.Token == "" && !loopbackHost(r.Host) {
			httpError(w, r, http.StatusMisdirectedRequest, "this server answers only to localhost; set a token to serve other names")
			return
		}
		if guarded(r.URL.Path) && foreignFetch(r) {
			httpError(w, r, http.StatusForbidden, "cross-origin request refused: open this server's pages directly")
			return
		}
		if r.ContentLength > maxBody {
			httpError(w, r, http.StatusRequestEntityTooLarge, "request body too large")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next.ServeHTTP(w, r)
	})
}

// loopbackHost tells whether a Host header names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// equal compares secrets in constant time, lengths included.
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// public paths need no token. Logging out needs none either: it only ends
// the session the cookie names, if there is one.
func public(path string) bool {
	return path == "/healthz" || path == "/login" || path == "/logout" || strings.HasPrefix(path, "/static/")
}

// auth is what a request presented.
type auth int

const (
	authNone    auth = iota // nothing, or a cookie of no live session
	authOK                  // the token, or a live session
	authBad                 // a wrong token
	authLimited             // too many wrong tokens from this address: not checked
)

// authorized checks the bearer token (failed attempts are limited per
// client address) or the session cookie against the session table.
func (s *Server) authorized(r *http.Request) (auth, time.Duration) {
	if h := r.Header.Get("Authorization"); h != "" {
		return s.checkToken(r, strings.TrimSpace(strings.TrimPrefix(h, "Bearer ")), strings.HasPrefix(h, "Bearer "))
	}
	if c, err := r.Cookie(sessionCookieName(r)); err == nil && s.sessions.valid(c.Value) {
		return authOK, 0
	}
	return authNone, 0
}

// checkToken compares a presented token, unless the client's address has
// used up its failed attempts; well-formed says whether it was presented
// in a form that could be right at all.
func (s *Server) checkToken(r *http.Request, token string, wellFormed bool) (auth, time.Duration) {
	addr := clientAddr(r)
	if wait := s.fails.wait(addr); wait > 0 {
		return authLimited, wait
	}
	if wellFormed && equal(token, s.opts.Token) {
		return authOK, 0
	}
	s.fails.failed(addr)
	return authBad, 0
}

// tooManyAttempts answers 429 with Retry-After in whole seconds.
func tooManyAttempts(w http.ResponseWriter, r *http.Request, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	httpError(w, r, http.StatusTooManyRequests, fmt.Sprintf("too many wrong tokens from this address: try again in %d s", secs))
}

// authenticate lets through requests with the token. A browser asking for
// a page without one is sent to the login form; anything else is 401.
func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if public(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		a, wait := s.authorized(r)
		switch {
		case a == authOK:
			next.ServeHTTP(w, r)
			return
		case a == authLimited:
			tooManyAttempts(w, r, wait)
			return
		case a == authNone && r.Method == http.MethodGet && wantsPage(r):
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="topicsnap"`)
		httpError(w, r, http.StatusUnauthorized, "a valid token is required")
	})
}

// wantsPage tells whether r is for a page rather than the API or metrics.
func wantsPage(r *http.Request) bool {
	return !strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/metrics"
}

// refreshing starts a re-read of the catalog (at most once a second, off
// the request's path) when a request that reads it comes.
func (s *Server) refreshing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !public(r.URL.Path) {
			s.refresh()
		}
		s.inFlight.Add(1) // the overview's warmer waits for none (warm.go)
		defer s.inFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}
