package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/topicsnap/topicsnap/queries"
)

// runCheck runs a check, or returns its cached result for the current
// catalog version.
func (s *Server) runCheck(ctx context.Context, name string, q checkQuery) (*queries.Report, error) {
	return s.runCheckKeep(ctx, name, q, true)
}

// runCheckKeep is runCheck; with keep false a report it computes is not
// put in the cache.
func (s *Server) runCheckKeep(ctx context.Context, name string, q checkQuery, keep bool) (*queries.Report, error) {
	version, key := s.engine.Version(), q.key(name)
	if c, ok := s.cache.get(version, key); ok {
		s.metrics.cache("reports", true)
		return c.report, c.err
	}
	s.metrics.cache("reports", false)
	release, err := s.checkSlot()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.QueryTimeout)
	defer cancel()
	r, err := within(ctx, s.opts.worker, release, func() (*queries.Report, error) {
		r, err := s.engine.RunCheck(ctx, name, q.opts)
		if err != nil && ctx.Err() != nil {
			return nil, err // past the deadline or cancelled: not a property of the options
		}
		if keep && !errors.Is(err, queries.ErrTimeout) {
			s.cache.put(version, key, cached{report: r, err: err})
		}
		return r, err
	})
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, queries.ErrTimeout
	}
	return r, err
}

// within runs f, which must stop soon after ctx is done, in a goroutine of
// its own, and returns what f returns, or ctx's error as soon as ctx is
// done, whichever comes first. So an answer keeps to its deadline even
// when the work does not: DuckDB notices an interruption only between
// steps, and one step (folding range(0, 20000000) into a constant, say)
// can take seconds. The work goes on until it notices; release, called
// when f returns, frees its slot then, not before, so such stragglers
// count against the concurrency bound until they are really gone.
//
// In a worker (wait true) within waits for f instead: a worker serves one
// request at a time, and what runs on after its answer would run unwatched
// while the front counts the worker idle. The front kills a worker past
// the request's budget, which keeps the deadline there.
func within[T any](ctx context.Context, wait bool, release func(), f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer release()
		v, err := f()
		done <- result{v, err}
	}()
	if wait {
		r := <-done
		if r.err == nil && ctx.Err() != nil {
			var zero T
			return zero, ctx.Err()
		}
		return r.v, r.err
	}
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// errBusy is the answer when every check slot is taken.
var errBusy = errors.New("the server is busy computing other reports: try again in a moment")

// checkSlot takes one of the slots that bound the checks, charts and
// notebooks computed at once, or fails with errBusy when none is free.
func (s *Server) checkSlot() (release func(), err error) {
	select {
	case s.checkSlots <- struct{}{}:
		return func() { <-s.checkSlots }, nil
	default:
		return nil, errBusy
	}
}

// errorStatus maps an error to its HTTP status.
func errorStatus(err error) int {
	var bad *badRequest
	var sqlErr *queries.SQLError
	switch {
	case errors.Is(err, queries.ErrDamagedData):
		// A data file the engine could not read: the folder's fault, not
		// the request's (a 400 would tell the client to change it).
		return http.StatusInternalServerError
	case errors.As(err, &bad), errors.Is(err, queries.ErrBadCheck), errors.Is(err, queries.ErrRefused), errors.As(err, &sqlErr),
		errors.Is(err, queries.ErrOutOfMemory), errors.Is(err, queries.ErrNameTaken):
		// A topic named as a table the engine makes is refused as the
		// command refuses it (exit 2), never a server fault (a 500).
		// Out of memory: the query asked for more than a query may hold;
		// a smaller one is answered.
		return http.StatusBadRequest
	case errors.Is(err, queries.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return http.StatusRequestTimeout
	case errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable
	case errors.Is(err, errBusy), errors.Is(err, errWorkersBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, queries.ErrNoArrow):
		return http.StatusNotImplemented
	}
	return http.StatusInternalServerError
}

// httpError writes an error: JSON {"error": msg} for the API, text otherwise.
func httpError(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if wantsPage(r) && r.URL.Path != "/api/sql" {
		http.Error(w, msg, code)
		return
	}
	writeJSON(w, code, map[string]string{"error": msg})
}

// fail writes err with its status and a message for people.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := errorStatus(err)
	if code == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	if code == http.StatusInternalServerError {
		s.logf("%s %s: %s", r.Method, r.URL.Path, s.clean(err))
	}
	httpError(w, r, code, s.clean(err))
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encode the response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// handleAPICheck is GET /api/checks/{name}: exactly the Report JSON, 200
// whatever the verdict.
func (s *Server) handleAPICheck(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !knownCheck(name) {
		httpError(w, r, http.StatusNotFound, "unknown check "+name)
		return
	}
	q, err := s.parseCheckQuery(name, r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rep, err := s.runCheck(r.Context(), name, q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// apiTopic is a topic in GET /api/topics.
type apiTopic struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
	Files      int    `json:"files"`
	Records    int64  `json:"records"`
	JSON       bool   `json:"json"`
	Structure  string `json:"structure,omitempty"`
	// OldPartitions are partitions of an old topic of the name only (it
	// was deleted and made again with fewer): history, in "T$superseded",
	// not counted in Partitions.
	OldPartitions []int32 `json:"old_partitions,omitempty"`
}

func (s *Server) handleAPITopics(w http.ResponseWriter, r *http.Request) {
	out := []apiTopic{}
	for _, t := range s.engine.Topics() {
		out = append(out, apiTopic{t.Name, t.Partitions, t.Files, t.Records, t.JSON, t.Structure, t.OldPartitions})
	}
	writeJSON(w, http.StatusOK, out)
}

// apiSnapshot is a snapshot in GET /api/snapshots.
type apiSnapshot struct {
	ID                string    `json:"snapshot_id"`
	Topic             string    `json:"topic"`
	AsOf              time.Time `json:"as_of"`
	PartitionCount    int       `json:"partition_count"`
	ReplicationFactor int       `json:"replication_factor"`
	Dumped            []int64   `json:"dumped_partitions"`
}

func (s *Server) handleAPISnapshots(w http.ResponseWriter, r *http.Request) {
	snaps, err := s.snapshots(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, snaps)
}

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("ok"))
}

// apiCheck is one entry of the /api/checks index.
type apiCheck struct {
	Name    string      `json:"name"`
	Summary string      `json:"summary"`
	Options []apiOption `json:"options"`
	URL     string      `json:"url"`
}

type apiOption struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Default string   `json:"default,omitempty"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Help    string   `json:"help"`
}

// handleAPIChecks lists the checks and their options, from the registry.
func (s *Server) handleAPIChecks(w http.ResponseWriter, r *http.Request) {
	out := []apiCheck{}
	for _, c := range queries.Checks() {
		ac := apiCheck{Name: c.Name, Summary: c.Summary, Options: []apiOption{}, URL: "/api/checks/" + c.Name + "?topic=TOPIC"}
		for _, n := range c.Options {
			op := queries.CheckOptionSet[n]
			ao := apiOption{Name: op.Name, Kind: string(op.Kind), Default: op.Default, Help: op.Help}
			if op.Min != 0 || op.Max != 0 {
				lo, hi := op.Min, s.optionMax(op)
				ao.Min, ao.Max = &lo, &hi
			}
			ac.Options = append(ac.Options, ao)
		}
		out = append(out, ac)
	}
	writeJSON(w, http.StatusOK, out)
}
