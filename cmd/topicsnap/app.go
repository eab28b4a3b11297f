package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/queries"
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
	exitInterrupted  = 130
)

// app carries the streams and environment every command shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	isTTY          bool
}

// errCheckFailed is returned by a check whose verdict is fail; it is not
// printed as an error (the verdict already was).
var errCheckFailed = errors.New("check failed")

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, isTTY: isTerminal(stdout)}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code, hint := classify(err)
	if code == exitCheckFailed && errors.Is(err, errCheckFailed) {
		return code
	}
	fmt.Fprintf(stderr, "Error: %s\n", message(err))
	if hint != "" {
		fmt.Fprintf(stderr, "Try: %s\n", hint)
	}
	return code
}

// usageError marks a mistake in the command line.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// classify is the one place where errors become exit codes and hints.
func classify(err error) (int, string) {
	var ue usageError
	var ae *dump.AuthzError
	switch {
	case errors.Is(err, errCheckFailed):
		return exitCheckFailed, ""
	case errors.As(err, new(*queries.SQLError)):
		return exitError, ""
	case errors.Is(err, context.Canceled):
		return exitInterrupted, "run the same command again: finished files are committed and the dump resumes where it stopped"
	case errors.Is(err, dump.ErrTLSMismatch):
		return exitTLS, "set security.protocol in --config to what the listener speaks: SSL (or SASL_SSL) for a TLS listener, PLAINTEXT (or SASL_PLAINTEXT) otherwise"
	case errors.Is(err, dump.ErrTLS):
		return exitTLS, "set ssl.ca.location in --config to the PEM file of the CA that signed the broker's certificate"
	case errors.Is(err, dump.ErrUnreachable):
		return exitUnreachable, "check --brokers (HOST:PORT of a broker's listener) and that the broker runs and is reachable from here"
	case errors.Is(err, dump.ErrUnknownTopic):
		return exitUnknownTopic, "list the cluster's topics (kafka-topics --list) and pass one with --topic"
	case errors.Is(err, dump.ErrAuthentication):
		return exitAuth, "check sasl.mechanism, sasl.username and sasl.password in --config"
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
	case errors.Is(err, catalog.ErrLocked):
		return exitLocked, "wait for the other dump to finish, or give each dumper its own --partitions"
	case errors.Is(err, catalog.ErrNewerFormat):
		return exitBadFolder, "use a newer topicsnap build for this folder"
	case errors.Is(err, catalog.ErrBadManifest):
		return exitBadFolder, "run: topicsnap catalog verify --dir DIR"
	case errors.Is(err, dump.ErrBadConfig), errors.Is(err, dump.ErrBadOption), errors.As(err, &ue):
		return exitError, "see topicsnap help for the command's options"
	}
	return exitError, ""
}

// message strips what a user cannot act on from an error's text.
func message(err error) string {
	s := err.Error()
	return strings.TrimSpace(s)
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
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.dumpCmd(), a.catalogCmd(), a.lsCmd())
	for _, extra := range extraCommands {
		root.AddCommand(extra(a))
	}
	return root
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
