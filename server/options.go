package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/queries"
)

// badRequest is an error in what the client sent: 400 with its message.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// A checkParam is one option of a check as the URL and the form carry it.
type checkParam struct {
	Name  string // query parameter
	Label string
	Help  string
	Kind  string // "text", "expr" (SQL), "number", "int", "bool", "file"
}

// checkParams are every option, in the order the form shows them.
var checkParams = []checkParam{
	{"id", "id", "expression that identifies a record (default: key and value bytes)", "expr"},
	{"by", "by", "break down by this expression", "expr"},
	{"where", "where", "filter over the topic", "expr"},
	{"match", "match", "expression matched against the expected key", "expr"},
	{"against", "against", "CSV, Parquet or JSON-lines file of expected keys, relative to the snapshot folder", "file"},
	{"against_key", "against key", "column of the against file holding the key", "text"},
	{"against_topic", "against topic", "take the expected keys from this topic", "text"},
	{"against_where", "against where", "filter over the against topic", "expr"},
	{"against_match", "against match", "key expression over the against topic", "expr"},
	{"reverse", "reverse", "list events whose key is not expected", "bool"},
	{"hot", "hot", "hot threshold as a multiple of the fair share (1.5)", "number"},
	{"what_if_key", "what-if key", "expression to re-key by", "expr"},
	{"what_if_partitions", "what-if partitions", "partition count for the what-if", "int"},
	{"time", "time", "time expression (default timestamp)", "expr"},
	{"silence", "silence", "seconds of silence that count (300)", "number"},
	{"event_time", "event time", "event time expression", "expr"},
	{"late", "late", "seconds behind the broker time that count as late (60)", "number"},
	{"limit", "limit", "example rows kept (50)", "int"},
}

// paramsOf lists the options the form of a check shows. The URL accepts
// every option for every check; the check decides what it uses.
var paramsOf = map[string][]string{
	"gaps":       {"limit"},
	"duplicates": {"id", "by", "limit"},
	"skew":       {"hot", "what_if_key", "what_if_partitions", "limit"},
	"missing":    {"against", "against_key", "against_topic", "against_where", "against_match", "where", "match", "by", "reverse", "limit"},
	"lag":        {"limit"},
	"keys":       {"limit"},
	"order":      {"time", "limit"},
	"freshness":  {"silence", "event_time", "late", "limit"},
}

// maxWhatIfPartitions bounds the what-if partition count: a report and
// its chart grow with it (Kafka's own limits are of this order per topic).
const maxWhatIfPartitions = 10000

// defaultLimit is the engine's example-row count when none is given.
const defaultLimit = 50

func knownCheck(name string) bool { return slices.Contains(queries.CheckNames, name) }

// checkQuery is a parsed check request: the options to run and the
// parameters as given, to keep in links and refill the form.
type checkQuery struct {
	opts   queries.CheckOptions
	params url.Values // only the check parameters, non-empty, plus topic
}

// key is the normalized options: equal for requests that mean the same.
func (q checkQuery) key(check string) string {
	o := q.opts
	if o.Limit == 0 {
		o.Limit = defaultLimit // what the engine would use
	}
	b, _ := json.Marshal(o)
	return check + "\x00" + string(b)
}

// parseCheckQuery validates a check's query string.
func (s *Server) parseCheckQuery(v url.Values) (checkQuery, error) {
	q := checkQuery{params: url.Values{}}
	o := &q.opts
	o.Topic = strings.TrimSpace(v.Get("topic"))
	if o.Topic == "" {
		ts := s.engine.Topics()
		if len(ts) != 1 {
			return q, badf("topic is required: use ?topic=NAME")
		}
		o.Topic = ts[0].Name
	}
	q.params.Set("topic", o.Topic)
	for _, p := range checkParams {
		raw := strings.TrimSpace(v.Get(p.Name))
		if raw == "" {
			continue
		}
		if p.Kind == "expr" && !s.sql {
			return q, badf("%s is a SQL expression and ad-hoc SQL is off on this server", p.Name)
		}
		if len(raw) > 4096 {
			return q, badf("%s is too long", p.Name)
		}
		q.params.Set(p.Name, raw)
		var err error
		switch p.Name {
		case "id":
			o.ID = raw
		case "by":
			o.By = raw
		case "where":
			o.Where = raw
		case "match":
			o.Match = raw
		case "against":
			o.Against, err = s.resolveAgainst(raw)
		case "against_key":
			o.AgainstKey = raw
		case "against_topic":
			o.AgainstTopic = raw
		case "against_where":
			o.AgainstWhere = raw
		case "against_match":
			o.AgainstMatch = raw
		case "reverse":
			o.Reverse, err = parseBool(raw)
		case "hot":
			o.Hot, err = parseNumber(raw, 0, 1e6)
		case "what_if_key":
			o.WhatIfKey = raw
		case "what_if_partitions":
			o.WhatIfPartitions, err = parseInt(raw, 1, maxWhatIfPartitions)
		case "time":
			o.Time = raw
		case "silence":
			o.Silence, err = parseNumber(raw, 0, 1e9)
		case "event_time":
			o.EventTime = raw
		case "late":
			o.Late, err = parseNumber(raw, 0, 1e9)
		case "limit":
			o.Limit, err = parseInt(raw, 1, s.opts.MaxRows)
		}
		if err != nil {
			return q, badf("%s: %s", p.Name, err)
		}
	}
	return q, nil
}

func parseBool(s string) (bool, error) {
	if s == "on" { // an HTML checkbox
		return true, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errors.New("want true or false")
	}
	return b, nil
}

func parseNumber(s string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return 0, fmt.Errorf("want a number from %g to %g", lo, hi)
	}
	return f, nil
}

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want a whole number from %d to %d", lo, hi)
	}
	return n, nil
}

// resolveAgainst turns the against option, a path relative to the
// snapshot folder, into the path of a regular file inside the folder.
// Absolute paths, ".." and symlinks that lead out are refused.
func (s *Server) resolveAgainst(p string) (string, error) {
	rel := filepath.Clean(filepath.FromSlash(p))
	if filepath.IsAbs(p) || !filepath.IsLocal(rel) {
		return "", errors.New("give a file inside the snapshot folder, as a path relative to it")
	}
	root, err := filepath.EvalSymlinks(s.engine.Dir())
	if err != nil {
		return "", errors.New("the snapshot folder cannot be read")
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		return "", fmt.Errorf("no file %s in the snapshot folder", rel)
	}
	inside, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(inside) {
		return "", fmt.Errorf("%s leads out of the snapshot folder", rel)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", rel)
	}
	// The engine is confined to the folder as it spells it.
	return filepath.Join(s.engine.Dir(), inside), nil
}
