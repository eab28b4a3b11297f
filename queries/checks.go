package queries

import (
	"context"
	"fmt"
	"math"
	"strings"
)

// StatusSkipped is the status of a check `check all` did not run because
// it lacks options it needs (Needs).
const StatusSkipped = "skipped"

// checkFuncs maps a check's name to the code that runs it.
var checkFuncs = map[string]func(context.Context, *Engine, CheckOptions) (*Report, error){}

// ErrBadCheck marks a check name or option that cannot be used.
var ErrBadCheck = fmt.Errorf("bad check")

// RunCheck runs one check against a topic.
func (e *Engine) RunCheck(ctx context.Context, name string, o CheckOptions) (*Report, error) {
	f, ok := checkFuncs[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown check %q: use one of %s", ErrBadCheck, name, strings.Join(CheckNames, ", "))
	}
	t, ok := e.Topic(o.Topic)
	if !ok {
		return nil, fmt.Errorf("%w: topic %q has no snapshot in %s (topicsnap ls lists what is there)", ErrBadCheck, o.Topic, e.dir.Path)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Limit <= 0 {
		o.Limit = 50
	}
	r, err := f(ctx, e, o)
	if err != nil {
		return nil, fmt.Errorf("check %s on %s: %w", name, o.Topic, err)
	}
	r.Check, r.Topic = name, o.Topic
	if len(t.Damaged) > 0 {
		// A check that does not know says so: never ok over partitions it
		// could not read.
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
		r.Message += fmt.Sprintf("; not judged: %s whose manifest is damaged (topicsnap catalog verify names it)",
			plural(int64(len(t.Damaged)), "partition", "partitions"))
		r.Summary.Set("unreadable_partitions", t.Damaged)
	}
	if t.Records == 0 && name != "lag" {
		// No records is said as such: no share, staleness or order is
		// invented for a topic that holds nothing (lag reads the groups'
		// offsets, which an empty topic has too).
		r.Status = StatusWarn
		msg := fmt.Sprintf("no records: the snapshot of %s holds none on its %s", o.Topic, plural(int64(t.Partitions), "partition", "partitions"))
		if name == "gaps" {
			r.Message = msg + "; " + r.Message
		} else {
			r.Message = msg + ", so there is nothing to judge"
		}
	}
	if r.Rows == nil {
		r.Rows = []Row{}
	}
	return r, nil
}

// Bounds of the numeric options: every surface (CLI, server, notebooks)
// gets the same refusal.
const (
	MaxWhatIfPartitions = 10000
	MaxLimit            = 100000
)

// validate refuses numeric options out of their bounds.
func (o CheckOptions) validate() error {
	switch {
	case o.WhatIfPartitions < 0 || o.WhatIfPartitions > MaxWhatIfPartitions:
		return optErr("what_if_partitions", fmt.Sprint(o.WhatIfPartitions), "must be between 1 and %d", MaxWhatIfPartitions)
	case o.Hot < 0 || math.IsNaN(o.Hot) || math.IsInf(o.Hot, 0):
		return optErr("hot", fmt.Sprint(o.Hot), "must be a positive multiple of the fair share, such as 1.5")
	case o.Silence < 0 || math.IsNaN(o.Silence) || math.IsInf(o.Silence, 0):
		return optErr("silence", fmt.Sprint(o.Silence), "must be a positive number of seconds")
	case o.Late < 0 || math.IsNaN(o.Late) || math.IsInf(o.Late, 0):
		return optErr("late", fmt.Sprint(o.Late), "must be a positive number of seconds")
	case o.Limit < 0 || o.Limit > MaxLimit:
		return optErr("limit", fmt.Sprint(o.Limit), "must be between 1 and %d", MaxLimit)
	}
	return nil
}

// Needs lists the options a check needs that o lacks, by the check's
// option names (empty when it can run): `check all` runs every check
// that needs nothing and lists the others as skipped, with these.
func Needs(name string, o CheckOptions) []string {
	if name != "missing" {
		return nil
	}
	var out []string
	if o.Match == "" {
		out = append(out, "match")
	}
	switch {
	case o.Against != "" && o.AgainstKey == "":
		out = append(out, "against_key")
	case o.AgainstTopic != "" && o.AgainstMatch == "":
		out = append(out, "against_match")
	case o.Against == "" && o.AgainstTopic == "":
		out = append(out, "against|against_topic")
	}
	return out
}

// Skipped is the report of a check that did not run because options it
// needs were not given: status "skipped", never "ok".
func Skipped(name, topic string, needs []string, say func(option string) string) *Report {
	var words []string
	for _, n := range needs {
		var alts []string
		for _, a := range strings.Split(n, "|") {
			alts = append(alts, say(a))
		}
		words = append(words, strings.Join(alts, " or "))
	}
	return &Report{Check: name, Topic: topic, Status: StatusSkipped, Message: "not run: needs " + strings.Join(words, " and "),
		Summary: NewRow(), Rows: []Row{}}
}
