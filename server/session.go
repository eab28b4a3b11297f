package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

const (
	// sessionTTL is how long a login lasts, from the login on: the cookie
	// and the server's record of it expire together.
	sessionTTL = 12 * time.Hour
	// maxSessions bounds the session table; past it the oldest session is
	// dropped (only holders of the token can add one).
	maxSessions = 1024
)

// sessions is the server-side table of logins: a session is valid only while
// it is in the table and not expired. Logging out deletes it. Keys are the
// SHA-256 of the cookie's value, so a lookup's timing says nothing about
// the values stored.
type sessions struct {
	now func() time.Time

	mu sync.Mutex
	m  map[[32]byte]time.Time // expiry by hash of the id
}

func newSessions(now func() time.Time) *sessions {
	return &sessions{now: now, m: map[[32]byte]time.Time{}}
}

// create makes a session and returns its id: 32 random bytes, base64url.
func (s *sessions) create() string {
	var b [32]byte
	rand.Read(b[:]) // never returns an error (crypto/rand, Go 1.24+)
	id := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if len(s.m) >= maxSessions {
		s.pruneLocked(now)
	}
	for len(s.m) >= maxSessions { // all live: drop the one that expires first
		var oldest [32]byte
		first := true
		var at time.Time
		for k, exp := range s.m {
			if first || exp.Before(at) {
				oldest, at, first = k, exp, false
			}
		}
		delete(s.m, oldest)
	}
	s.m[sha256.Sum256([]byte(id))] = now.Add(sessionTTL)
	return id
}

// valid tells whether id names a live session.
func (s *sessions) valid(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.m[k]
	if ok && !s.now().Before(exp) {
		delete(s.m, k)
		return false
	}
	return ok
}

// end deletes a session.
func (s *sessions) end(id string) {
	k := sha256.Sum256([]byte(id))
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, k)
}

func (s *sessions) pruneLocked(now time.Time) {
	for k, exp := range s.m {
		if !now.Before(exp) {
			delete(s.m, k)
		}
	}
}

// sessionCookieName is the session cookie's name for the port r reached.
// Browsers send a host's cookies to every port of it, so two servers on
// one host would overwrite each other's cookie under one name; the port in
// the name keeps them apart. The value is checked against this server's
// table, so a cookie another server set is worth nothing here. Over TLS
// the name carries the __Host- prefix: browsers then accept the cookie only
// from a secure origin, for the whole host, not from plain HTTP.
func sessionCookieName(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	_, port, err := net.SplitHostPort(withPort(r.Host, scheme))
	if err != nil || port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		port = "0"
	}
	name := "topicsnap_session_" + port
	if r.TLS != nil {
		name = "__Host-" + name
	}
	return name
}

// The token-guess limit: each client address has a bucket of
// failBurst failed attempts that refills one attempt every failRefill.
// With an empty bucket a token is not even compared: 429 and Retry-After.
const (
	failBurst     = 5
	failRefill    = 2 * time.Second
	maxFailBucket = 4096 // addresses tracked; full buckets are forgotten first
)

// failLimiter counts failed token checks per client address.
type failLimiter struct {
	now func() time.Time

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newFailLimiter(now func() time.Time) *failLimiter {
	return &failLimiter{now: now, m: map[string]*bucket{}}
}

// clientAddr is the client a request came from, for the guess limit: its
// IPv4 address, or the /64 network of its IPv6 address (one host is
// handed a whole /64, so keyed by address it had 2^64 buckets of five
// guesses each: no limit at all). Proxy headers are not trusted: behind a
// proxy, every client shares its bucket.
func clientAddr(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		h = r.RemoteAddr
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return h
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// refill brings b up to date; it returns the tokens now there.
func (l *failLimiter) refill(b *bucket, now time.Time) float64 {
	if d := now.Sub(b.at); d > 0 {
		b.tokens += float64(d) / float64(failRefill)
		if b.tokens > failBurst {
			b.tokens = failBurst
		}
	}
	b.at = now
	return b.tokens
}

// wait returns how long addr must wait before its next attempt: 0 when it
// may try now.
func (l *failLimiter) wait(addr string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.m[addr]
	if !ok {
		return 0
	}
	now := l.now()
	if t := l.refill(b, now); t < 1 {
		return time.Duration((1 - t) * float64(failRefill))
	}
	return 0
}

// failed takes one attempt from addr's bucket.
func (l *failLimiter) failed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.m[addr]
	if !ok {
		if len(l.m) >= maxFailBucket {
			for k, o := range l.m {
				if l.refill(o, now) >= failBurst {
					delete(l.m, k)
				}
			}
			for k := range l.m { // still full: forget any one
				if len(l.m) < maxFailBucket {
					break
				}
				delete(l.m, k)
			}
		}
		b = &bucket{tokens: failBurst, at: now}
		l.m[addr] = b
	}
	l.refill(b, now)
	b.tokens--
	if b.tokens < 0 {
		b.tokens = 0
	}
}
