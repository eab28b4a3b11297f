package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/queries/spark"
	"github.com/topicsnap/topicsnap/schemas"
)

// Exit codes. They are part of the contract: scripts branch on them.
const (
	exitOK           = 0
	exitCheckFailed  = 1
	exitError        = 2 // usage or runtime error
	exitUnreachable  = 3
	exitUnknownTopic = 4
	exitAuth         = 5
	exitNotAllowed   = 6
	exitDisk         = 7 // folder not writable, disk full
	exitLocked       = 8
	exitBadFolder    = 9 // corrupt manifest, newer format
	exitTLS          = 10
	exitNoCatalog    = 11 // --dir is missing, not a folder, or not a snapshot folder
	exitTarget       = 12 // restore: the target topic has fewer partitions than the source, or another source's progress
	exitInterrupted  = 130
)

// app carries the streams and environment every command shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	isTTY          bool
	// progress, when set, receives a dump's progress instead of the
	// terminal's bars or the quiet default (tests set it).
	progress dump.Progress
	// bucket holds the --s3-* flags, for --dir s3://bucket/prefix.
	bucket bucketFlags
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
var errCheckFailed = errors.New("check failed")

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

// classify is the one place where errors become exit codes and hints.
// cmdPath is the command that failed ("topicsnap check"), for usage hints.
func classify(err error, cmdPath string) (int, string) {
	var ue usageError
	var ae *dump.AuthzError
	var ce *dump.ConfigError
	var se *queries.SQLError
	var ge *queries.UnknownGroupError
	var te *dump.TargetError
	switch {
	case errors.Is(err, errCheckFailed):
		return exitCheckFailed, ""
	case errors.As(err, &se) && se.UnknownTable:
		return exitUnknownTopic, se.Hint
	case errors.As(err, &se):
		return exitError, se.Hint
	case errors.Is(err, queries.ErrUnknownTopic):
		return exitUnknownTopic, "topicsnap ls --dir DIR (lists the topics the snapshot folder holds)"
	case errors.As(err, &ge):
		return exitUnknownTopic, fmt.Sprintf("topicsnap check lag --dir %s --topic %s (lists the groups that committed offsets on the topic)",
			queries.ShellQuote(ge.Dir), queries.ShellQuote(ge.Topic))
	case errors.As(err, new(*spark.Error)):
		return exitError, ""
	case errors.Is(err, spark.ErrUnreachable):
		return exitUnreachable, "start a Spark Connect server that sees this folder at the same path (scripts/spark.sh start runs one on this machine) and pass its address with --spark-remote sc://HOST:PORT"
	case errors.Is(err, queries.ErrNotOnEngine):
		return exitError, "run the check on DuckDB (without --engine spark)"
	case errors.Is(err, context.Canceled) && cmdPath == "topicsnap restore":
		return exitInterrupted, "run the same command again: committed transactions stay and the restore resumes after them"
	case errors.Is(err, context.Canceled):
		return exitInterrupted, "run the same command again: finished files are committed and the dump resumes where it stopped"
	case errors.As(err, &te):
		return exitTarget, fmt.Sprintf("restore into a new topic with --to-topic (it is created with the source's partition count), or add partitions to the target: kafka-topics.sh --bootstrap-server HOST:PORT --alter --topic %s --partitions %d",
			queries.ShellQuote(te.Target), te.Needs)
	case errors.Is(err, dump.ErrTarget):
		return exitTarget, "restore into another topic with --to-topic"
	case errors.Is(err, dump.ErrFenced):
		return exitLocked, "another restore into the same topic took over; let it finish, or run this one again to take over (it resumes from the committed progress)"
	case errors.Is(err, dump.ErrNotInCatalog):
		return exitUnknownTopic, "topicsnap ls --dir DIR (lists the topics the snapshot folder holds)"
	case errors.Is(err, schemas.ErrRegistryTLS):
		return exitTLS, "set schema.registry.ssl.truststore.location in --config (or --schema-registry-ca, or TOPICSNAP_SCHEMA_REGISTRY_CA) to the PEM file of the CA that signed the registry's certificate, and use https:// only where the registry serves TLS"
	case errors.Is(err, dump.ErrTLSMismatch):
		return exitTLS, "set security.protocol in --config to what the listener speaks: SSL (or SASL_SSL) for a TLS listener, PLAINTEXT (or SASL_PLAINTEXT) otherwise"
	case errors.Is(err, dump.ErrTLS):
		return exitTLS, "set ssl.ca.location in --config to the PEM file of the CA that signed the broker's certificate"
	case errors.Is(err, dump.ErrUnreachable):
		return exitUnreachable, "check --brokers (HOST:PORT of a broker's listener) and that the broker runs and is reachable from here"
	case errors.Is(err, dump.ErrUnknownTopic):
		return exitUnknownTopic, "list the cluster's topics (kafka-topics --list) and pass one with --topic"
	case errors.Is(err, dump.ErrSASLMismatch):
		return exitAuth, "set security.protocol in --config to what the listener speaks: PLAINTEXT (or SSL) for a listener without SASL; " +
			"or point --brokers at the port of the broker's SASL listener"
	case errors.Is(err, dump.ErrSASLRequired):
		return exitAuth, "set security.protocol=SASL_PLAINTEXT (SASL_SSL over TLS), sasl.mechanism, sasl.username and sasl.password in --config; " +
			"or point --brokers at the port of the broker's PLAINTEXT listener"
	case errors.Is(err, dump.ErrAuthentication):
		return exitAuth, "check sasl.mechanism, sasl.username and sasl.password in --config"
	case errors.As(err, &ae) && cmdPath == "topicsnap restore":
		return exitNotAllowed, fmt.Sprintf("ask the cluster's operator for %[3]s on topic %[2]s for %[1]s (CREATE too when the topic does not exist), "+
			"WRITE and DESCRIBE on transactional ids %[4]s (or the prefix %[5]s) and READ on group %[5]s",
			ae.Principal, ae.Topic, ae.Ops, strings.Join(dump.RestoreTxnIDs(ae.Topic), " and "), dump.RestoreID(ae.Topic))
	case errors.As(err, &ae):
		return exitNotAllowed, fmt.Sprintf("ask the cluster's operator for READ and DESCRIBE on topic %[2]s for %[1]s "+
			"(kafka-acls.sh --bootstrap-server HOST:PORT --add --allow-principal %[1]s --operation Read --operation Describe --topic %[2]s), "+
			"and DESCRIBE on the cluster to record every consumer group", ae.Principal, ae.Topic)
	case errors.Is(err, dump.ErrAuthorization):
		return exitNotAllowed, "grant the principal Describe and Read on the topic (and Describe on the cluster and groups)"
	case errors.Is(err, catalog.ErrDiskFull):
		return exitDisk, "free space in the snapshot folder, then run the same command: it resumes from the last committed file"
	case errors.Is(err, catalog.ErrNotWritable):
		return exitDisk, "choose with --dir a folder you can write (not on a read-only mount, not under a file), or fix its permissions"
	case errors.Is(err, catalog.ErrDenied):
		return exitAuth, "check the AWS credentials (AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, ~/.aws/credentials) and that their policy grants what README's \"Snapshots in a bucket\" lists"
	case errors.Is(err, catalog.ErrConflict):
		return exitLocked, "another dumper committed this partition first; give each dumper its own --partitions, then see what is committed: topicsnap ls --dir DIR"
	case errors.Is(err, catalog.ErrLocked):
		return exitLocked, "wait for the other dump to finish, or give each dumper its own --partitions"
	case errors.Is(err, catalog.ErrNewerFormat):
		return exitBadFolder, "use a newer topicsnap build for this folder"
	case errors.Is(err, catalog.ErrBadRows):
		return exitBadFolder, "run topicsnap catalog verify --dir DIR (lists every damaged file); put the file back from a backup, or remove its partition folder and dump the partition again while Kafka still has its offsets, then run the same restore again (it resumes after the committed progress)"
	case errors.Is(err, catalog.ErrBadDataFile):
		return exitBadFolder, "put the file back from a backup (a regular file, not a FIFO, a device or a link out of the folder), or remove its partition folder and dump the partition again while Kafka still has its offsets; topicsnap catalog verify --dir DIR (lists every damaged file)"
	case errors.Is(err, catalog.ErrBadManifest):
		return exitBadFolder, "run: topicsnap catalog verify --dir DIR"
	case errors.Is(err, catalog.ErrNoCatalog) && cmdPath == "topicsnap dump":
		return exitNoCatalog, "choose with --dir a new or empty folder, or a snapshot folder (one with a topicsnap.json)"
	case errors.Is(err, catalog.ErrNoCatalog):
		return exitNoCatalog, "point --dir (or TOPICSNAP_DIR) at a snapshot folder, or make one: topicsnap dump --brokers HOST:PORT --topic NAME --dir DIR"
	case errors.As(err, &ce) && ce.Fix != "":
		return exitError, ce.Fix
	case errors.Is(err, dump.ErrBadConfig), errors.Is(err, dump.ErrBadOption), errors.As(err, &ue):
		return exitError, cmdPath + " --help"
	}
	return exitError, ""
}

// internalPrefixes are the words of sentinel errors and of wrapping that
// name a kind for the code, not for the user ("bad check: unknown check
// ..."); message drops them.
var internalPrefixes = []string{
	"run query: ",
	queries.ErrBadCheck.Error() + ": ",
	dump.ErrBadOption.Error() + ": ",
}

// message strips what a user cannot act on from an error's text.
func message(err error) string {
	s := strings.TrimSpace(err.Error())
	for _, p := range internalPrefixes {
		s = strings.TrimPrefix(s, p)
		s = strings.ReplaceAll(s, ": "+p, ": ")
	}
	return s
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.dumpCmd(), a.restoreCmd(), a.catalogCmd(), a.lsCmd())
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	a.addBucketFlags(root)
	usageArgs(root)
	return root
}

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
