package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
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
// no token protects us, a cross-site POST.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Referrer-Policy", "no-referrer")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-store")
		}
		if s.opts.Token == "" && !loopbackHost(r.Host) {
			httpError(w, r, http.StatusMisdirectedRequest, "this server answers only to localhost; set a token to serve other names")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && crossSite(r) {
			httpError(w, r, http.StatusForbidden, "cross-site request refused")
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

// crossSite tells whether a browser sent r from another site.
func crossSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || !strings.EqualFold(u.Host, r.Host)
}

const sessionCookie = "topicsnap_session"

// sessionValue is what the login cookie holds: a MAC of the token, so the
// cookie never carries the token itself.
func (s *Server) sessionValue() string {
	m := hmac.New(sha256.New, []byte(s.opts.Token))
	m.Write([]byte("topicsnap session v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// equal compares secrets in constant time, lengths included.
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// public paths need no token.
func public(path string) bool {
	return path == "/healthz" || path == "/login" || strings.HasPrefix(path, "/static/")
}

// authorized tells whether r carries the token or the session cookie.
func (s *Server) authorized(r *http.Request) (ok, presented bool) {
	if auth := r.Header.Get("Authorization"); auth != "" {
		token, found := strings.CutPrefix(auth, "Bearer ")
		return found && equal(strings.TrimSpace(token), s.opts.Token), true
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		return equal(c.Value, s.sessionValue()), true
	}
	return false, false
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
		ok, presented := s.authorized(r)
		if ok {
			next.ServeHTTP(w, r)
			return
		}
		if !presented && r.Method == http.MethodGet && wantsPage(r) {
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

// refreshing re-reads the catalog (at most once a second) before a request
// that reads it.
func (s *Server) refreshing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !public(r.URL.Path) {
			s.refresh(r.Context())
		}
		next.ServeHTTP(w, r)
	})
}

// localRedirect returns next if it is a path on this server, "/" otherwise,
// so the login form cannot be used to send people elsewhere.
func localRedirect(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}
