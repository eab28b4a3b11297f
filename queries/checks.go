package queries

import (
	"context"
	"fmt"
	"strings"
)

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
	if _, ok := e.Topic(o.Topic); !ok {
		return nil, fmt.Errorf("%w: topic %q has no snapshot in %s (topicsnap ls lists what is there)", ErrBadCheck, o.Topic, e.dir.Path)
	}
	if o.Limit <= 0 {
		o.Limit = 50
	}
	r, err := f(ctx, e, o)
	if err != nil {
		return nil, fmt.Errorf("check %s on %s: %w", name, o.Topic, err)
	}
	r.Check, r.Topic = name, o.Topic
	if r.Rows == nil {
		r.Rows = []Row{}
	}
	return r, nil
}
