// Package server serves one snapshot folder over HTTP: an overview page,
// one page per check, notebooks run live, an ad-hoc SQL page, a JSON API and
// Prometheus metrics. Everything is rendered on the server (html/template,
// inline SVG charts); the only script is a small file for the SQL page, which
// /sql?q=SQL&run=1 fills and runs on load. There is no build step: templates
// and assets are embedded with go:embed.
//
// # How a request flows
//
// [New] opens a locked [queries.Engine] over the folder: untrusted SQL can
// read nothing but the folder, one read-only SELECT per request, with a
// timeout. [Server.Handler] wraps the routes in layers, outermost first:
//
//  1. observe: counts the request by route pattern and status code and
//     times it for /metrics, and writes one access-log line.
//  2. secure: security headers (CSP, nosniff, frame denial, Referrer-Policy
//     same-origin, CORP same-origin), a bound on the request body (413 past
//     it), a Host check that defeats DNS rebinding when no token is set, and
//     the drive-by rule of guard.go: a request another origin's page made
//     (another port of this host included) gets 403 unless it is a
//     top-level navigation.
//  3. authenticate: when a token is set every request but /healthz, /login,
//     /logout and the static assets must carry it, as "Authorization: Bearer
//     TOKEN" (compared in constant time; failed attempts are limited per
//     client address, 429 past them) or as the session cookie the login form
//     sets: a random id checked against the server's session table, valid
//     12 hours, deleted by logging out (session.go).
//  4. refresh: at most once a second, the engine re-reads the catalog so the
//     snapshots a running dump commits appear without a restart.
//  5. the route: a handler of the http.ServeMux built in routes.go.
//
// Check reports are cached by (catalog version, check, normalized options):
// a page viewed again costs nothing until the catalog changes, and a new
// version empties the cache. The cache is bounded in estimated bytes
// (Options.MaxCacheBytes), oldest entries first. The overview, which runs
// every check on every topic, is cached the same way as a whole. Computing
// a check, its charts or a notebook takes one of MaxConcurrentChecks slots
// (ad-hoc SQL has its own, MaxConcurrentSQL); with none free the answer is
// 429. Answers keep to their deadline even while DuckDB finishes a step it
// cannot interrupt; the slot stays taken until it has (within, checks.go).
//
// # Notebooks
//
// The overview lists the notebooks (package notebooks) of three sources,
// read afresh on each view: the snapshot folder's own top-level *.md, each
// of Options.NotebookDirs, and the notebooks shipped with topicsnap; when two
// have the same file name the first source wins. GET /notebooks/{file name}
// runs one on the locked engine and serves the notebooks package's standalone
// page with a bar on top (back to the overview, a form for the parameters).
// Only names in that listing are opened, never a path from the URL. The
// query string may set the notebook's declared parameters and nothing else
// (an unknown one is 400); parameters reach the SQL only as quoted literals
// or identifiers, so notebooks run even where ad-hoc SQL is off. Pages are
// cached by (catalog version, notebook text, parameters). The page's CSS is
// one inline <style> block: its route alone adds that block's sha256 hash to
// style-src; every other page keeps style-src 'self'.
//
// Errors reach people without absolute paths: the folder's prefix is
// stripped from every message. Bad input is 400 with a message, an unknown
// check 404, a query past its timeout 408, a body past 64 KiB 413.
package server
