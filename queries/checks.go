package queries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/suggest"
)

// A check is one unit: a descriptor (a Check, registered from the check's
// own file, check_NAME.go), its SQL (sql/NAME*.sql) and a golden test.
// Everything else that knows about checks is derived from the registry:
// CheckNames and `check all`, the command line's flags and `check --list`,
// the server's forms, option parsing and /api/checks index, and the
// README's table of checks (TestREADMEChecksTable fails when it is stale).
// docs/ARCHITECTURE.md, "How to add a check", walks through one.

// Check describes one reconciliation check.
type Check struct {
	// Name is how the CLI, the URL and the JSON call it.
	Name string
	// Summary says in one line what it answers (the README table, --list,
	// the index).
	Summary string
	// Order places it in CheckNames and `check all`.
	Order int
	// Options are the names (see CheckOptionSet) of the options it takes, in the
	// order a form shows them.
	Options []string
	// Needs, if set, lists the options o lacks that the check cannot run
	// without ("a|b": one of them); `check all` skips it and says so.
	Needs func(o CheckOptions) []string
	// NotOn names the remote engines (by dialect) the check cannot run on
	// yet, and why: there it fails with a *NotOnEngineError, never an
	// answer it cannot stand by.
	NotOn map[string]string
	// Empty is what the check's answer is worth on a topic that holds no
	// records: by default nothing (a warn, "nothing to judge").
	Empty EmptyRule
	// ReadsCuts: the check judges from the cluster snapshots (the cuts:
	// offsets, groups, configs, partition counts). A cut of its topic the
	// folder could not read is then a cut it did not judge, and RunCheck
	// says so in every surface's verdict: never OK.
	ReadsCuts bool
	// Charts, if set, draws the check's charts from its report (and, for
	// a chart of the folder beside it, from in.Coverage): the same figures
	// the API and the command line give, no SQL of its own. The server's
	// check page shows them; a check with Charts is run with
	// CheckOptions.Charts, so a check that computes series for them
	// (Report.Charts) does so in the same run.
	Charts func(ctx context.Context, in ChartInput) ([]chart.Chart, error)
	// Plan, if set, writes what the check's report says to do as a file a
	// tool reads, for the command line's --plan.
	Plan *Plan

	run func(ctx context.Context, e *Engine, o CheckOptions) (*Report, error)
}

// Plan is the file a check writes for --plan.
type Plan struct {
	// Help says what the file is for, in --plan's help.
	Help string
	// Write writes the plan of a report; the caller makes it whole or
	// not at all.
	Write func(w io.Writer, r *Report) error
}

// ChartInput is what a check's Charts draws from.
type ChartInput struct {
	Report  *Report
	Options CheckOptions
	// Coverage reads the offset ranges the folder holds of a topic's
	// partitions (the server keeps them cached).
	Coverage func(ctx context.Context, topic string) ([]chart.Partition, error)
}

// EmptyRule is what a check's answer is worth on a topic with no records.
type EmptyRule int

const (
	// EmptyNothingToJudge: no share, staleness or order is invented for a
	// topic that holds nothing; the check warns and says so.
	EmptyNothingToJudge EmptyRule = iota
	// EmptyNoted: the check's own finding stands beside "no records",
	// the verdict at least a warn.
	EmptyNoted
	// EmptyNotedKeepsFail: as EmptyNoted, and a fail stays a fail
	// (durability judges the cuts too: a path to silent loss they show;
	// gaps: offsets damaged, missing or deleted before they were dumped
	// are not "no data").
	EmptyNotedKeepsFail
	// EmptyStands: the answer does not read the records (lag reads the
	// groups' offsets, which an empty topic has too).
	EmptyStands
)

// Takes reports whether the check takes the option named.
func (c *Check) Takes(option string) bool { return slices.Contains(c.Options, option) }

var checks = map[string]*Check{}

// register adds a check; each check_NAME.go calls it from init.
func register(c *Check) {
	if _, dup := checks[c.Name]; dup {
		panic("check registered twice: " + c.Name)
	}
	for _, o := range c.Options {
		if CheckOptionSet[o] == nil {
			panic("check " + c.Name + " takes an option that is not in CheckOptionSet: " + o)
		}
	}
	checks[c.Name] = c
	CheckNames = append(CheckNames, c.Name)
	sort.SliceStable(CheckNames, func(i, j int) bool { return checks[CheckNames[i]].Order < checks[CheckNames[j]].Order })
}

