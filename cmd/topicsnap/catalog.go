package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/suggest"
	"github.com/topicsnap/topicsnap/internal/units"
	"github.com/topicsnap/topicsnap/queries"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "catalog", Short: "Inspect, verify, copy and compact a snapshot folder or bucket", RunE: groupRunE}
	cmd.AddCommand(a.lsCmd(), a.verifyCmd(), a.copyCmd(), a.compactCmd(nil))
	return cmd
}

func (a *app) lsCmd() *cobra.Command {
	var dir string
	var asJSON bool
	var only []string
	cmd := &cobra.Command{
		Use:   "ls [--dir DIR] [--topic T]...",
		Short: "List topics, partitions, offset and time ranges, files, snapshots and lost ranges",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("topic") && len(only) == 0 {
				// --topic "" of a script listed every topic, as no --topic does.
				return usagef("--topic is empty: name the topic to list (no --topic lists every topic)")
			}
			ctx := cmd.Context()
			d, err := a.openDir(ctx, dir)
			if err != nil {
				return err
			}
			topics, unread, err := d.TopicFolders(ctx)
			if err != nil {
				return err
			}
			damaged := 0
			// A topic's folder that is a link (or a file) is not read, and
			// named: never a topic silently missing.
			warnUnread := func(t string) bool {
				for _, u := range unread {
					if u.Topic == t {
						fmt.Fprintf(a.stderr, "warning: %s; run topicsnap catalog verify --dir %s\n", u, dir)
						damaged++
						return true
					}
				}
				return false
			}
			if len(only) > 0 {
				// The named topics' manifests and cuts only: what one
				// topic costs, whatever else the folder holds.
				var named []string
				for _, t := range slices.Compact(slices.Sorted(slices.Values(only))) {
					switch {
					case slices.Contains(topics, t):
						named = append(named, t)
					case !warnUnread(t):
						return &queries.UnknownTopicError{Topic: t, Dir: dir, Suggest: suggest.Closest(t, topics)}
					}
				}
				topics = named
			} else {
				for _, u := range unread {
					warnUnread(u.Topic)
				}
			}
			var all []*catalog.Manifest
			for _, t := range topics {
				tm, err := d.ReadTopic(ctx, t)
				if err != nil {
					return err
				}
				// In a bucket, a data file missing or cut short is found
				// by its listed size, as ReadTopic finds a folder's.
				if err := d.CheckListedSizes(ctx, tm); err != nil {
					return err
				}
				if len(tm.Manifests) == 0 && len(tm.Damaged) == 0 {
					// A folder a dump made and wrote nothing in: no topic
					// of the folder, as sql, check and serve say.
					if len(only) > 0 {
						return &queries.UnknownTopicError{Topic: t, Dir: dir, Unwritten: true}
					}
					fmt.Fprintf(a.stderr, "warning: %s\n", queries.UnwrittenTopic(t))
					continue
				}
				// A damaged manifest costs its partition, named here, not the topic.
				for _, me := range tm.Damaged {
					fmt.Fprintf(a.stderr, "warning: %s; run topicsnap catalog verify --dir %s\n", me, dir)
				}
				damaged += len(tm.Damaged)
				all = append(all, tm.Manifests...)
			}
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(all)
			}
			if len(all) == 0 && damaged == 0 {
				fmt.Fprintf(a.stdout, "%s holds no snapshots yet (run: topicsnap dump --dir %s ...)\n", dir, dir)
				return nil
			}
			// Data records and their times: from the manifests, except for
			// files with markers or open transactions, read with DuckDB, and
			// files whose oldest time is a record's -1 (Kafka's "no
			// timestamp") with times beside it: the entry cannot say the
			// oldest time.
			data := map[catalog.TopicPartition]queries.PartitionRecords{}
			var withTxn, openNotes []string
			for _, m := range all {
				for _, f := range m.Files {
					if f.ControlRecords > 0 || f.OpenTxnRecords > 0 || (f.MinTimestamp == -1 && f.MaxTimestamp != -1) {
						if !slices.Contains(withTxn, m.Topic) {
							withTxn = append(withTxn, m.Topic)
						}
						break
					}
				}
			}
			if len(withTxn) > 0 {
				local, err := a.localDir(cmd.Context(), dir, withTxn...)
				if err != nil {
					return err
				}
				eng, err := queries.Open(cmd.Context(), local, queries.Options{Lazy: true, Topics: withTxn})
				if err != nil {
					return err
				}
				defer eng.Close()
				for _, t := range withTxn {
					prs, err := eng.PartitionRecords(cmd.Context(), t)
					if err != nil {
						return fmt.Errorf("count the data records of %s: %w", t, err)
					}
					for _, pr := range prs {
						data[catalog.TopicPartition{Topic: t, Partition: pr.Partition}] = pr
						if pr.Open > 0 {
							// Counted as data, as the views do; said, for Kafka may yet abort them.
							openNotes = append(openNotes, fmt.Sprintf("note: %s partition %d: %d of its data records %s of a transaction still open at the last dump: Kafka may yet abort them (the next dump reads the marker)",
								t, pr.Partition, pr.Open, map[bool]string{true: "is", false: "are"}[pr.Open == 1]))
						}
					}
				}
			}
			cuts := map[catalog.TopicPartition]map[string]bool{}
			var snaps []*catalog.ClusterSnapshot
			if len(only) > 0 {
				snaps, err = d.ClusterSnapshotsOf(ctx, topics)
			} else {
				snaps, err = d.ClusterSnapshots(ctx)
			}
			if err != nil {
				// A damaged cut costs itself, named here, as the checks
				// read past it: not the listing of the whole folder.
				if !errors.Is(err, catalog.ErrBadManifest) && !errors.Is(err, catalog.ErrNewerFormat) {
					return err
				}
				for _, one := range unjoin(err) {
					fmt.Fprintf(a.stderr, "warning: %s; run topicsnap catalog verify --dir %s\n", one, dir)
				}
			}
			for _, s := range snaps {
				for _, p := range s.Partitions {
					tp := catalog.TopicPartition{Topic: s.Topic, Partition: p.Partition}
					if cuts[tp] == nil {
						cuts[tp] = map[string]bool{}
					}
					cuts[tp][s.ID] = true
				}
			}
			// A partition of an old topic of the name only (the topic
			// deleted and made again with fewer partitions, its files
			// superseded) is shown as what it is, and not counted.
			byTopic := map[string][]*catalog.Manifest{}
			for _, m := range all {
				byTopic[m.Topic] = append(byTopic[m.Topic], m)
			}
			old := map[catalog.TopicPartition]bool{}
			var notes []string
			for _, t := range topics {
				ps := queries.OldTopicPartitions(t, byTopic[t], snaps)
				if len(ps) == 0 {
					continue
				}
				var names []string
				var records int64
				for _, p := range ps {
					old[catalog.TopicPartition{Topic: t, Partition: p}] = true
					names = append(names, strconv.Itoa(int(p)))
				}
				for _, m := range byTopic[t] {
					if old[m.TP()] {
						for _, f := range m.Superseded {
							records += f.Records
						}
					}
				}
				which := "partition " + names[0] + " is"
				if len(names) > 1 {
					which = "partitions " + strings.Join(names, ", ") + " are"
				}
				notes = append(notes, fmt.Sprintf("note: %s has %s today; %s the old topic's (it was deleted and made again with fewer partitions): %s, history, in the view %q",
					t, count(len(byTopic[t])-len(ps), "partition", "partitions"), which, count(int(records), "stored record", "stored records"), t+"$superseded"))
			}
			// Offsets Kafka rewrote after they were dumped (a truncated
			// log, a topic made again) are said as the checks say them:
			// the table counts Kafka's current history only.
			for _, m := range all {
				if old[m.TP()] {
					continue
				}
				for _, rw := range m.Rewrites {
					notes = append(notes, rewriteNote(m.TP(), rw))
				}
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TOPIC\tPARTITION\tOFFSETS [FROM,UNTIL)\tDATA RECORDS\tMARKERS\tABORTED\tFIRST DATA TIME\tLAST DATA TIME\tFILES\tBYTES\tSNAPSHOTS\tLOST")
			for _, m := range all {
				offs, t0, t1 := "-", "-", "-"
				records, markers, aborted := m.Records(), int64(0), int64(0)
				if len(m.Files) > 0 {
					offs = fmt.Sprintf("[%d,%d)", m.Files[0].FirstOffset, max(m.NextOffset, m.Files[len(m.Files)-1].LastOffset+1))
					lo, hi := m.Files[0].MinTimestamp, m.Files[0].MaxTimestamp
					for _, f := range m.Files {
						lo, hi = min(lo, f.MinTimestamp), max(hi, f.MaxTimestamp)
					}
					if pr, ok := data[m.TP()]; ok {
						records, markers, aborted, lo, hi = pr.Records, pr.Markers, pr.Aborted, pr.FirstMs, pr.LastMs
					}
					if records > 0 {
						t0, t1 = msTime(lo), msTime(hi)
					}
				}
				lost := "0"
				if len(m.Lost) > 0 {
					var n int64
					for _, l := range m.Lost {
						n += l.To - l.From + 1
					}
					lost = fmt.Sprintf("%d ranges, %d offsets", len(m.Lost), n)
				}
				ids := map[string]bool{}
				for _, s := range m.Snapshots {
					ids[s.ID] = true
				}
				for id := range cuts[m.TP()] {
					ids[id] = true
				}
				part := strconv.Itoa(int(m.Partition))
				if old[m.TP()] {
					part += " (old topic's)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\n", m.Topic, part, offs, records, markers, aborted, t0, t1, len(m.Files), m.Bytes(), len(ids), lost)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, n := range append(notes, openNotes...) {
				fmt.Fprintln(a.stdout, n)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the manifests as JSON")
	cmd.Flags().StringSliceVar(&only, "topic", nil, "list this topic only (repeat or comma-separate for several); reads its manifests and cuts alone")
	return cmd
}

// rewriteNote is ls's note on one rewrite of tp's log.
func rewriteNote(tp catalog.TopicPartition, rw catalog.Rewrite) string {
	offs, were := fmt.Sprintf("offsets %d-%d (%s)", rw.First, rw.Last, count(int(rw.Len()), "offset", "offsets")), "were"
	if rw.Len() == 1 {
		offs, were = fmt.Sprintf("offset %d", rw.First), "was"
	}
	view := tp.Topic + "$superseded"
	if rw.Kind == catalog.RewriteRecreated {
		return fmt.Sprintf("note: %s partition %d: %s %s dumped from the topic before it was deleted and made again under its name (another topic id): the old records are kept in the view %q, not counted above (check gaps, check durability)",
			tp.Topic, tp.Partition, offs, were, view)
	}
	why := "its log was truncated, e.g. by an unclean leader election"
	if rw.Kind == catalog.RewriteEndBack {
		why = "its log's end went back below what was dumped"
	}
	return fmt.Sprintf("note: %s partition %d: %s %s rewritten by Kafka after being dumped (%s): Kafka no longer has the records dumped there; they are kept in the view %q, not counted above (check gaps, check durability)",
		tp.Topic, tp.Partition, offs, were, why, view)
}

// unjoin is the errors an errors.Join holds, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// count is "1 data file", "2 data files".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// verifyFound says what verify found, by kind ("1 data file damaged, 2
// cluster snapshots damaged"), and what to do about it: the fix of the
// kind when all are of one, else each line's own.
func verifyFound(problems []catalog.Problem) (found, hint string) {
	kinds := []struct {
		kind, one, many, hint string
	}{
		{catalog.KindDataFile, "data file damaged", "data files damaged",
			"put each data file named above back from a copy (a backup, or a copy made with topicsnap catalog copy), or remove its partition folder and dump the partition again while Kafka still has the offsets its line names"},
		{catalog.KindManifest, "manifest damaged", "manifests damaged",
			"put each manifest named above back from a backup, or remove its partition folder and dump the partition again while Kafka still has its offsets"},
		{catalog.KindCut, "cluster snapshot damaged", "cluster snapshots damaged",
			"put each cluster snapshot named above back from a backup, or move it out of the folder: a cut holds the cluster's state at one dump (offsets, consumer groups, configs), no record, and the checks judge without it"},
		{catalog.KindFolder, "folder not read (a link or a file)", "folders not read (links or files)",
			"replace each link named above with the folder it points to (move it back into the snapshot folder), or mount that folder at the link's name instead (mount --bind); links are not followed"},
		{catalog.KindStray, "folder named as a topic's that no dump wrote", "folders named as topics' that no dump wrote", catalog.BadNameFix},
		{catalog.KindSchema, "schema missing or damaged", "schemas missing or damaged",
			"dump again with the schema registry reachable (it fetches the schemas the folder lacks), or give --schema DIR with each schema named above"},
	}
	var parts []string
	for _, k := range kinds {
		n := 0
		for _, p := range problems {
			if p.Kind == k.kind {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, count(n, k.one, k.many))
			hint = k.hint
		}
	}
	if len(parts) != 1 {
		hint = "fix each problem as its line above says (in parentheses), then run topicsnap catalog verify --dir DIR again"
	}
	if len(parts) == 0 { // a kind this build does not name
		parts = []string{count(len(problems), "problem", "problems")}
	}
	return strings.Join(parts, ", "), hint
}

// msTime is a record's timestamp as ls shows it: as sql shows it (a Kafka
// timestamp keeps its milliseconds), before 1970 too (Kafka takes them);
// -1 is Kafka's "no timestamp", not a time.
func msTime(ms int64) string {
	if ms == -1 {
		return "-1 (none)"
	}
	return display.Time(time.UnixMilli(ms))
}

func (a *app) verifyCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "verify [--dir DIR]",
		Short: "Re-read every file's footer, row count, partitions and offsets against its manifest",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := a.openDir(cmd.Context(), dir)
			if err != nil {
				return err
			}
			r, err := d.VerifyAll(cmd.Context())
			if err != nil {
				return err
			}
			for _, p := range r.Problems {
				fmt.Fprintln(a.stdout, p.String())
			}
			for _, n := range r.Notes {
				fmt.Fprintln(a.stdout, "note: "+n)
			}
			checked := count(r.Files, "data file", "data files") + " and " + count(r.Cuts, "cluster snapshot", "cluster snapshots") + " checked"
			if len(r.Problems) > 0 {
				found, hint := verifyFound(r.Problems)
				fmt.Fprintf(a.stdout, "verify: %s; %s\n", checked, found)
				return exit.With(fmt.Errorf("verify %s: %s", dir, found), exit.BadFolder, hint)
			}
			fmt.Fprintf(a.stdout, "verify: %s, all match their manifests\n", checked)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	return cmd
}

// copyCmd copies a snapshot folder to a bucket or back (or folder to
// folder): what the manifests list, each file before the manifest that
// lists it, resumable, every file checked against the manifest's size.
func (a *app) copyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "copy SRC DST",
		Short: "Copy a snapshot folder to a bucket or back (s3://BUCKET/PREFIX or a folder), resumable",
		Long: `Copies what SRC's manifests list into DST: for each partition the files, then the
manifest, so DST never lists a file it does not hold whole; then the cluster
snapshots. A file DST already holds with the manifest's size (and, from a
bucket, the same ETag) is kept, so an interrupted copy resumes where it stopped.
Do not copy into a folder or prefix a dumper is writing.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			src, err := a.openDir(ctx, args[0])
			if err != nil {
				return err
			}
			cfg, err := a.s3Config(ctx, "")
			if err != nil {
				return err
			}
			if err := catalog.CheckCreateAt(ctx, args[1], cfg); err != nil {
				return err
			}
			dst, err := catalog.CreateAt(ctx, args[1], cfg)
			if err != nil {
				return err
			}
			start := time.Now()
			st, err := catalog.Copy(ctx, src, dst)
			fmt.Fprintf(a.stdout, "copied %d files (%s), kept %d already there, %d manifests, %d snapshots from %s to %s in %s\n",
				st.Files, units.Bytes(st.Bytes), st.Kept, st.Manifests, st.Snapshots, src.Path, dst.Path, time.Since(start).Round(time.Millisecond))
			if err != nil {
				return fmt.Errorf("copy %s to %s: %w", args[0], args[1], err)
			}
			return nil
		},
	}
	cmd.RunE = hinted(cmd.RunE, copyHints)
	return cmd
}
