package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/notebooks"
	"github.com/topicsnap/topicsnap/queries"
)

func init() { extraCommands = append(extraCommands, (*app).notebookCmd) }

type notebookOptions struct {
	dir      string
	out      string
	params   []string
	unlocked bool
	timeout  time.Duration
}

// defaultCellTimeout bounds each cell of a notebook run locked: a
// notebook may come inside a folder handed over, and one cell of it (a
// recursive CTE without an end) ran until killed.
var defaultCellTimeout = time.Minute

// cellMemory is DuckDB's memory limit for a notebook run locked (what a
// query worker of serve may hold): one cell of a folder's notebook
// (len(list(n)) over a range of two billion) took 7.6 GB in 25 s.
const cellMemory = "2GiB"

func (a *app) notebookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "notebook", Short: "Run SQL notebooks (Markdown files whose sql blocks are cells)", RunE: groupRunE}
	o := &notebookOptions{}
	runCmd := &cobra.Command{
		Use:   "run FILE.md [--dir DIR] [--out FILE.html|FILE.md] [--param key=value ...]",
		Short: "Run a notebook's cells in order and render the result",
		Long: `run executes a notebook against a snapshot folder and renders it: HTML or
Markdown by --out's extension (Markdown on stdout without --out). A cell that fails
shows its error in place; the rest still run; the exit status is 1 if any cell failed.
FILE may be one of the shipped notebooks by name (see: topicsnap notebook ls).

A notebook is code someone wrote, and one may come inside a folder handed over: its
cells run as the server runs them, one read-only SELECT each, no file written or read
outside the snapshot folder (COPY, ATTACH, SET, read_csv('/etc/passwd') refused),
each within --query-timeout (1m) and 2 GiB of memory. --unlocked runs them as sql
does, for a notebook you wrote or trust.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runNotebook(cmd.Context(), args[0], o) },
	}
	runCmd.Flags().StringVar(&o.dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	runCmd.Flags().StringVar(&o.out, "out", "", "write the rendered notebook here (.html or .md)")
	runCmd.Flags().StringArrayVar(&o.params, "param", nil, "override a front-matter parameter, key=value (repeatable)")
	runCmd.Flags().BoolVar(&o.unlocked, "unlocked", false, "run the cells as sql does (writes, ATTACH, files outside the folder): only a notebook you trust")
	runCmd.Flags().DurationVar(&o.timeout, "query-timeout", defaultCellTimeout, "timeout of each cell (a cell past it shows so; the rest still run); not with --unlocked, which runs the cells as sql does")
	var lsDir string
	lsCmd := &cobra.Command{
		Use:   "ls [--dir DIR]",
		Short: "List the shipped notebooks and the data each needs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, e := range notebooks.ListShipped() {
				fmt.Fprintf(a.stdout, "%-40s %s\n", e.Name, e.Title)
				if e.Needs != "" {
					fmt.Fprintf(a.stdout, "%-40s needs %s\n", "", e.Needs)
				}
			}
			fmt.Fprintf(a.stdout, "run one: topicsnap notebook run NAME.md --dir %s\n", queries.ShellQuote(lsDir))
			return nil
		},
	}
	// The folder the notebooks would run on: accepted as run takes it, and
	// named in the command printed.
	lsCmd.Flags().StringVar(&lsDir, "dir", a.defaultDir(), "snapshot folder the notebooks would run on")
	cmd.AddCommand(runCmd, lsCmd)
	return cmd
}

// notebookEngine is how a notebook's cells run: locked as on the server
// (the same notebook gives the same cells whether run here or served, and
// a folder's notebook cannot write), each cell within o.timeout and
// cellMemory; --unlocked as sql runs a statement.
func notebookEngine(o *notebookOptions) queries.Options {
	if o.unlocked {
		return queries.Options{}
	}
	return queries.Options{Locked: true, Timeout: o.timeout, MemoryLimit: cellMemory}
}

func (a *app) runNotebook(ctx context.Context, file string, o *notebookOptions) error {
	if o.timeout <= 0 {
		return usagef("--query-timeout %s: give a duration of more than 0, such as 90s or 10m", o.timeout)
	}
	if o.out != "" {
		// Said before the cells run: a folder named as --out (or a file
		// in a folder that does not exist) failed after every cell had
		// run, with "rename /.tmp-tmp-390288150 /tmp: file exists".
		if st, err := os.Stat(o.out); err == nil && st.IsDir() {
			return usagef("--out %s is a folder: give a file in it, such as %s", o.out, filepath.Join(o.out, "notebook.html"))
		}
		if st, err := os.Stat(filepath.Dir(o.out)); err != nil || !st.IsDir() {
			return usagef("--out %s: the folder %s does not exist", o.out, filepath.Dir(o.out))
		}
	}
	params := map[string]string{}
	for _, p := range o.params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return usagef("--param %q: use key=value", p)
		}
		params[k] = v
	}
	nb, err := notebooks.Load(file)
	if os.IsNotExist(err) || (err != nil && !strings.Contains(file, string(filepath.Separator))) {
		if shipped, serr := notebooks.LoadShipped(filepath.Base(file)); serr == nil {
			nb, err = shipped, nil
		}
	}
	if err != nil {
		return usageError{fmt.Errorf("load notebook %s: %w", file, err)}
	}
	if err := nb.CheckParams(params); err != nil {
		return usageError{err}
	}
	local, err := a.localDir(ctx, o.dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	opts := notebookEngine(o)
	opts.FolderName = o.dir
	eng, err := queries.Open(ctx, local, opts)
	if err != nil {
		return fmt.Errorf("open %s: %w", o.dir, err)
	}
	defer eng.Close()
	a.warnProblems(eng)
	res := notebooks.Run(ctx, eng, nb, params)
	a.warnProblems(eng) // what building the views its cells name found
	if ctx.Err() != nil {
		return ctx.Err()
	}
	w := a.stdout
	html := false
	if o.out != "" {
		html = strings.EqualFold(filepath.Ext(o.out), ".html")
		err := catalog.WriteFileAtomic(o.out, func(fw io.Writer) error {
			bw := bufio.NewWriter(fw)
			if html {
				err = notebooks.RenderHTML(bw, res)
			} else {
				err = notebooks.RenderMarkdown(bw, res)
			}
			if err != nil {
				return err
			}
			return bw.Flush()
		})
		if err != nil {
			return fmt.Errorf("write %s: %w", o.out, err)
		}
		fmt.Fprintf(a.stdout, "wrote %s: %d cells, %d failed\n", o.out, len(res.Cells), res.Failed())
	} else if err := notebooks.RenderMarkdown(w, res); err != nil {
		return err
	}
	for i, c := range res.Cells {
		for _, n := range c.Notes {
			fmt.Fprintf(a.stderr, "warning: cell %d: %s\n", i+1, n)
		}
	}
	if res.Failed() > 0 {
		fmt.Fprintf(a.stderr, "%d of %d cells failed (shown in place)\n", res.Failed(), len(res.Cells))
		return errCheckFailed
	}
	return nil
}
