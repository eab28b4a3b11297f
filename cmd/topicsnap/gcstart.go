package main

import (
	"runtime"
	"runtime/debug"
)

// firstGCGoalPercent is GOGC until the first collection. Package init (the
// protobuf descriptors of Spark Connect and protocompile, the AWS SDK's
// endpoint tables, goldmark) allocates ~3 MiB and a one-shot command ~0.5
// MiB more before its first answer: just past the runtime's first goal of
// 4 MiB, so every `sql -c`, check and notebook cell started with a
// collection (~1.5 ms of CPU while DuckDB opens) that reclaimed ~1 MiB.
// With 400 the first goal is 16 MiB; from the first collection on, the
// GOGC of the environment (default 100) holds again.
const firstGCGoalPercent = 400

// raiseFirstGCGoal sets GOGC to firstGCGoalPercent until the first
// collection, then back to what it was. With GOGC=off in the environment
// it does nothing.
func raiseFirstGCGoal() {
	was := debug.SetGCPercent(firstGCGoalPercent)
	if was < 0 || was >= firstGCGoalPercent {
		debug.SetGCPercent(was)
		return
	}
	// A finalizer runs after the collection that found its object
	// unreachable: the first one, for an object nothing refers to.
	runtime.SetFinalizer(new([16]byte), func(*[16]byte) { debug.SetGCPercent(was) })
}
