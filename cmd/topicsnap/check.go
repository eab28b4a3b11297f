package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).checkCmd) }

type checkOptions struct {
	queries.CheckOptions
	dir           string
	format        string
	strict        bool
	silence, late string
}

func (a *app) checkCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check NAME|all --topic TOPIC [--dir DIR] [options]",
		Short: "Run a reconciliation check: " + strings.Join(queries.CheckNames, ", "),
		Long: `check runs canned SQL over a topic's snapshot and prints a verdict in plain words,
then tables. --format json prints one JSON document:
  {"check", "topic", "status": "ok"|"warn"|"fail", "message", "summary": {...}, "rows": [...]}
Exit status: 0 for ok and warn (--strict: warn exits 1), 1 for fail, 2 for an error.
Expressions (--id, --by, --where, --match, --time, --event-time, --what-if-key) are SQL over
the topic view, such as value.event_id.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Topic == "" {
				return usagef("name the topic: --topic TOPIC")
			}
			if !contains([]string{"table", "json", "markdown"}, o.format) {
				return usagef("--format %q: use table, json or markdown", o.format)
			}
			var err error
			if o.Silence, err = seconds("--silence", o.silence); err != nil {
				return err
			}
			if o.Late, err = seconds("--late", o.late); err != nil {
				return err
			}
			return a.runCheck(cmd.Context(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder")
	f.StringVar(&o.Topic, "topic", "", "topic to check")
	f.StringVar(&o.format, "format", "table", "table, json or markdown")
	f.BoolVar(&o.strict, "strict", false, "exit 1 on warn too")
	f.StringVar(&o.ID, "id", "", "duplicates: id expression (default key plus value bytes)")
	f.StringVar(&o.By, "by", "", "duplicates: breakdown expression; missing: column of the expected side")
	f.Float64Var(&o.Hot, "hot", 1.5, "skew: a partition is hot at this multiple of the fair share")
	f.StringVar(&o.WhatIfKey, "what-if-key", "", "skew: show the distribution had the topic been keyed by this expression")
	f.IntVar(&o.WhatIfPartitions, "partitions", 0, "skew: partition count for --what-if-key (default the topic's)")
	f.StringVar(&o.Where, "where", "", "missing: filter over the topic")
	f.StringVar(&o.Match, "match", "", "missing: expression matched against the expected key")
	f.StringVar(&o.Against, "against", "", "missing: CSV, Parquet or JSON-lines file of expected keys")
	f.StringVar(&o.AgainstKey, "against-key", "", "missing: column of --against holding the key")
	f.StringVar(&o.AgainstTopic, "against-topic", "", "missing: take the expected keys from this topic")
	f.StringVar(&o.AgainstWhere, "against-where", "", "missing: filter over --against-topic")
	f.StringVar(&o.AgainstMatch, "against-match", "", "missing: key expression over --against-topic")
	f.BoolVar(&o.Reverse, "reverse", false, "missing: also list records whose key is not expected")
	f.StringVar(&o.Time, "time", "", "order: time expression (default timestamp)")
	f.StringVar(&o.silence, "silence", "5m", "freshness: a partition silent this long while others carry on is reported")
	f.StringVar(&o.EventTime, "event-time", "", "freshness: event time expression, for late records")
	f.StringVar(&o.late, "late", "1m", "freshness: event time this far behind the broker time is late")
	f.IntVar(&o.Limit, "limit", 50, "example rows to keep")
	return cmd
}

func seconds(flag, s string) (float64, error) {
	d, err := parseDuration(s)
	if err != nil {
		return 0, usagef("%s %q: use a duration such as 90s, 5m or 1h", flag, s)
	}
	return d, nil
}

func (a *app) runCheck(ctx context.Context, name string, o *checkOptions) error {
	eng, err := queries.Open(ctx, o.dir, queries.Options{})
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
			reports = append(reports, queries.Skipped(n, o.Topic, needs, func(opt string) string {
				return "--" + strings.ReplaceAll(opt, "_", "-")
			}))
			continue
		}
		r, err := eng.RunCheck(ctx, n, o.CheckOptions)
		if err != nil {
			var oe *queries.OptionError
			if errors.As(err, &oe) {
				// The check names its option; the command line calls it a flag.
				flag := "--" + strings.ReplaceAll(oe.Option, "_", "-")
				if oe.Value != "" {
					return usagef("%s %q: %s", flag, oe.Value, oe.Reason)
				}
				return usagef("%s %s", flag, oe.Reason)
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
