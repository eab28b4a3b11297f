package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/queries"
)

// Exit codes, as ints for run: package exit declares them (and README's
// "Exit codes" lists them); these names are the command line's.
const (
	exitOK           = int(exit.OK)
	exitCheckFailed  = int(exit.CheckFailed)
	exitError        = int(exit.Error)
	exitUnreachable  = int(exit.Unreachable)
	exitUnknownTopic = int(exit.UnknownTopic)
	exitAuth         = int(exit.Auth)
	exitNotAllowed   = int(exit.NotAllowed)
	exitDisk         = int(exit.Disk)
	exitLocked       = int(exit.Locked)
	exitBadFolder    = int(exit.BadFolder)
	exitTLS          = int(exit.TLS)
	exitNoCatalog    = int(exit.NoCatalog)
	exitTarget       = int(exit.Target)
	exitBadInput     = int(exit.BadInput)
	exitInterrupted  = int(exit.Interrupted)
)

// app carries the streams and environment every command shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	isTTY          bool
	// progress, when set, receives a dump's progress instead of the
	// terminal's bars or the quiet default (tests set it).
	progress kafkaconn.Progress
	// bucket holds the --s3-* flags, for --dir s3://bucket/prefix.
	bucket bucketFlags
	// warned: the engine's problems already told (warnProblems).
	warned map[string]bool
}

// version is the release, set at build time with
// -ldflags "-X main.version=v1.2.3"; empty, the module's version is used.
var version = ""

// versionString is what --version prints after the name: the release (or
// the module version the go tool recorded), the VCS revision when known,
// and the Go version.
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok {
		v = info.Main.Version
	}
	if v == "" {
		v = "(devel)"
	}
	if ok {
		var rev, dirty string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = ", modified"
				}
			}
		}
		if rev != "" {
			v += fmt.Sprintf(" (commit %s%s)", rev[:min(12, len(rev))], dirty)
		}
	}
	return v + " " + runtime.Version()
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, isTTY: isTerminal(stdout)}
}

// errCheckFailed is returned by a check whose verdict is fail; it is not
// printed as an error (the verdict already was).
var errCheckFailed = exit.New(exit.CheckFailed, "check failed", "")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if strings.HasPrefix(err.Error(), "unknown command ") && !errors.As(err, new(usageError)) {
		err = usageError{err} // cobra's, for a word that names no command
	}
	path := root.CommandPath()
	if cmd != nil {
		path = cmd.CommandPath()
	}
	code, hint := classify(err, path)
	hint = fillHint(hint, cmd)
	if code == exitCheckFailed && errors.Is(err, errCheckFailed) {
		return code
	}
	if code == exitInterrupted {
		// Ctrl-C (or SIGTERM): say so, not Go's "context canceled".
		fmt.Fprintln(stderr, "interrupted")
	} else {
		fmt.Fprintf(stderr, "Error: %s\n", message(err))
	}
	if hint != "" {
		fmt.Fprintf(stderr, "Try: %s\n", hint)
	}
	return code
}

// usageError marks a mistake in the command line.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// ExitCode is exit.Error.
func (u usageError) ExitCode() exit.Code { return exit.Error }

// Hint is the failing command's --help.
func (u usageError) Hint() string { return exit.HelpHint }

// fillHint puts the command line's own --dir and --brokers into the
// commands a hint prints (written with DIR and HOST:PORT), so each runs as
// printed; a value the command line did not give stays a placeholder.
func fillHint(hint string, cmd *cobra.Command) string {
	if cmd == nil || hint == "" {
		return hint
	}
	if f := cmd.Flags().Lookup("dir"); f != nil && f.Value.String() != "" {
		hint = strings.ReplaceAll(hint, "--dir DIR", "--dir "+queries.ShellQuote(f.Value.String()))
	}
	if f := cmd.Flags().Lookup("brokers"); f != nil && f.Value.String() != "" {
		hint = strings.ReplaceAll(hint, "--bootstrap-server HOST:PORT", "--bootstrap-server "+queries.ShellQuote(f.Value.String()))
	}
	return hint
}

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// classify is the one place where an error becomes an exit code and a
// hint: the error says both (package exit); cmdPath ("topicsnap check")
// fills in a hint that names the command's --help.
func classify(err error, cmdPath string) (int, string) {
	code, hint := exit.Of(err)
	if hint == exit.HelpHint {
		hint = cmdPath + " --help"
	}
	return int(code), hint
}

// hinted gives a command's errors the hints only that command knows,
// where the kind's own would mislead (package exit).
func hinted(run func(*cobra.Command, []string) error, hints func(error) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := run(cmd, args); err != nil {
			return hints(err)
		}
		return nil
	}
}

