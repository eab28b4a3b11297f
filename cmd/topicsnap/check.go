package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).checkCmd) }

type checkOptions struct {
	queries.CheckOptions
	dir    string
	format string
	strict bool
	list   bool
	plan   string
	// remember saves the check's options in the folder's checks file.
	remember bool
	engine   engineOptions
	raw      map[string]*string // each check option flag's text, by flag name
}

// flagOf spells a check option as the command line's flag.
func flagOf(option string) string {
	if op, ok := queries.CheckOptionSet[option]; ok {
		return "--" + op.FlagName()
	}
	return "--" + strings.ReplaceAll(option, "_", "-")
}

func (a *app) checkCmd() *cobra.Command {
	o := &checkOptions{raw: map[string]*string{}}
	cmd := &cobra.Command{
		Use:   "check NAME|all --topic TOPIC [--dir DIR] [options]",
		Short: "Run a reconciliation check: " + strings.Join(queries.CheckNames, ", "),
		Long: `check runs canned SQL over a topic's snapshot and prints a verdict in plain words,
then tables. --format json prints one JSON document:
  {"check", "topic", "status": "ok"|"warn"|"fail", "message", "summary": {...}, "rows": [...]}
Exit status: 0 for ok and warn (--strict: warn exits 1), 1 for fail, 2 for an error.
Expressions are SQL over the topic view, such as value.event_id. check --list lists the
checks and the options each takes.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.list {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.list {
				return writeCheckList(a.stdout)
			}
			name := args[0]
			c, known := queries.LookupCheck(name)
			if !known && name != "all" {
				return usagef("unknown check %q: use one of %s, or all", name, strings.Join(queries.CheckNames, ", "))
			}
			if o.Topic == "" && cmd.Flags().Changed("topic") {
				// An empty name given (--topic "$T" of a script) is not
				// "no --topic": it was read as the folder's only topic.
				return usagef("--topic is empty: name the topic (a folder of one topic needs no --topic)")
			}
			if o.Topic == "" {
				// A folder of one topic needs no --topic: the server's
				// /api/checks/NAME takes its only topic too.
				if !catalog.IsURL(o.dir) {
					if d, err := catalog.OpenAt(cmd.Context(), o.dir, catalog.S3Config{}); err == nil {
						if ts, err := d.Topics(cmd.Context()); err == nil && len(ts) == 1 {
							o.Topic = ts[0]
							fmt.Fprintf(a.stderr, "check on %s, the folder's only topic\n", o.Topic)
						}
					}
				}
				if o.Topic == "" {
					return usagef("name the topic: --topic TOPIC")
				}
			}
			if o.plan != "" && (!known || c.Plan == nil) {
				return usagef("--plan: only check %s writes a plan", strings.Join(planChecks(), ", check "))
			}
			if o.remember && name == "all" {
				return usagef("--remember: name one check to remember its options (check NAME --topic T ... --remember)")
			}
			if o.remember && strings.HasPrefix(o.dir, "s3://") {
				return usagef("--remember: the checks file is kept in a local folder, not in %s", o.dir)
			}
			if !contains([]string{"table", "json", "markdown"}, o.format) {
				return usagef("--format %q: use table, json or markdown", o.format)
			}
			// One schema for every surface: each option given is parsed
			// and bounded by the option itself (queries.Option.Set).
			// A flag may stand for options of different checks
			// (--partitions: skew's what-if count, reset's list): it sets
			// the one the check takes.
			for _, flag := range flagNames() {
				f := cmd.Flags().Lookup(flag)
				if f == nil || !f.Changed {
					continue
				}
				var set []*queries.Option
				for _, op := range optionsOfFlag(flag) {
					if !known || c.Takes(op.Name) {
						set = append(set, op)
					}
				}
				if len(set) == 0 {
					var takes []string
					for _, t := range c.Options {
						takes = append(takes, flagOf(t))
					}
					return usagef("--%s: check %s does not take it (it takes %s)", flag, name, strings.Join(takes, ", "))
				}
				// For check all, the flag sets each option whose kind reads it.
				var firstErr error
				ok := 0
				for _, op := range set {
					if err := op.Set(&o.CheckOptions, *o.raw[flag]); err != nil {
						if firstErr == nil {
							firstErr = err
						}
						continue
					}
					ok++
				}
				if firstErr != nil && (known || ok == 0) {
					return optionUsage(firstErr)
				}
			}
			return a.runCheck(cmd.Context(), name, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	f.StringVar(&o.Topic, "topic", "", "topic to check")
	f.StringVar(&o.format, "format", "table", "table, json or markdown")
	f.BoolVar(&o.strict, "strict", false, "exit 1 on warn too")
	f.BoolVar(&o.list, "list", false, "list the checks and their options")
	addEngineFlags(f, &o.engine)
	f.BoolVar(&o.remember, "remember", false, "save this check's options for this topic in the folder's checks.json, where check, check all, serve and the overview find them")
	f.StringVar(&o.plan, "plan", "", planHelp())
	for _, flag := range flagNames() {
		var helps []string
		isBool := false
		for _, op := range optionsOfFlag(flag) {
			var takers []string
			for _, c := range queries.Checks() {
				if c.Takes(op.Name) {
					takers = append(takers, c.Name)
				}
			}
			help := strings.Join(takers, ", ") + ": " + op.Help
			var notes []string
			if b := op.Bounds(); b != "" {
				notes = append(notes, b)
			}
			if op.Default != "" {
				notes = append(notes, "default "+op.Default)
			}
			if len(notes) > 0 {
				help += " (" + strings.Join(notes, "; ") + ")"
			}
			helps = append(helps, help)
			isBool = isBool || op.Kind == queries.KindBool
		}
		raw := new(string)
		o.raw[flag] = raw
		f.Var(&optionFlag{s: raw, kind: flagKind(optionsOfFlag(flag))}, flag, strings.Join(helps, "; "))
		if isBool {
			f.Lookup(flag).NoOptDefVal = "true" // --reverse alone means true
		}
	}
	return cmd
}

// optionFlag holds a check option's text as typed; Option.Set parses and
// bounds it. Its Type is the option's kind, which --help shows
// ("--silence duration", "--hot number").
type optionFlag struct {
	s    *string
	kind string
}

func (f *optionFlag) String() string     { return *f.s }
func (f *optionFlag) Set(v string) error { *f.s = v; return nil }
func (f *optionFlag) Type() string       { return f.kind }

// flagKind names what the options spelled by one flag take, for --help:
// their kind when they share one.
func flagKind(ops []*queries.Option) string {
	names := map[queries.OptionKind]string{
		queries.KindNumber: "number", queries.KindInt: "int", queries.KindSeconds: "duration",
		queries.KindBool: "bool", queries.KindTime: "time", queries.KindList: "partitions",
		queries.KindExpr: "expr", queries.KindFile: "file", queries.KindText: "text",
	}
	kind := ""
	for _, op := range ops {
		k, ok := names[op.Kind]
		if !ok {
			k = "value"
		}
		if kind != "" && kind != k {
			return "value"
		}
		kind = k
	}
	return kind
}

// flagNames lists the check options' flags, each once, sorted.
func flagNames() []string { return optionFlags().names }

// optionsOfFlag lists the options spelled --flag on the command line.
func optionsOfFlag(flag string) []*queries.Option { return optionFlags().of[flag] }

// optionFlags groups the check options by flag name, once: every command
// tree (each run, and start-up) reads it for each flag.
var optionFlags = sync.OnceValue(func() (g struct {
	names []string
	of    map[string][]*queries.Option
}) {
	g.of = map[string][]*queries.Option{}
	for _, op := range sortedOptions() {
		n := op.FlagName()
		if len(g.names) == 0 || g.names[len(g.names)-1] != n {
			g.names = append(g.names, n)
		}
		g.of[n] = append(g.of[n], op)
	}
	return g
})

// sortedOptions lists the check options by flag name.
func sortedOptions() []*queries.Option {
	type named struct {
		flag string
		op   *queries.Option
	}
	var out []named
	for _, op := range queries.CheckOptionSet {
		out = append(out, named{op.FlagName(), op})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].flag != out[j].flag {
			return out[i].flag < out[j].flag
		}
		return out[i].op.Name < out[j].op.Name
	})
	ops := make([]*queries.Option, len(out))
	for i, n := range out {
		ops[i] = n.op
	}
	return ops
}

// optionUsage turns a check's complaint about an option into a usage error
// that names the option as a flag.
func optionUsage(err error) error {
	var oe *queries.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	if oe.Value != "" {
		return usagef("%s %q: %s", flagOf(oe.Option), oe.Value, oe.Reason)
	}
	return usagef("%s %s", flagOf(oe.Option), oe.Reason)
}

// writeCheckList prints each check, what it answers and its options.
func writeCheckList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range queries.Checks() {
		var opts []string
		for _, n := range c.Options {
			opts = append(opts, flagOf(n))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Summary, strings.Join(opts, " "))
	}
	return tw.Flush()
}

func (a *app) runCheck(ctx context.Context, name string, o *checkOptions) error {
	remote, err := o.engine.open(ctx)
	if err != nil {
		return err
	}
	if remote != nil {
		defer remote.Close()
	}
	var only []string
	if o.Topic != "" {
		only = []string{o.Topic}
	}
	local, err := a.localDir(ctx, o.dir, only...)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	rdir, err := a.remoteDir(ctx, remote, o.dir)
	if err != nil {
		return fmt.Errorf("open %s on spark: %w", o.dir, err)
	}
	// Lazy: a check on one topic builds that topic's views (and those its
	// statements name), not every topic's of the folder.
	// Topics: only the manifests of the topics the check reads.
	var topics []string
	for _, t := range []string{o.Topic, o.AgainstTopic} {
		if t != "" {
			topics = append(topics, t)
		}
	}
	eng, err := queries.Open(ctx, local, queries.Options{FolderName: o.dir, Lazy: remote == nil, Remote: remote, RemoteDir: rdir, Topics: topics})
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	defer eng.Close()
	a.warnProblems(eng)
	names := []string{name}
	if name == "all" {
		names = queries.CheckNames
	}
	// The folder's checks file fills in the options the command line
	// leaves unset (queries/checksfile.go).
	configured, err := queries.ReadChecksFile(local)
	if err != nil {
		return err // queries.ErrChecksFile: the folder's file, exit 9
	}
	worst := queries.StatusOK
	var reports []*queries.Report
	for _, n := range names {
		opts := o.CheckOptions
		if c, ok := queries.Configured(configured, n, o.Topic); ok {
			set, differs, err := c.FillFrom(local, &opts)
			if err != nil {
				return err
			}
			if differs != "" && name != "all" {
				fmt.Fprintf(a.stderr, "%s on %s: %s differs from the one %s remembers, so none of its options are used (give them here, or --remember these)\n",
					n, o.Topic, flagOf(differs), filepath.Join(o.dir, queries.ChecksFileName))
			}
			if len(set) > 0 && name != "all" {
				var flags []string
				for _, s := range set {
					flags = append(flags, flagOf(s))
				}
				fmt.Fprintf(a.stderr, "%s on %s: %s from %s\n", n, o.Topic, strings.Join(flags, " "), filepath.Join(o.dir, queries.ChecksFileName))
			}
		}
		if needs := queries.Needs(n, opts); name == "all" && len(needs) > 0 {
			// Said, never silently left out.
			reports = append(reports, queries.Skipped(n, o.Topic, needs, flagOf))
			continue
		}
		r, err := eng.RunCheck(ctx, n, opts)
		var noe *queries.NotOnEngineError
		if name == "all" && errors.As(err, &noe) {
			// Said, never silently left out, and never "ok".
			reports = append(reports, &queries.Report{Check: n, Topic: o.Topic, Status: queries.StatusSkipped,
				Message: "not run: " + noe.Error(), Summary: queries.NewRow(), Rows: []queries.Row{}})
			continue
		}
		if err != nil {
			var ne *queries.NeedsError
			if errors.As(err, &ne) {
				return usagef("%s", ne.Say(flagOf))
			}
			var oe *queries.OptionError
			if errors.As(err, &oe) {
				// The check names its option; the command line calls it a flag.
				return optionUsage(err)
			}
			if errors.Is(err, queries.ErrUnknownTopic) || errors.Is(err, queries.ErrUnknownGroup) {
				return err // its own exit code (4), not a usage error
			}
			if errors.Is(err, queries.ErrBadCheck) || errors.Is(err, queries.ErrRefused) {
				return usageError{err}
			}
			return err
		}
		reports = append(reports, r)
		worst = queries.Worse(worst, r.Status)
	}
	a.warnProblems(eng) // what building the checked topic's views found
	switch o.format {
	case "json":
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		var v any = reports[0]
		if name == "all" {
			v = reports
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	default:
		for _, r := range reports {
			writeReport(a.stdout, r, o.format == "markdown")
		}
	}
	if o.remember {
		c, err := queries.ConfiguredFrom(o.dir, name, reportOptions(o, configured, local, name))
		if err != nil {
			return usageError{err}
		}
		if err := queries.RememberChecks(o.dir, c); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "remembered %s on %s in %s\n", name, o.Topic, filepath.Join(o.dir, queries.ChecksFileName))
	}
	if c, _ := queries.LookupCheck(name); o.plan != "" && c != nil && c.Plan != nil {
		err := catalog.WriteFileAtomic(o.plan, func(w io.Writer) error { return c.Plan.Write(w, reports[0]) })
		if err != nil {
			return fmt.Errorf("write %s plan %s: %w", name, o.plan, err)
		}
	}
	if worst == queries.StatusFail || (o.strict && worst == queries.StatusWarn) {
		return errCheckFailed
	}
	return nil
}

// planChecks names the checks that write a plan for --plan.
func planChecks() []string {
	var out []string
	for _, c := range queries.Checks() {
		if c.Plan != nil {
			out = append(out, c.Name)
		}
	}
	return out
}

// planHelp is --plan's help: what each check's plan holds.
func planHelp() string {
	var parts []string
	for _, c := range queries.Checks() {
		if c.Plan != nil {
			parts = append(parts, c.Name+": "+c.Plan.Help)
		}
	}
	return "also write the check's plan to this file (" + strings.Join(parts, "; ") + ")"
}

func writeReport(w io.Writer, r *queries.Report, md bool) {
	if md {
		fmt.Fprintf(w, "## %s on %s: %s\n\n%s\n\n", r.Check, r.Topic, strings.ToUpper(r.Status), r.Message)
	} else {
		fmt.Fprintf(w, "%s %s on %s: %s\n", strings.ToUpper(r.Status), r.Check, r.Topic, r.Message)
	}
	var parts []string
	for _, k := range r.Summary.Keys {
		v := r.Summary.Get(k)
		text := jsonText(v)
		switch v.(type) {
		case float64, float32:
			// A fraction as people read it (a share as 15.15%, seconds
			// as 2m 29s); counts keep their plain digits, and --format
			// json the raw numbers.
			text = strings.ReplaceAll(display.Column(k, v), ",", "")
		}
		parts = append(parts, fmt.Sprintf("%s=%s", k, text))
	}
	if md {
		fmt.Fprintf(w, "`%s`\n\n", strings.Join(parts, " "))
	} else {
		fmt.Fprintf(w, "  %s\n", strings.Join(parts, "  "))
	}
	// Rows grouped by kind, each as its own table, values as the pages
	// show them (display.Column: 37,789 records, 3m 20s, 16.56%); the
	// summary line above keeps counts' plain digits and --format json the
	// raw numbers.
	byKind := map[string][]queries.Row{}
	var kinds []string
	for _, row := range r.Rows {
		k, _ := row.Get("kind").(string)
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], row)
	}
	for _, k := range kinds {
		rows := byKind[k]
		var cols []string
		for _, c := range rows[0].Keys {
			if c != "kind" {
				cols = append(cols, c)
			}
		}
		title := k
		if title == "" {
			title = "rows"
		}
		if md {
			fmt.Fprintf(w, "\n### %s\n\n| %s |\n|%s\n", title, strings.Join(cols, " | "), strings.Repeat(" --- |", len(cols)))
			for _, row := range rows {
				var vals []string
				for _, c := range cols {
					vals = append(vals, display.Column(c, row.Get(c)))
				}
				fmt.Fprintf(w, "| %s |\n", strings.Join(vals, " | "))
			}
			continue
		}
		fmt.Fprintf(w, "\n  %s:\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  %s\n", strings.Join(cols, "\t"))
		for _, row := range rows {
			var vals []string
			for _, c := range cols {
				vals = append(vals, display.Column(c, row.Get(c)))
			}
			fmt.Fprintf(tw, "  %s\n", strings.Join(vals, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
}

func jsonText(v any) string {
	if v == nil {
		return "NULL"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(display.JSON(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.Trim(string(b), `"`)
}

// reportOptions are the options a single check ran with: the command
// line's, filled in from the checks file.
func reportOptions(o *checkOptions, configured []queries.ConfiguredCheck, local, name string) queries.CheckOptions {
	opts := o.CheckOptions
	if c, ok := queries.Configured(configured, name, o.Topic); ok {
		c.FillFrom(local, &opts) //nolint:errcheck // it filled them once already, without error
	}
	return opts
}
