// Command topicsnap snapshots Kafka topics to Parquet and answers questions
// about them. See the README for what it does and docs/ARCHITECTURE.md for
// how a command flows.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	raiseFirstGCGoal()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	if code, ok := serveWorker(ctx); ok {
		stop()
		os.Exit(code)
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