// CheckNames lists the checks in the order `check all` runs them.
var CheckNames []string

// Checks returns the checks in the order of CheckNames.
func Checks() []*Check {
	out := make([]*Check, len(CheckNames))
	for i, n := range CheckNames {
		out[i] = checks[n]
	}
	return out
}

// LookupCheck returns the check named name.
func LookupCheck(name string) (*Check, bool) {
	c, ok := checks[name]
	return c, ok
}

// OptionKind says how an option's text is read.
type OptionKind string

// The kinds of option.
const (
	KindExpr    OptionKind = "expr"    // an SQL expression over the topic (see Engine.Expr)
	KindText    OptionKind = "text"    // a name: a topic, a column
	KindFile    OptionKind = "file"    // a file of expected keys
	KindNumber  OptionKind = "number"  // a decimal number
	KindInt     OptionKind = "int"     // a whole number
	KindBool    OptionKind = "bool"    // true or false
	KindSeconds OptionKind = "seconds" // a duration with its unit: 90s, 5m, 1h
	KindTime    OptionKind = "time"    // an RFC 3339 time: 2026-07-16T11:00:00Z
	KindList    OptionKind = "list"    // a list of partitions: 0,3-5
)

// Option is one check option, the same on every surface: the server's
// query parameter and form field is Name, the command line's flag is
// --Name with dashes (or Flag).
type Option struct {
	Name     string
	Flag     string // the command line's flag when it is not Name with dashes
	Kind     OptionKind
	Default  string // as a user would type it; empty: none
	Min, Max float64
	Help     string
	// Asks: the option says which records or keys the check asks about
	// (an id, a filter, the expected keys and how they match, a group),
	// not how the answer is broken down or tuned. A request giving one with
	// another value than the folder's checks file asks another question:
	// it takes none of the file's options (ConfiguredCheck.Differs).
	Asks  bool
	field func(*CheckOptions) any // a pointer to the field it sets
}

// FlagName is the option's command-line flag, without the dashes.
func (o *Option) FlagName() string {
	if o.Flag != "" {
		return o.Flag
	}
	return strings.ReplaceAll(o.Name, "_", "-")
}

// CheckOptionSet holds every check option, by name. It is built with
// the package's variables, before any check_NAME.go's init registers a
// check that names one.
var CheckOptionSet = buildOptions()

