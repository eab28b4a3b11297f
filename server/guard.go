package server

import (
	"net/http"
	"net/url"
	"strings"
)

// The drive-by rule. A browser sends requests on a page's behalf that the
// page's author chose, not the person: an <img>, a <script>, a fetch. Such a
// request from another origin (another site, or another port of this host,
// which browsers call "same-site") is refused with 403 on every route but
// the static files and /healthz, so no page elsewhere can make this server
// run a check, a query or a notebook. What stays open from elsewhere is a
// top-level navigation: a link followed from a chat or a wiki opens the
// page.
//
// How a request is judged, first rule that applies:
//
//  1. Sec-Fetch-Site (every current browser sends it): "same-origin" and
//     "none" (typed, bookmarked) pass; "same-site" and "cross-site" pass
//     only as a GET or HEAD with Sec-Fetch-Mode: navigate and
//     Sec-Fetch-Dest: document.
//  2. Origin, from browsers without Sec-Fetch-Site: it must be this server's
//     own origin ("null" is not).
//  3. Referer, from older browsers still: one naming another origin is
//     refused (such browsers cannot tell a link from an <img>, so the
//     refusal covers links too).
//  4. None of the three: not a browser (curl, scripts, the Go client):
//     passes. Browsers that send none of them cannot be told apart from
//     such clients.
//
// Requests that change state (any method but GET and HEAD) are refused
// from another origin whatever their mode, by the same rules.

// foreignFetch tells whether r is a request from another origin that a
// browser made on a page's behalf, and so must not be served.
func foreignFetch(r *http.Request) bool {
	safe := r.Method == http.MethodGet || r.Method == http.MethodHead
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		switch site {
		case "same-origin", "none":
			return false
		}
		navigation := r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
		return !(safe && navigation)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		return !sameOrigin(r, origin)
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		return !sameOrigin(r, ref)
	}
	return false
}

// crossSite tells whether a browser sent r from another origin, whatever
// its mode: a link from elsewhere is cross-site too. The SQL page uses it
// to fill its editor without running what another page put there.
func crossSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site != "same-origin" && site != "none"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		return !sameOrigin(r, origin)
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		return !sameOrigin(r, ref)
	}
	return false
}

// sameOrigin tells whether the URL u (an Origin or a Referer) has this
// server's scheme, host and port, as the request reached it.
func sameOrigin(r *http.Request, u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return false // "null", garbage
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(p.Scheme, scheme) && strings.EqualFold(withPort(p.Host, scheme), withPort(r.Host, scheme))
}

// withPort adds the scheme's default port to a host without one.
func withPort(host, scheme string) string {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") || !strings.Contains(host, ":") {
		if scheme == "https" {
			return host + ":443"
		}
		return host + ":80"
	}
	return host
}

// guarded tells whether the drive-by rule applies to path: everything but
// the static files and the health check, which compute nothing.
func guarded(path string) bool {
	return path != "/healthz" && !strings.HasPrefix(path, "/static/")
}

// localRedirect returns next if it is a path on this server, "/"
// otherwise, so the login form cannot be used to send people elsewhere.
// next is parsed as a URL after refusing what browsers read differently
// from Go: control characters (a browser drops a tab, so "/\t/host" is
// "//host"), backslashes (read as "/"), and a path whose unescaped form
// starts with "//" (another host) or is not absolute. What is returned is
// rebuilt from the parsed path and query, never the text as given.
func localRedirect(next string) string {
	if next == "" || len(next) > 4096 {
		return "/"
	}
	for _, c := range next {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	// The unescaped path decides: "/%2F%2Fhost" and "/%5Chost" are refused
	// like "//host" and "/\host", and so is an escaped control character.
	if !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "/"
	}
	for _, c := range u.Path {
		if c < 0x20 || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	out := (&url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}).String()
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") {
		return "/"
	}
	return out
}
