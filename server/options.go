package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/queries"
)

// badRequest is an error in what the client sent: 400 with its message.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, args ...any) error { return &badRequest{fmt.Sprintf(format, args...)} }

// A checkParam is one option of a check as the URL and the form carry it:
// queries.CheckOptionSet's entry, spelled for the form.
type checkParam struct {
	Name  string // query parameter
	Label string
	Help  string
	Kind  string // queries.OptionKind: "text", "expr" (SQL), "number", "int", "bool", "file", "seconds", "time", "list"
	// Min and Max bound a number's input as Option.Set bounds it.
	Min, Max string
}

// optionMax is the largest value this server takes for a number option:
// the option's own bound, and for limit the server's --max-rows, which
// the index and the forms said nothing of (they offered 100,000; the
// server refused past 10,000).
func (s *Server) optionMax(op *queries.Option) float64 {
	if op.Name == "limit" {
		return min(op.Max, float64(s.opts.MaxRows))
	}
	return op.Max
}

// paramOf is the form's view of an option.
func paramOf(op *queries.Option) checkParam {
	help := op.Help
	if op.Default != "" {
		help += " (default " + op.Default + ")"
	}
	p := checkParam{Name: op.Name, Label: strings.ReplaceAll(op.Name, "_", " "), Help: help, Kind: string(op.Kind)}
	if op.Kind == queries.KindNumber || op.Kind == queries.KindInt {
		p.Min, p.Max = strconv.FormatFloat(op.Min, 'f', -1, 64), strconv.FormatFloat(op.Max, 'f', -1, 64)
	}
	return p
}

func knownCheck(name string) bool {
	_, ok := queries.LookupCheck(name)
	return ok
}

// checkQuery is a parsed check request: the options to run and the
// parameters as given, to keep in links and refill the form.
type checkQuery struct {
	opts   queries.CheckOptions
	params url.Values // only the check parameters, non-empty, plus topic
}

// key is the normalized options: equal for requests that mean the same.
func (q checkQuery) key(check string) string {
	b, _ := json.Marshal(q.opts.WithDefaults()) // what the engine would use
	return check + "\x00" + string(b)
}

// parseCheckQuery reads a check's query string: topic and the options the
// check takes, each parsed and bounded by the option itself (the same
// queries.Option.Set the command line uses). A parameter that is no option
// of this check is a 400 that names it.
func (s *Server) parseCheckQuery(name string, v url.Values) (checkQuery, error) {
	q := checkQuery{params: url.Values{}}
	o := &q.opts
	c, ok := queries.LookupCheck(name)
	if !ok {
		return q, badf("unknown check %s: use one of %s", name, strings.Join(queries.CheckNames, ", "))
	}
	o.Topic = strings.TrimSpace(v.Get("topic"))
	if o.Topic == "" {
		ts := s.engine.Topics()
		if len(ts) != 1 {
			return q, badf("topic is required: use ?topic=NAME")
		}
		o.Topic = ts[0].Name
	}
	q.params.Set("topic", o.Topic)
	keys := slices.Sorted(maps.Keys(v))
	for _, k := range keys {
		// One value each: which of two would count is nobody's guess.
		if n := len(v[k]); n > 1 {
			return q, badf("%s is given %d times: give it once", k, n)
		}
		if k == "topic" {
			continue
		}
		op := queries.CheckOptionSet[k]
		if op == nil || !c.Takes(k) {
			return q, badf("unknown option %s: check %s takes %s", k, name, strings.Join(append([]string{"topic"}, c.Options...), ", "))
		}
	}
	set := func(k, raw, from string) error {
		op := queries.CheckOptionSet[k]
		if op.Kind == queries.KindExpr && !s.sql {
			return badf("%s%s is a SQL expression and ad-hoc SQL is off on this server", k, from)
		}
		q.params.Set(k, raw)
		var err error
		switch {
		case op.Kind == queries.KindFile:
			o.Against, err = s.resolveAgainst(raw)
			if err != nil {
				err = badf("%s%s: %s", k, from, err)
			}
		case op.Kind == queries.KindBool && raw == "on": // an HTML checkbox
			err = op.Set(o, "true")
		default:
			err = op.Set(o, raw)
		}
		return err
	}
	for _, k := range c.Options {
		raw := strings.TrimSpace(v.Get(k))
		if raw == "" {
			continue // an empty form field is no option
		}
		if err := set(k, raw, ""); err != nil {
			return q, err
		}
	}
	// The folder's checks file fills in the options the request leaves
	// unset, as on the command line (queries/checksfile.go); the
	// parameters then carry them, so a tile's link gives its verdict.
	cfgs, err := queries.ReadChecksFile(s.engine.Dir())
	if err != nil {
		return q, badf("%s", s.clean(err))
	}
	// A request that asks another question than the entry (another file,
	// match or group: Differs) takes none of its options, as on the
	// command line.
	if cc, ok := queries.Configured(cfgs, name, o.Topic); ok && cc.Differs(s.engine.Dir(), *o) == "" {
		for _, k := range c.Options {
			raw, ok := cc.Options[k]
			if !ok || q.params.Get(k) != "" {
				continue
			}
			if err := set(k, raw, " (from "+queries.ChecksFileName+")"); err != nil {
				return q, err
			}
		}
	}
	if o.Limit > s.opts.MaxRows {
		return q, badf("limit: at most %d on this server", s.opts.MaxRows)
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

// resolveAgainst turns the against option, a path relative to the
// snapshot folder, into the path of a regular file inside the folder
// (queries.FileInside: absolute paths, ".." and links that lead out are
// refused).
func (s *Server) resolveAgainst(p string) (string, error) {
	return queries.FileInside(s.engine.Dir(), p)
}
