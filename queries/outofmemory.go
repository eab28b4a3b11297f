package queries

import (
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// ErrOutOfMemory is a query that needed more memory than the engine may
// hold. DuckDB's own advice (SET threads, SET memory_limit,
// SET preserve_insertion_order) is not one a user can follow: no surface of
// topicsnap runs a SET (the guard takes one SELECT); the hint is what they
// can do instead.
var ErrOutOfMemory = exit.New(exit.Error, "query ran out of memory",
	"make the query smaller: fewer rows (WHERE, LIMIT), fewer or narrower columns, aggregate (count, sum) rather than collect every row into one list or string")

// ServeMemoryHint is what a server adds to ErrOutOfMemory's hint: the
// memory a query may hold there is the operator's to give.
const ServeMemoryHint = "or ask the server's operator for more memory per query (topicsnap serve --worker-memory; DuckDB gets half of it)"

// OutOfMemoryError is DuckDB's out-of-memory error (its error type, not
// its text), reduced to what it failed to allocate, with ErrOutOfMemory's
// hint. errors.Is(err, ErrOutOfMemory) holds.
type OutOfMemoryError struct {
	// Msg is DuckDB's first line without its type ("failed to allocate
	// data of size 16.0 MiB (1009.7 MiB/1.0 GiB used)").
	Msg string
	Err error
}

func (e *OutOfMemoryError) Error() string {
	return ErrOutOfMemory.Error() + ": " + e.Msg
}
func (e *OutOfMemoryError) Unwrap() []error     { return []error{ErrOutOfMemory, e.Err} }
func (e *OutOfMemoryError) ExitCode() exit.Code { return ErrOutOfMemory.ExitCode() }
func (e *OutOfMemoryError) Hint() string        { return ErrOutOfMemory.Hint() }

// outOfMemory is err as an OutOfMemoryError when DuckDB classed it as out
// of memory (duckdb.ErrorTypeOutOfMemory), else nil.
func outOfMemory(err error) *OutOfMemoryError {
	var de *duckdb.Error
	if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeOutOfMemory {
		return nil
	}
	msg := strings.TrimSpace(de.Msg)
	msg, _, _ = strings.Cut(msg, "\n") // "Possible solutions: * … (SET threads=X)" follows
	msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, "duckdb: "), "Out of Memory Error: "))
	return &OutOfMemoryError{Msg: msg, Err: err}
}
