// Package server serves one snapshot folder over HTTP: an overview page,
// one page per check, notebooks run live, an ad-hoc SQL page, a JSON API and
// Prometheus metrics. Everything is rendered on the server (html/template,
// inline SVG charts drawn by internal/chart, values written by
// internal/display as the command line writes them; a check's charts come
// from its descriptor's Charts hook, so no page names a check); the only script is a small file for the SQL page, which
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
//     snapshots a running dump commits appear without a restart; off the
//     request's path (the request goes on with the views there are), since
//     telling whether a folder of a whole cluster changed is a stat of each
//     of its manifests and cuts.
//  5. the route: a handler of the http.ServeMux built in routes.go.
//
// Check reports are cached by (catalog version, check, normalized options):
// a page viewed again costs nothing until the catalog changes, and a new
// version empties the cache. The cache is bounded in estimated bytes
// (Options.MaxCacheBytes), oldest entries first. The overview, which shows
// every check on every topic as a tile, is cached the same way as a whole,
// a page at a time (100 topics a page, /?page=N; every page of a paged
// overview names the topics with lost ranges or a failing tile, and their
// page), keyed also by the folder's checks.json, whose entries lead a
// topic's tiles and, as for every check request, fill the options a
// request leaves unset (queries/checksfile.go). Its tiles are kept in a
// tile store of their own (warm.go), which holds a whole cluster's, each
// tile with its topic's version (queries' Engine.TopicVersion) and the
// checks file, so a dump that commits one topic leaves the others' tiles
// known; a tile
// not there comes from a cached report, else is computed. A folder of at
// most 120 tiles (10 topics) has its missing ones all computed before the
// page answers; a larger one computes for 200 ms and shows the rest as "pending", which a
// warmer computes in the background (one goroutine the Server starts in
// New and stops and waits for in Close; one check at a time, in a check
// slot, its reports not cached); a page with pending tiles reloads itself
// every 5 s and is not cached. A tile's verdict is its check's. Computing
// a check, its charts or a notebook takes one of MaxConcurrentChecks slots
// (ad-hoc SQL has its own, MaxConcurrentSQL); with none free the answer is
// 429. Answers keep to their deadline even while DuckDB finishes a step it
// cannot interrupt; the slot stays taken until it has (within, checks.go).
//
// # Workers
//
// With Options.Workers (topicsnap serve: 2) the process that listens is a
// front that opens no engine. It keeps layers 1-3 and the routes that need
// its own state or none (/login, /logout, /metrics, /healthz, /static/),
// and forwards every other request to an idle worker: a copy of the
// program (Options.WorkerCommand, calling ServeWorker) that opens the same
// folder with New and serves layers 4-5 on a Unix socket in a private
// folder, one request at a time (workers.go). The front watches the busy
// worker: dead (a SIGSEGV in DuckDB) is 502, resident memory at 7/8 of
// Options.WorkerMemory is a kill and 503, still busy past the route's
// budget (its timeout plus a margin) is a kill and 408; a new worker
// starts in the background, and the server goes on. Inside a worker,
// answers wait for DuckDB to stop (within), so an idle worker is idle.
// Caches live in the workers, one set each, but for the overview's tiles,
// which they share through a folder in the front's private one, each
// tile computed by one worker (warm.go); the front's /metrics adds one
// worker's cache and catalog numbers to its own, and counts the workers'
// cache hits, which they report in an internal header. Close stops every
// worker and waits for it; a worker also leaves when its standard input
// closes, and on Linux when the front dies.
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
// check 404, a query past its timeout 408, a body past 64 KiB 413; with
// workers, a request that crashed its worker 502 and one past the memory
// cap 503.
package server
