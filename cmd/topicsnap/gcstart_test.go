package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestFirstGCGoalIsRaisedOnce: GOGC is firstGCGoalPercent until the first
// collection and the environment's from then on; a GOGC already as high,
// or off, is left as it is.
func TestFirstGCGoalIsRaisedOnce(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	for _, tc := range []struct {
		env, before, after int
	}{
		{100, firstGCGoalPercent, 100},
		{50, firstGCGoalPercent, 50},
		{800, 800, 800},
		{-1, -1, -1}, // GOGC=off
	} {
		debug.SetGCPercent(tc.env)
		raiseFirstGCGoal()
		if got := gcPercent(); got != tc.before {
			t.Errorf("GOGC %d: %d before the first collection, want %d", tc.env, got, tc.before)
		}
		runtime.GC()
		// The finalizer runs on its own goroutine after the collection.
		deadline := time.Now().Add(5 * time.Second)
		for gcPercent() != tc.after && time.Now().Before(deadline) {
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
		if got := gcPercent(); got != tc.after {
			t.Errorf("GOGC %d: %d after the first collection, want %d", tc.env, got, tc.after)
		}
	}
}
