package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/topicsnap/topicsnap/server"
)

func init() { extraCommands = append(extraCommands, (*app).serveCmd) }

// maxWorkers bounds --workers: each worker is a process holding its own
// engine (78-101 MiB at rest, up to --worker-memory busy); --workers 100000
// started processes until the host ran out of memory.
const maxWorkers = 64

// workerEnv, set to 1, makes this program one of serve's query workers
// (server.ServeWorker): serve starts its workers as copies of itself with
// it set. It is internal, and an environment variable rather than a
// subcommand so that a test binary of this package, started the same way,
// is a worker too (its TestMain asks serveWorker first, as main does).
const workerEnv = "TOPICSNAP_INTERNAL_SERVE_WORKER"

// serveWorker runs this process as a query worker when workerEnv says so,
// and returns its exit code and true; otherwise 0 and false. It must run
// from main (or TestMain), never from an init function: DuckDB calls the
// engine's Go functions (json_bound, kafka_offsets_record, ...) from its
// own threads, and Go holds such calls until package initialization is
// done, so a worker serving from init waits forever on any statement that
// runs one of them on more than the calling thread.
//
// ctx is main's: a Ctrl-C at the terminal reaches the whole process
// group, so the worker's running statement is interrupted through it, as
// in every other command, and the worker ends.
func serveWorker(ctx context.Context) (int, bool) {
	if os.Getenv(workerEnv) != "1" {
		return 0, false
	}
	os.Unsetenv(workerEnv)
	err := server.ServeWorker(ctx, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		return 1, true
	}
	return 0, true
}

// workerEnviron is a query worker's environment: this process's, marked
// as a worker's, without the token, which a worker has no use for and
// which a statement should find nowhere near it.
func workerEnviron(env []string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TOPICSNAP_TOKEN=") && !strings.HasPrefix(kv, workerEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, workerEnv+"=1")
}

type serveOptions struct {
	server.Options
	sql       string
	access    bool
	workerMem string
}

func (a *app) serveCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [--dir DIR] [--addr 127.0.0.1:8080] [--token T] [--tls-cert FILE --tls-key FILE]",
		Short: "Serve reports, a JSON API and read-only SQL over HTTP",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Token == "" {
				o.Token = a.getenv("TOPICSNAP_TOKEN")
			}
			switch o.sql {
			case "auto":
			case "on", "off":
				on := o.sql == "on"
				o.SQL = &on
			default:
				return usagef("--sql %q: use auto (on for loopback binds only), on or off", o.sql)
			}
			if (o.TLSCert == "") != (o.TLSKey == "") {
				return usagef("--tls-cert and --tls-key go together")
			}
			// A --notebooks folder that is not there (a typo) served
			// without it and said nothing: its notebooks were simply
			// missing from the list.
			for _, d := range o.NotebookDirs {
				if st, err := os.Stat(d); err != nil || !st.IsDir() {
					return usagef("--notebooks %q: not a folder (give a folder of *.md notebooks)", d)
				}
			}
			if o.Workers < 0 || o.Workers > maxWorkers {
				return usagef("--workers %d: use 1 to %d, or 0 to run queries in the serve process", o.Workers, maxWorkers)
			}
			// The server reads zero as its default: a 0s or negative flag
			// would silently become 10s (or 10,000 rows).
			if o.QueryTimeout <= 0 {
				return usagef("--query-timeout %s: give a duration of more than 0, such as 30s", o.QueryTimeout)
			}
			if o.MaxRows < 1 {
				return usagef("--max-rows %d: give 1 or more", o.MaxRows)
			}
			mem, err := parseBytes(o.workerMem)
			if errors.Is(err, strconv.ErrRange) {
				return usagef("--worker-memory %q: larger than any machine's memory; give a size such as 2GiB", o.workerMem)
			}
			if err != nil || mem < 256<<20 {
				return usagef("--worker-memory %q: give a size of at least 256MiB, such as 2GiB", o.workerMem)
			}
			o.WorkerMemory = mem
			if o.Workers > 0 {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find this program to start its query workers: %w", err)
				}
				o.WorkerCommand, o.WorkerEnv = []string{exe}, workerEnviron(os.Environ())
			}
			if o.access {
				o.Logger = a.stderr
			}
			for _, w := range o.Warnings() {
				fmt.Fprintf(a.stderr, "Warning: %s\n", w)
			}
			scheme := "http"
			if o.TLSCert != "" {
				scheme = "https"
			}
			// A bucket is served from the local cache of its files, as of now.
			served := o.Dir
			local, err := a.localDir(cmd.Context(), o.Dir)
			if err != nil {
				return fmt.Errorf("open %s: %w", o.Dir, err)
			}
			o.Dir = local
			err = server.Run(cmd.Context(), o.Options, func(addr string) {
				fmt.Fprintf(a.stdout, "serving %s at %s://%s\n", served, scheme, addr)
			})
			if cmd.Context().Err() != nil {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", a.defaultDir(), "snapshot folder, or s3://BUCKET/PREFIX")
	cmd.Flags().StringVar(&o.Addr, "addr", "127.0.0.1:8080", "listen address; off loopback --token is required")
	cmd.Flags().StringVar(&o.Token, "token", "", "bearer token required on every request (TOPICSNAP_TOKEN)")
	cmd.Flags().StringVar(&o.sql, "sql", "auto", "ad-hoc SQL: auto (on for loopback binds only), on or off")
	cmd.Flags().DurationVar(&o.QueryTimeout, "query-timeout", 10*time.Second, "timeout of each query and check")
	cmd.Flags().IntVar(&o.MaxRows, "max-rows", 10000, "rows /api/sql returns at most")
	cmd.Flags().StringArrayVar(&o.NotebookDirs, "notebooks", nil, "folder of *.md notebooks to offer (repeatable)")
	cmd.Flags().BoolVar(&o.access, "access-log", false, "log one line per request on stderr")
	cmd.Flags().StringVar(&o.TLSCert, "tls-cert", "", "PEM certificate: serve HTTPS (with --tls-key)")
	cmd.Flags().StringVar(&o.TLSKey, "tls-key", "", "PEM private key of --tls-cert")
	cmd.Flags().IntVar(&o.Workers, "workers", 2, "query worker processes; a crash or a runaway statement costs one request (0: queries run in the serve process)")
	cmd.Flags().StringVar(&o.workerMem, "worker-memory", "2GiB", "resident memory a query worker may hold; a request past it is stopped with 503")
	return cmd
}
