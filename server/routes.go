package server

import "net/http"

// routes maps every path to its handler. A method-qualified pattern makes
// the mux answer 405 (with Allow) to other methods: GET /api/sql is 405.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.handleOverview)
	mux.HandleFunc("GET /checks/{name}", s.handleCheckPage)
	mux.HandleFunc("GET /notebooks/{name}", s.handleNotebook)
	mux.HandleFunc("GET /sql", s.handleSQLPage)
	mux.HandleFunc("GET /history", s.handleHistoryPage)
	mux.HandleFunc("GET /login", s.handleLoginForm)
	mux.HandleFunc("POST /login", s.handleLogin)
	mux.HandleFunc("POST /logout", s.handleLogout)

	mux.HandleFunc("GET /api/topics", s.handleAPITopics)
	mux.HandleFunc("GET /api/snapshots", s.handleAPISnapshots)
	mux.HandleFunc("GET /api/checks", s.handleAPIChecks)
	mux.HandleFunc("GET /api/checks/{name}", s.handleAPICheck)
	mux.HandleFunc("POST /api/sql", s.handleAPISQL)
	mux.HandleFunc("GET /api/history", s.handleAPIHistory)

	mux.HandleFunc("GET /metrics", s.handleMetrics)
	mux.HandleFunc("GET /healthz", s.handleHealthz)
	mux.Handle("GET /static/", staticFiles())
	return mux
}