// dumpHints: an interrupted dump resumes after its committed files; a
// --dir that is not a snapshot folder may be a new one.
func dumpHints(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return exit.With(err, exit.Interrupted, "run the same command again: finished files are committed and the dump resumes where it stopped")
	case errors.Is(err, catalog.ErrNoCatalog):
		return exit.With(err, exit.NoCatalog, "choose with --dir a new or empty folder, or a snapshot folder (one with a topicsnap.json)")
	}
	return err
}

// importHints: as a dump's, for what an import writes the same way.
func importHints(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return exit.With(err, exit.Interrupted, "run the same command again: finished files are committed and the import resumes where it stopped")
	case errors.Is(err, catalog.ErrNoCatalog):
		return exit.With(err, exit.NoCatalog, "choose with --dir a new or empty folder, or a snapshot folder (one with a topicsnap.json)")
	}
	return err
}

// restoreHints: an interrupted restore resumes after its committed
// transactions.
func restoreHints(err error) error {
	if errors.Is(err, context.Canceled) {
		return exit.With(err, exit.Interrupted, "run the same command again: committed transactions stay and the restore resumes after them")
	}
	return err
}

// compactHints: an interrupted compaction keeps the runs it committed.
func compactHints(err error) error {
	if errors.Is(err, context.Canceled) {
		return exit.With(err, exit.Interrupted, "run the same command again: merged runs are committed, and it goes on with the files it had not merged")
	}
	return err
}

// copyHints: an interrupted copy keeps the files it copied whole.
func copyHints(err error) error {
	if errors.Is(err, context.Canceled) {
		return exit.With(err, exit.Interrupted, "run the same command again: the files already copied whole are kept and the copy resumes after them")
	}
	return err
}

// message is an error's text as a user reads it: one line's worth,
// trimmed. The kinds' own words ("bad option") are not in it: package
// exit's Errorf keeps them out of the text.
func message(err error) string {
	return strings.TrimSpace(err.Error())
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "topicsnap",
		Short: "Snapshot Kafka topics to Parquet and ask them questions",
		Long: `topicsnap copies Kafka topic partitions to Parquet before retention deletes them,
keeps a catalog of what was copied and what Kafka had already deleted, and answers
questions about the copy: SQL, reconciliation checks, reports over HTTP.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("topicsnap {{.Version}}\n")
	// A flag given empty (--dir "", --addr "$ADDR" of an unset shell
	// variable) is a usage error, not a folder named "" that does not
	// exist (exit 11), nor the flag's default taken without a word
	// (serve --addr '' served on 127.0.0.1:8080, notebook run --out ''
	// wrote to stdout). No string flag means anything by "".
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		var err error
		cmd.Flags().Visit(func(f *pflag.Flag) {
			if err != nil || emptySaidByCommand[f.Name] == f.Value.Type() {
				return
			}
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				// --topic a,,b or --topic "$T" of a list flag: one name
				// empty is not "no name" (compact skipped a topic "").
				for _, v := range sv.GetSlice() {
					if strings.TrimSpace(v) == "" {
						err = usagef("--%s has an empty value: give each a value, or leave the flag out", f.Name)
						return
					}
				}
				return
			}
			if f.Value.Type() != "string" || strings.TrimSpace(f.Value.String()) != "" {
				return
			}
			if f.Name == "dir" || strings.HasSuffix(f.Name, "-dir") {
				err = usagef("--%s is empty: name a folder", f.Name)
				return
			}
			err = usagef("--%s is empty: give it a value, or leave the flag out for its default", f.Name)
		})
		return err
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.dumpCmd(), a.importCmd(), a.restoreCmd(), a.catalogCmd(), a.lsCmd())
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	a.addBucketFlags(root)
	usageArgs(root)
	return root
}

// emptySaidByCommand are the flags (name and type) whose commands refuse
// an empty value themselves, with a hint of their own: --topic "" of
// check, ls and restore (a list flag of dump and compact), sql -c "",
// notebook run --param "".
var emptySaidByCommand = map[string]string{"topic": "string", "to-topic": "string", "command": "string", "param": "stringArray"}

// groupRunE is the RunE of a command that only groups others (catalog,
// notebook): without it cobra prints the help and exits 0 for a
// subcommand that does not exist.
func groupRunE(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
	}
	return cmd.Help()
}

// usageArgs makes the positional-argument errors of c and its subcommands
// ("accepts 1 arg(s), received 0") usage errors.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// extraCommands are added by files that need cgo (DuckDB); see sql.go.
var extraCommands []func(*app) *cobra.Command

// defaultDir is --dir's default: $TOPICSNAP_DIR or ./snapshots.
func (a *app) defaultDir() string {
	if d := a.getenv("TOPICSNAP_DIR"); d != "" {
		return d
	}
	return "snapshots"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