func buildOptions() map[string]*Option {
	set := map[string]*Option{}
	opt := func(o Option) {
		// A number's bounds are its range: zero values would refuse every
		// number, so an option without them is a mistake made here.
		if (o.Kind == KindNumber || o.Kind == KindInt || o.Kind == KindSeconds) && o.Min >= o.Max {
			panic("option " + o.Name + ": a number option needs its Min and Max")
		}
		set[o.Name] = &o
	}
	str := func(f func(*CheckOptions) *string) func(*CheckOptions) any {
		return func(c *CheckOptions) any { return f(c) }
	}
	num := func(f func(*CheckOptions) *float64) func(*CheckOptions) any {
		return func(c *CheckOptions) any { return f(c) }
	}
	whole := func(f func(*CheckOptions) *int) func(*CheckOptions) any {
		return func(c *CheckOptions) any { return f(c) }
	}
	opt(Option{Name: "id", Asks: true, Kind: KindExpr, Help: "the expression that identifies a record (default: key and value bytes)", field: str(func(c *CheckOptions) *string { return &c.ID })})
	opt(Option{Name: "by", Kind: KindExpr, Help: "break down by this expression (missing with --against: a column of the file)", field: str(func(c *CheckOptions) *string { return &c.By })})
	opt(Option{Name: "where", Asks: true, Kind: KindExpr, Help: "filter over the topic", field: str(func(c *CheckOptions) *string { return &c.Where })})
	opt(Option{Name: "match", Asks: true, Kind: KindExpr, Help: "expression of the topic matched against the expected key", field: str(func(c *CheckOptions) *string { return &c.Match })})
	opt(Option{Name: "against", Asks: true, Kind: KindFile, Help: "CSV, Parquet or JSON-lines file of expected keys", field: str(func(c *CheckOptions) *string { return &c.Against })})
	opt(Option{Name: "against_key", Asks: true, Kind: KindText, Help: "the column of the against file holding the key", field: str(func(c *CheckOptions) *string { return &c.AgainstKey })})
	opt(Option{Name: "against_topic", Asks: true, Kind: KindText, Help: "take the expected keys from this topic", field: str(func(c *CheckOptions) *string { return &c.AgainstTopic })})
	opt(Option{Name: "against_where", Asks: true, Kind: KindExpr, Help: "filter over the against topic", field: str(func(c *CheckOptions) *string { return &c.AgainstWhere })})
	opt(Option{Name: "against_match", Asks: true, Kind: KindExpr, Help: "key expression over the against topic", field: str(func(c *CheckOptions) *string { return &c.AgainstMatch })})
	opt(Option{Name: "reverse", Kind: KindBool, Help: "also list records whose key is not expected", field: func(c *CheckOptions) any { return &c.Reverse }})
	opt(Option{Name: "hot", Kind: KindNumber, Default: "1.5", Min: 1, Max: 1e6, Help: "a partition is hot at this multiple of the fair share", field: num(func(c *CheckOptions) *float64 { return &c.Hot })})
	opt(Option{Name: "what_if_key", Kind: KindExpr, Help: "show the distribution had the topic been keyed by this expression", field: str(func(c *CheckOptions) *string { return &c.WhatIfKey })})
	opt(Option{Name: "what_if_partitions", Flag: "partitions", Kind: KindInt, Min: 1, Max: MaxWhatIfPartitions, Help: "partition count for the what-if (default the topic's)", field: whole(func(c *CheckOptions) *int { return &c.WhatIfPartitions })})
	opt(Option{Name: "time", Kind: KindExpr, Help: "time expression (default the record timestamp)", field: str(func(c *CheckOptions) *string { return &c.Time })})
	opt(Option{Name: "silence", Kind: KindSeconds, Default: "5m", Min: 0.001, Max: 1e9, Help: "a partition silent this long while others carry on is reported", field: num(func(c *CheckOptions) *float64 { return &c.Silence })})
	opt(Option{Name: "event_time", Kind: KindExpr, Help: "event time expression, for late records", field: str(func(c *CheckOptions) *string { return &c.EventTime })})
	opt(Option{Name: "late", Kind: KindSeconds, Default: "1m", Min: 0.001, Max: 1e9, Help: "event time this far behind the broker time is late", field: num(func(c *CheckOptions) *float64 { return &c.Late })})
	opt(Option{Name: "stale", Kind: KindSeconds, Default: "1h", Min: 0.001, Max: 1e10, Help: "a partition whose newest record is this much older than the cut is stale", field: num(func(c *CheckOptions) *float64 { return &c.Stale })})
	opt(Option{Name: "group", Asks: true, Kind: KindText, Help: "the consumer group", field: str(func(c *CheckOptions) *string { return &c.Group })})
	opt(Option{Name: "to_time", Kind: KindTime, Help: "the time a reset by time would move the group to (RFC 3339)", field: func(c *CheckOptions) any { return &c.ToTime }})
	opt(Option{Name: "partitions", Kind: KindList, Help: "the partitions, such as 0,3-5 (default every partition the group committed on)", field: func(c *CheckOptions) any { return &c.Partitions }})
	opt(Option{Name: "limit", Kind: KindInt, Default: "50", Min: 1, Max: MaxLimit, Help: "example rows kept of each kind (counts are never limited)", field: whole(func(c *CheckOptions) *int { return &c.Limit })})
	return set
}

// WithDefaults is o with every option it leaves unset (its zero value)
// set to the option's Default: the one place a default is written is
// CheckOptionSet, which the help, the form, the API and the engine read.
func (o CheckOptions) WithDefaults() CheckOptions {
	for _, name := range sortedOptionNames() {
		op := CheckOptionSet[name]
		if op.Default == "" || op.Text(o) != "" {
			continue
		}
		if err := op.Set(&o, op.Default); err != nil {
			panic("option " + name + ": its default " + op.Default + " is not a valid value: " + err.Error())
		}
	}
	return o
}

