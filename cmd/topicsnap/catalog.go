package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "catalog", Short: "Inspect and verify a snapshot folder", RunE: groupRunE}
	cmd.AddCommand(a.lsCmd(), a.verifyCmd())
	return cmd
}

func (a *app) lsCmd() *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [--dir DIR]",
		Short: "List topics, partitions, offset and time ranges, files, snapshots and lost ranges",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := a.openDir(cmd.Context(), dir)
			if err != nil {
				return err
			}
			topics, err := d.Topics()
			if err != nil {
				return err
			}
			var all []*catalog.Manifest
			damaged := 0
			for _, t := range topics {
				tm, err := d.ReadTopic(t)
				if err != nil {
					return err
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
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TOPIC\tPARTITION\tOFFSETS\tRECORDS\tFIRST TIME\tLAST TIME\tFILES\tBYTES\tSNAPSHOTS\tLOST")
			for _, m := range all {
				offs, t0, t1 := "-", "-", "-"
				if len(m.Files) > 0 {
					offs = fmt.Sprintf("%d-%d", m.Files[0].FirstOffset, m.Files[len(m.Files)-1].LastOffset)
					lo, hi := m.Files[0].MinTimestamp, m.Files[0].MaxTimestamp
					for _, f := range m.Files {
						lo, hi = min(lo, f.MinTimestamp), max(hi, f.MaxTimestamp)
					}
					t0, t1 = msTime(lo), msTime(hi)
				}
				lost := "0"
				if len(m.Lost) > 0 {
					var n int64
					for _, l := range m.Lost {
						n += l.To - l.From + 1
					}
					lost = fmt.Sprintf("%d ranges, %d offsets", len(m.Lost), n)
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\n", m.Topic, m.Partition, offs, m.Records(), t0, t1, len(m.Files), m.Bytes(), len(m.Snapshots), lost)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&dir, "dir", a.defaultDir(), "snapshot folder")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the manifests as JSON")
	return cmd
}

func msTime(ms int64) string {
	if ms < 0 {
		return fmt.Sprint(ms)
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

func (a *app) verifyCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "verify [--dir DIR]",
		Short: "Re-read every file's footer and row count against its manifest",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := a.openDir(cmd.Context(), dir)
			if err != nil {
				return err
			}
			files, problems, err := d.Verify()
			if err != nil {
				return err
			}
			for _, p := range problems {
				fmt.Fprintln(a.stdout, p.String())
			}
			if len(problems) > 0 {
				fmt.Fprintf(a.stdout, "verify: %d files checked, %d problems\n", files, len(problems))
				return fmt.Errorf("verify %s: %d problems: %w", dir, len(problems), catalog.ErrBadManifest)
			}
			fmt.Fprintf(a.stdout, "verify: %d files checked, all match their manifests\n", files)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", a.defaultDir(), "snapshot folder")
	return cmd
}
