package restore

import (
	"context"
	"sync"
)

// fileGate keeps a transaction from committing part of a data file not
// yet read to its end. A file's rows are checked as they are read, so a
// file that turns out to contradict its manifest (catalog.RowError) may
// already have records in the open transaction: the restore then aborts
// it, and nothing of that file reaches a read_committed consumer, nor
// does the progress pass its start. A commit that is due shuts the gate
// (so do --txn-records records handed over since it last opened, so that
// readers running ahead do not fill a transaction with whole files):
// readers finish the files they are in, enter no other, and the commit
// happens when the producer has taken the last batch of every open file;
// then the gate opens again. At most maxOpenFiles files of a share, of
// at most maxOpenRows rows in all (or one file of more), are open at once,
// so a transaction holds at most that much past --txn-records or
// --txn-interval: with the dump's 512k-row files, seconds of producing,
// well within the 60 s transaction timeout.
type fileGate struct {
	mu       sync.Mutex
	open     int           // files entered whose last batch the producer has not taken
	openRows int64         // their rows
	shut     bool          // a commit is due: no reader enters another file
	limit    int64         // records handed over that shut the gate too (--txn-records)
	handed   int64         // records handed over since the gate last opened
	changed  chan struct{} // closed, and replaced, when a reader may get in
}

// maxOpenFiles and maxOpenRows bound what a share reads at once: enough
// readers to keep a producer fed, few enough to bound a transaction.
const (
	maxOpenFiles = 8
	maxOpenRows  = 4 << 20
)

func newFileGate(txnRecords int) *fileGate {
	return &fileGate{limit: int64(txnRecords), changed: make(chan struct{})}
}

// enter waits while the gate is shut, or --txn-records records were
// handed over since it opened, or maxOpenFiles files are open, or a file
// of rows more would pass maxOpenRows (a larger file waits until none is
// open), then counts the file as open. A nil gate lets every
// file in.
func (g *fileGate) enter(ctx context.Context, rows int64) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		if !g.shut && g.handed < g.limit && g.open < maxOpenFiles && (g.open == 0 || g.openRows+rows <= maxOpenRows) {
			g.open++
			g.openRows += rows
			g.mu.Unlock()
			return nil
		}
		ch := g.changed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// wake lets the waiting readers try again; g.mu is held.
func (g *fileGate) wake() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// hand counts n records a reader handed over.
func (g *fileGate) hand(n int) {
	g.mu.Lock()
	g.handed += int64(n)
	g.mu.Unlock()
}

// done: the producer took the last batch of an open file of rows.
func (g *fileGate) done(rows int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open--
	g.openRows -= rows
	g.wake()
}

// shutIdle shuts the gate and reports whether no file is open.
func (g *fileGate) shutIdle() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut = true
	return g.open == 0
}

// openAgain opens the gate after a commit and lets the waiting readers
// in.
func (g *fileGate) openAgain() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut, g.handed = false, 0
	g.wake()
}