// Text is the option's value in o as a user would type it; "" when unset.
// Set(Text(o)) gives the same value back.
func (op *Option) Text(o CheckOptions) string {
	switch p := op.field(&o).(type) {
	case *string:
		return *p
	case *bool:
		if *p {
			return "true"
		}
	case *int:
		if *p != 0 {
			return strconv.Itoa(*p)
		}
	case *float64:
		if *p != 0 && op.Kind == KindSeconds {
			return secondsText(*p)
		}
		if *p != 0 {
			return strconv.FormatFloat(*p, 'g', -1, 64)
		}
	case *time.Time:
		if !p.IsZero() {
			return p.UTC().Format(time.RFC3339Nano)
		}
	case *[]int32:
		var parts []string
		for _, x := range *p {
			parts = append(parts, strconv.Itoa(int(x)))
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// Set parses raw as the option's kind, checks its bounds and stores it in
// o. The error is an *OptionError naming the option.
func (op *Option) Set(o *CheckOptions, raw string) error {
	raw = strings.TrimSpace(raw)
	bad := func(format string, args ...any) error { return optErr(op.Name, raw, format, args...) }
	switch p := op.field(o).(type) {
	case *string:
		if raw == "" {
			return bad("is empty")
		}
		*p = raw
	case *time.Time:
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			return bad("must be a time such as 2026-07-16T11:00:00Z (RFC 3339, with its zone)")
		}
		// Kafka's times are milliseconds since 1970: an earlier time means
		// nothing to it (kafka-consumer-groups reads a negative one as
		// "latest"), and the zero time is how an unset option reads, so
		// 0001-01-01T00:00:00Z would silently become no time at all.
		if t.Before(time.Unix(0, 0)) {
			return bad("is before 1970-01-01T00:00:00Z, where Kafka's times start: for the earliest offset give 1970-01-01T00:00:00Z")
		}
		*p = t
	case *[]int32:
		set, err := catalog.ParsePartitions(raw)
		if err != nil || len(set) == 0 {
			return bad("must be a list of partitions such as 0,3-5 (at most %d)", catalog.MaxPartitionList)
		}
		ps := make([]int32, 0, len(set))
		for p := range set {
			ps = append(ps, p)
		}
		slices.Sort(ps)
		*p = ps
	case *bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return bad("must be true or false")
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(raw)
		if err != nil {
			return bad("must be a whole number between %s and %s", bound(op.Min), bound(op.Max))
		}
		if float64(n) < op.Min || float64(n) > op.Max {
			return bad("must be between %s and %s", bound(op.Min), bound(op.Max))
		}
		*p = n
	case *float64:
		var f float64
		var err error
		if op.Kind == KindSeconds {
			f, err = parseSeconds(raw)
		} else {
			f, err = strconv.ParseFloat(raw, 64)
		}
		if errors.Is(err, errNoUnit) {
			return bad("has no unit: write the duration with one, such as %ss, %sm or %sh", raw, raw, raw)
		}
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			if op.Kind == KindSeconds {
				// Go's durations stop at ~2,562,047h: 9999999h is refused here.
				return bad("must be a duration such as 90s, 5m or 1h, at most %s", durationBound(op.Max))
			}
			return bad("must be a number")
		}
		if f < op.Min || f > op.Max {
			if op.Kind == KindSeconds {
				return bad("must be between %s and %s", durationBound(op.Min), durationBound(op.Max))
			}
			return bad("must be between %s and %s", bound(op.Min), bound(op.Max))
		}
		*p = f
	}
	return nil
}

// errNoUnit is parseSeconds' error for a bare number: "5" could be
// seconds or minutes (the defaults are written 5m, 1h), so it is refused.
var errNoUnit = errors.New("a duration without a unit")

// parseSeconds reads a Go duration with its unit (90s, 5m, 1h30m) as
// seconds. A bare number is errNoUnit.
func parseSeconds(s string) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return 0, errNoUnit
	}
	d, err := time.ParseDuration(s)
	return d.Seconds(), err
}

// durationBound writes a bound of a duration option as a user would type
// it: under a second in ms, past an hour in whole hours rounded down (and
// no further than Go's durations reach, ~2,562,047h), so a value written
// as the bound says is accepted.
func durationBound(f float64) string {
	f = math.Min(f, float64(math.MaxInt64)/1e9)
	switch {
	case f < 1:
		return strconv.FormatFloat(f*1000, 'f', -1, 64) + "ms"
	case f >= 3600:
		return strconv.FormatFloat(math.Floor(f/3600), 'f', -1, 64) + "h"
	}
	return secondsText(f)
}

// secondsText writes seconds as a duration parseSeconds reads back: in
// hours or minutes when whole, else in seconds.
func secondsText(f float64) string {
	switch {
	case f >= 3600 && math.Mod(f, 3600) == 0:
		return strconv.FormatFloat(f/3600, 'f', -1, 64) + "h"
	case f >= 60 && math.Mod(f, 60) == 0:
		return strconv.FormatFloat(f/60, 'f', -1, 64) + "m"
	}
	return strconv.FormatFloat(f, 'f', -1, 64) + "s"
}

