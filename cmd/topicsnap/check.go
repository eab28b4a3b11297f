package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).checkCmd) }

type checkOptions struct {
	queries.CheckOptions
	dir    string
	format string
	strict bool
	list   bool
	engine engineOptions
	raw    map[string]*string // each check option's flag, by option name
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
			if o.Topic == "" {
				return usagef("name the topic: --topic TOPIC")
			}
			if !contains([]string{"table", "json", "markdown"}, o.format) {
				return usagef("--format %q: use table, json or markdown", o.format)
			}
			// One schema for every surface: each option given is parsed
			// and bounded by the option itself (queries.Option.Set).
			for _, op := range sortedOptions() {
				f := cmd.Flags().Lookup(op.FlagName())
				if f == nil || !f.Changed {
					continue
				}
				if known && !c.Takes(op.Name) {
					var takes []string
					for _, t := range c.Options {
						takes = append(takes, flagOf(t))
					}
					return usagef("--%s: check %s does not take it (it takes %s)", op.FlagName(), name, strings.Join(takes, ", "))
				}
				if err := op.Set(&o.CheckOptions, *o.raw[op.Name]); err != nil {
					return optionUsage(err)
				}
			}
			return a.runCheck(cmd.Context(), name, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder")
	f.StringVar(&o.Topic, "topic", "", "topic to check")
	f.StringVar(&o.format, "format", "table", "table, json or markdown")
	f.BoolVar(&o.strict, "strict", false, "exit 1 on warn too")
	f.BoolVar(&o.list, "list", false, "list the checks and their options")
	addEngineFlags(f, &o.engine)
	for _, op := range sortedOptions() {
		var takers []string
		for _, c := range queries.Checks() {
			if c.Takes(op.Name) {
				takers = append(takers, c.Name)
			}
		}
		help := strings.Join(takers, ", ") + ": " + op.Help
		if op.Default != "" {
			help += " (default " + op.Default + ")"
		}
		o.raw[op.Name] = f.String(op.FlagName(), "", help)
		if op.Kind == queries.KindBool {
			f.Lookup(op.FlagName()).NoOptDefVal = "true" // --reverse alone means true
		}
	}
	return cmd
}

// sortedOptions lists the check options by flag name.
func sortedOptions() []*queries.Option {
	var out []*queries.Option
	for _, op := range queries.CheckOptionSet {
		out = append(out, op)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FlagName() < out[j].FlagName() })
	return out
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
	eng, err := queries.Open(ctx, o.dir, queries.Options{Remote: remote})
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	defer eng.Close()
	a.warnProblems(eng)
	names := []string{name}
	if name == "all" {
		names = queries.CheckNames
	}
	worst := queries.StatusOK
	var reports []*queries.Report
	for _, n := range names {
		if needs := queries.Needs(n, o.CheckOptions); name == "all" && len(needs) > 0 {
			// Said, never silently left out.
			reports = append(reports, queries.Skipped(n, o.Topic, needs, flagOf))
			continue
		}
		r, err := eng.RunCheck(ctx, n, o.CheckOptions)
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
			if errors.Is(err, queries.ErrBadCheck) || errors.Is(err, queries.ErrRefused) {
				return usageError{err}
			}
			return err
		}
		reports = append(reports, r)
		if r.Status == queries.StatusFail || (r.Status == queries.StatusWarn && worst == queries.StatusOK) {
			worst = r.Status
		}
	}
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
	if worst == queries.StatusFail || (o.strict && worst == queries.StatusWarn) {
		return errCheckFailed
	}
	return nil
}

func writeReport(w io.Writer, r *queries.Report, md bool) {
	if md {
		fmt.Fprintf(w, "## %s on %s: %s\n\n%s\n\n", r.Check, r.Topic, strings.ToUpper(r.Status), r.Message)
	} else {
		fmt.Fprintf(w, "%s %s on %s: %s\n", strings.ToUpper(r.Status), r.Check, r.Topic, r.Message)
	}
	var parts []string
	for _, k := range r.Summary.Keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, jsonText(r.Summary.Get(k))))
	}
	if md {
		fmt.Fprintf(w, "`%s`\n\n", strings.Join(parts, " "))
	} else {
		fmt.Fprintf(w, "  %s\n", strings.Join(parts, "  "))
	}
	// Rows grouped by kind, each as its own table.
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
					vals = append(vals, jsonText(row.Get(c)))
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
				vals = append(vals, jsonText(row.Get(c)))
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
	b, err := json.Marshal(queries.JSONValue(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.Trim(string(b), `"`)
}
