// Package server serves one snapshot folder over HTTP: an overview page,
// one page per check, an ad-hoc SQL page, a JSON API and Prometheus metrics.
// Everything is rendered on the server (html/template, inline SVG charts);
// the only script is a small file for the SQL page. There is no build step:
// templates and assets are embedded with go:embed.
//
// # How a request flows
//
// [New] opens a locked [queries.Engine] over the folder: untrusted SQL can
// read nothing but the folder, one read-only SELECT per request, with a
// timeout. [Server.Handler] wraps the routes in layers, outermost first:
//
//  1. observe: counts the request by route pattern and status code and
//     times it for /metrics, and writes one access-log line.
//  2. secure: security headers (CSP, nosniff, frame denial), a bound on the
//     request body (413 past it), a Host check that defeats DNS rebinding
//     when no token is set, a same-origin check on POSTs.
//  3. authenticate: when a token is set every request but /healthz, /login
//     and the static assets must carry it, as "Authorization: Bearer TOKEN"
//     or as the session cookie the login form sets (an HMAC of the token,
//     never the token itself). Compared in constant time.
//  4. refresh: at most once a second, the engine re-reads the catalog so the
//     snapshots a running dump commits appear without a restart.
//  5. the route: a handler of the http.ServeMux built in routes.go.
//
// Check reports are cached by (catalog version, check, normalized options):
// a page viewed again costs nothing until the catalog changes, and a new
// version empties the cache. The overview, which runs every check on every
// topic, is cached the same way as a whole.
//
// Errors reach people without absolute paths: the folder's prefix is
// stripped from every message. Bad input is 400 with a message, an unknown
// check 404, a query past its timeout 408, a body past 64 KiB 413.
package server