// StatusSkipped is the status of a check `check all` did not run because
// it lacks options it needs (Check.Needs).
const StatusSkipped = "skipped"

// ErrBadCheck marks a check name or option that cannot be used.
var ErrBadCheck = exit.New(exit.Error, "bad check", "")

// ErrUnknownTopic marks a topic the snapshot folder holds no snapshot of
// (UnknownTopicError).
var ErrUnknownTopic = exit.New(exit.UnknownTopic, "unknown topic", "topicsnap ls --dir DIR (lists the topics the snapshot folder holds)")

// UnknownTopicError is a topic the snapshot folder holds no snapshot of,
// with the likely intended one (a near spelling), or what the folder holds
// when it holds few.
type UnknownTopicError struct {
	Topic, Dir string
	Suggest    string   // the topic nearest by spelling, or ""
	Known      []string // every topic, when there are at most 10 and none is near
	// Unwritten: the folder has a folder of the topic that holds no
	// partition's manifest (a dump made it and wrote nothing of it).
	Unwritten bool
}

// UnwrittenTopic says of a topic whose folder holds no partition's
// manifest why it is not in the catalog.
func UnwrittenTopic(topic string) string {
	return fmt.Sprintf("topic %s skipped: its folder holds no partition's manifest: a dump made it and wrote nothing of the topic (refused it, e.g. without READ on it, or stopped before its first file), so nothing of %s is in the folder; dump it again", topic, topic)
}

func (e *UnknownTopicError) Error() string {
	s := fmt.Sprintf("topic %q has no snapshot in %s", e.Topic, e.Dir)
	if e.Unwritten {
		return s + ": " + catalog.NoManifest
	}
	switch {
	case e.Suggest != "":
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	case len(e.Known) > 0:
		s += " (it holds " + strings.Join(e.Known, ", ") + ")"
	default:
		s += " (topicsnap ls lists what is there)"
	}
	return s
}

// ExitCode is ErrUnknownTopic's.
func (e *UnknownTopicError) ExitCode() exit.Code { return ErrUnknownTopic.ExitCode() }

// Hint is ErrUnknownTopic's.
func (e *UnknownTopicError) Hint() string { return ErrUnknownTopic.Hint() }

// Is makes errors.Is(err, ErrUnknownTopic) and, since a check cannot run
// on it, errors.Is(err, ErrBadCheck) hold.
func (e *UnknownTopicError) Is(target error) bool {
	return target == ErrUnknownTopic || target == ErrBadCheck
}

// unknownTopic is the error for a topic the engine has no view of.
func (e *Engine) unknownTopic(ctx context.Context, name string) error {
	if tm, err := e.dir.ReadTopic(ctx, name); err == nil && len(tm.Manifests) == 0 && len(tm.Damaged) == 0 && e.hasTopicFolder(ctx, name) {
		return &UnknownTopicError{Topic: name, Dir: e.dir.Path, Unwritten: true}
	}
	var names []string
	for _, t := range e.Topics() {
		names = append(names, t.Name)
	}
	e.mu.RLock()
	if e.allNames != nil {
		names = slices.Clone(e.allNames) // the engine is limited to some topics: match every one
	}
	e.mu.RUnlock()
	u := &UnknownTopicError{Topic: name, Dir: e.dir.Path, Suggest: suggest.Closest(name, names)}
	if u.Suggest == "" && len(names) > 0 && len(names) <= 10 {
		u.Known = names
	}
	return u
}

// hasTopicFolder reports whether the folder has a folder of topic.
func (e *Engine) hasTopicFolder(ctx context.Context, topic string) bool {
	names, _, err := e.dir.TopicFolders(ctx)
	return err == nil && slices.Contains(names, topic)
}

// ErrUnknownGroup marks a consumer group no cut in the snapshot folder saw
// (UnknownGroupError).
var ErrUnknownGroup = errors.New("unknown group")

// UnknownGroupError is a --group no cut of the folder recorded, on any
// topic, with the likely intended one (a near spelling), or the groups the
// topic's cuts saw when they are few.
type UnknownGroupError struct {
	Group, Topic, Dir string
	Suggest           string   // the group nearest by spelling, or ""
	Known             []string // the topic's groups, when there are at most 10 and none is near
}

func (e *UnknownGroupError) Error() string {
	s := fmt.Sprintf("group %q is in no snapshot in %s", e.Group, e.Dir)
	switch {
	case e.Suggest != "":
		s += fmt.Sprintf(" (did you mean %q?)", e.Suggest)
	case len(e.Known) > 0:
		s += fmt.Sprintf(" (the snapshots of %s saw %s)", e.Topic, strings.Join(e.Known, ", "))
	default:
		s += fmt.Sprintf(" (no cut of %s recorded a group)", e.Topic)
	}
	return s
}

// ExitCode is exit.UnknownTopic: a group that is not there, as a topic.
func (e *UnknownGroupError) ExitCode() exit.Code { return exit.UnknownTopic }

// Hint is the command that lists the topic's groups.
func (e *UnknownGroupError) Hint() string {
	return fmt.Sprintf("topicsnap check lag --dir %s --topic %s (lists the groups that committed offsets on the topic)", ShellQuote(e.Dir), ShellQuote(e.Topic))
}

// Is makes errors.Is(err, ErrUnknownGroup) and, since a check cannot run
// on it, errors.Is(err, ErrBadCheck) hold.
func (e *UnknownGroupError) Is(target error) bool {
	return target == ErrUnknownGroup || target == ErrBadCheck
}

// knownGroup returns nil when some cut of the folder recorded group (on
// any topic), or when a cut of topic could not read every group (then the
// group may exist unseen, and the check says what it found), or when no
// cut of topic was taken (its groups were never looked at); otherwise an
// *UnknownGroupError with the nearest spelling among the folder's groups.
func (e *Engine) knownGroup(ctx context.Context, topic, group string) error {
	e.mu.RLock()
	snaps, limited := e.snaps, len(e.opts.Topics) > 0
	e.mu.RUnlock()
	onTopic := map[string]bool{}
	cut := false // some cut of topic recorded its groups
	for _, s := range snaps {
		if s.Topic != topic {
			continue
		}
		if s.GroupsError != "" {
			return nil
		}
		cut = true
		for _, g := range s.Groups {
			if g.Group == group {
				return nil
			}
			onTopic[g.Group] = true
		}
	}
	if !cut {
		return nil // no cut of the topic: its groups were never looked at
	}
	if limited {
		// An engine limited to some topics read their cuts only: a group
		// its topic's cuts did not see is looked for in every other
		// topic's, read now for this question alone.
		if more, _ := e.dir.ClusterSnapshots(ctx); more != nil {
			snaps = more
		}
	}
	all := map[string]bool{}
	for _, s := range snaps {
		for _, g := range s.Groups {
			if g.Group == group {
				return nil
			}
			all[g.Group] = true
		}
	}
	names := slices.Sorted(maps.Keys(all))
	u := &UnknownGroupError{Group: group, Topic: topic, Dir: e.dir.Path, Suggest: suggest.Closest(group, names)}
	if known := slices.Sorted(maps.Keys(onTopic)); u.Suggest == "" && len(known) <= 10 {
		u.Known = known
	}
	return u
}

// caseTwins reports whether a topic of names has no view only because
// another topic's name differs from its own only in case, in an engine of
// the whole folder on DuckDB: an engine limited to the topics a check reads
// (Options.Topics) has a view of it, unless the names are each other's
// twins. A topic named as a table the engine makes has none either way.
func (e *Engine) caseTwins(names ...string) bool {
	if e.opts.Remote != nil || len(e.opts.Topics) > 0 {
		return false
	}
	twin := false
	for _, n := range names {
		if n == "" {
			continue
		}
		t, ok := e.Topic(n)
		if !ok || t.Apart == "" {
			continue
		}
		if takenName(n) != "" {
			return false
		}
		twin = true
	}
	if twin && len(names) == 2 && names[0] != names[1] && strings.EqualFold(names[0], names[1]) {
		return false // twins of each other: no engine tells them apart
	}
	return twin
}

// only is o limited to topics (those not empty), built when first named.
func (o Options) only(topics ...string) Options {
	o.Lazy = true
	o.Topics = nil
	for _, t := range topics {
		if t != "" && !slices.Contains(o.Topics, t) {
			o.Topics = append(o.Topics, t)
		}
	}
	return o
}

// RunCheck runs one check against a topic.
func (e *Engine) RunCheck(ctx context.Context, name string, o CheckOptions) (*Report, error) {
	c, ok := checks[name]
	if !ok {
		return nil, exit.Errorf(ErrBadCheck, "unknown check %q: use one of %s", name, strings.Join(CheckNames, ", "))
	}
	t, ok := e.Topic(o.Topic)
	if !ok {
		return nil, e.unknownTopic(ctx, o.Topic)
	}
	if e.caseTwins(o.Topic, o.AgainstTopic) {
		// A topic whose name differs from another's only in case has no
		// view in an engine of every topic; one of the topics the check
		// reads gives it one, as check --topic opens it: the server, the
		// overview and notebooks answer what the command answers (they
		// said "none has a view" where the command gave the verdict).
		alone, err := Open(ctx, e.dir.Path, e.opts.only(o.Topic, o.AgainstTopic))
		if err != nil {
			return nil, fmt.Errorf("check %s on %s: open the topic alone: %w", name, o.Topic, err)
		}
		defer alone.Close()
		return alone.RunCheck(ctx, name, o)
	}
	for _, topic := range []string{o.Topic, o.AgainstTopic} {
		if at, ok := e.Topic(topic); ok && at.Apart != "" {
			// Its views would be another's: refused, never answered wrong.
			return nil, exit.Errorf(ErrNameTaken, "check %s on %s: %s", name, topic, at.Apart)
		}
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Group != "" && c.Takes("group") {
		if err := e.knownGroup(ctx, o.Topic, o.Group); err != nil {
			return nil, err
		}
	}
	if c.Needs != nil {
		if needs := c.Needs(o); len(needs) > 0 {
			return nil, &NeedsError{Check: name, Needs: needs}
		}
	}
	if r := e.opts.Remote; r != nil && c.NotOn[r.Dialect()] != "" {
		return nil, &NotOnEngineError{Check: name, Engine: r.Dialect(), Why: c.NotOn[r.Dialect()]}
	}
	if r := e.opts.Remote; r != nil {
		for _, name2 := range []string{o.Topic, o.AgainstTopic} {
			if t2, ok := e.Topic(name2); ok && encodedNotOnRemote(t2) != "" {
				return nil, &NotOnEngineError{Check: name, Engine: r.Dialect(), Why: "topic " + name2 + ": " + encodedNotOnRemote(t2)}
			}
		}
	}
	o = o.WithDefaults()
	// A lazy engine builds the views of the topics a check reads before
	// it starts: the check's own Go code reads their structure, and a
	// check on one topic of a folder of thousands costs that topic.
	if err := e.ensureTopics(ctx, o.Topic, o.AgainstTopic); err != nil {
		if isDamagedData(err) {
			return nil, damagedErr(err, fmt.Sprintf("check %s on %s", name, o.Topic), e.dir.Path)
		}
		return nil, fmt.Errorf("check %s on %s: %w", name, o.Topic, err)
	}
	r, err := c.run(ctx, e, o)
	if err != nil {
		if isDamagedData(err) {
			// A data file DuckDB could not read mid-check: the folder's
			// fault (exit 9, catalog verify), whichever check met it.
			return nil, damagedErr(err, fmt.Sprintf("check %s on %s", name, o.Topic), e.dir.Path)
		}
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
	if bad := e.unreadableCuts(o.Topic); c.ReadsCuts && bad > 0 && r.Summary.Get("unreadable_cuts") == nil {
		// A cut it could not read may be the one with the finding (the
		// group behind, the stale partition): not judged, never ok.
		if r.Status == StatusOK {
			r.Status = StatusWarn
		}
		r.Message += "; not judged: " + plural(int64(bad), "cut of the folder could not be read", "cuts of the folder could not be read") +
			" (topicsnap catalog verify names them)"
		r.Summary.Set("unreadable_cuts", int64(bad))
	}
	if t.openTxn && c.Empty != EmptyStands {
		// Records of a transaction no marker in the folder decides (open
		// at the last dump) are in the views as Kafka's log holds them,
		// but Kafka may yet abort them: counted, never OK on them.
		if err := e.openTransactions(ctx, t, r); err != nil {
			return nil, fmt.Errorf("check %s on %s: %w", name, o.Topic, err)
		}
	}
	if t.Records == 0 && c.Empty != EmptyStands {
		// No records is said as such (the check's Empty rule).
		if c.Empty != EmptyNotedKeepsFail || r.Status != StatusFail {
			r.Status = StatusWarn
		}
		// Today's partitions: an old topic's that the topic made again
		// lacks are not its.
		n, err := e.partitionCount(ctx, o.Topic)
		if err != nil {
			return nil, err
		}
		msg := fmt.Sprintf("no records: the snapshot of %s holds none on its %s", o.Topic, plural(n, "partition", "partitions"))
		if c.Empty == EmptyNothingToJudge {
			r.Message = msg + ", so there is nothing to judge"
		} else {
			r.Message = msg + "; " + r.Message
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

// validate refuses numeric options out of their bounds (CheckOptionSet' Min and
// Max; zero means the default).
func (o CheckOptions) validate() error {
	for _, name := range sortedOptionNames() {
		op := CheckOptionSet[name]
		var v float64
		switch p := op.field(&o).(type) {
		case *int:
			v = float64(*p)
		case *float64:
			v = *p
		default:
			continue
		}
		if v == 0 {
			continue
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < op.Min || v > op.Max {
			return optErr(name, strconv.FormatFloat(v, 'g', -1, 64), "must be between %s and %s", bound(op.Min), bound(op.Max))
		}
	}
	return nil
}

func sortedOptionNames() []string {
	names := make([]string, 0, len(CheckOptionSet))
	for n := range CheckOptionSet {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Needs lists the options a check needs that o lacks, by the check's
// option names ("a|b": one of them; empty when it can run).
func Needs(name string, o CheckOptions) []string {
	if c, ok := checks[name]; ok && c.Needs != nil {
		return c.Needs(o)
	}
	return nil
}

// Skipped is the report of a check that did not run because options it
// needs were not given: status "skipped", never "ok". say spells an
// option's name for the surface (--against-key, against_key).
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

// NeedsError is a check run without options it cannot do without. Needs
// are option names ("a|b": one of them); Say spells them for a surface.
type NeedsError struct {
	Check string
	Needs []string
}

func (e *NeedsError) Error() string { return e.Say(func(o string) string { return o }) }

// Say is the error with each option spelled by say (--against-key on the
// command line, against_key on the server).
func (e *NeedsError) Say(say func(option string) string) string {
	return e.Check + " " + strings.TrimPrefix(Skipped(e.Check, "", e.Needs, say).Message, "not run: ")
}

// Is makes errors.Is(err, ErrBadCheck) and errors.Is(err, ErrBadOption)
// true.
func (e *NeedsError) Is(target error) bool { return target == ErrBadOption || target == ErrBadCheck }

// bound prints a bound as people write it: 1000000, not 1e+06.
func bound(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Bounds says, for --help and the form's hints, which values a number
// option takes, in the words its refusal uses: "1 to 1000000"; a duration
// "more than 0 seconds"; "" for an option that is not a number.
func (op Option) Bounds() string {
	switch op.Kind {
	case KindInt, KindNumber:
		return bound(op.Min) + " to " + bound(op.Max)
	case KindSeconds:
		return "more than 0 seconds"
	}
	return ""
}

// openTransactions says, in r, the records of transactions still open at
// the folder's last dump: the check counted them as present, and Kafka may
// yet abort them, so the verdict is at best warn. DuckDB reads only the
// files that hold such records and those that hold markers, a few columns
// of each (open_txn_files.sql): the topic's view resolves every record of
// every file, and that cost each check of a topic with such a file as much
// again, however long ago later markers settled them. Spark reads the view.
func (e *Engine) openTransactions(ctx context.Context, t Topic, r *Report) error {
	var rows []Row
	var err error
	if d := views(t.Name); e.opts.Remote != nil || len(t.openFiles) == 0 {
		rows, err = e.run(ctx, "open_txn", d)
	} else {
		d.OpenFiles, d.MarkerFiles = quotedList(t.openFiles), quotedList(t.markerFiles)
		var q string
		if q, err = render("open_txn_files", d); err == nil {
			rows, err = e.queryFiles(ctx, q)
		}
	}
	if err != nil {
		return err
	}
	var n int64
	var where []string
	for _, x := range rows {
		n += asInt(x.Get("records"))
		where = append(where, fmt.Sprintf("partition %d offsets %d-%d", asInt(x.Get("partition")), asInt(x.Get("first_offset")), asInt(x.Get("last_offset"))))
	}
	if n == 0 {
		return nil
	}
	if r.Status == StatusOK {
		r.Status = StatusWarn
	}
	r.Message += fmt.Sprintf("; not settled: %s of transactions still open at the last dump (%s) %s counted as present, and Kafka may yet abort them (the next dump reads their markers)",
		plural(n, "record", "records"), strings.Join(first10(where), ", "), map[bool]string{true: "is", false: "are"}[n == 1])
	r.Summary.Set("open_transaction_records", n)
	return nil
}

// quotedList is paths as the SQL literals of a list's elements.
func quotedList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = quoteString(p)
	}
	return strings.Join(q, ", ")
}
