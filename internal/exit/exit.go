// Package exit gives an error what a user sees of it: the process's exit
// code and a "Try:" hint naming the fix. The packages that know a failure
// (dump, catalog, queries, schemas, spark) declare it here, beside the
// error itself; the command line reads it with one call, Of, and prints
// it in one place. Nothing matches an error's text.
//
// A kind of failure compared with errors.Is is a *Sentinel:
//
//	var ErrLocked = exit.New(exit.Locked, "partition is locked by another dumper",
//		"wait for the other dump to finish, or give each dumper its own --partitions")
//
// A failure with fields of its own (who was refused what) implements
// Coded itself and builds its hint from them. Wrapping with fmt.Errorf's
// %w keeps both: Of finds the outermost error of the chain that carries a
// code.
package exit

import (
	"context"
	"errors"
	"fmt"
)

// Code is the process's exit status. README's "Exit codes" lists them.
type Code int

// The exit codes. Their numbers are a contract with scripts: never
// renumber one.
const (
	OK           Code = 0
	CheckFailed  Code = 1   // a check found a problem
	Error        Code = 2   // usage or runtime error
	Unreachable  Code = 3   // the cluster, or a Spark Connect server, cannot be reached
	UnknownTopic Code = 4   // a topic or group that is not there
	Auth         Code = 5   // authentication failed (SASL, the bucket's credentials)
	NotAllowed   Code = 6   // authorization refused (ACLs)
	Disk         Code = 7   // the folder is not writable, or the disk is full
	Locked       Code = 8   // another writer holds or committed first
	BadFolder    Code = 9   // a damaged or newer-format snapshot folder
	TLS          Code = 10  // a TLS handshake failed
	NoCatalog    Code = 11  // --dir is missing, not a folder, or not a snapshot folder
	Target       Code = 12  // restore: the target topic refused
	BadInput     Code = 13  // import: a PATH or file that is not Kafka's log nor kcat -J output
	Interrupted  Code = 130 // Ctrl-C
)

// HelpHint, as a hint, means "the failing command's --help": the printer
// knows the command, the error does not.
const HelpHint = "\x00help"

// Coded is an error that knows its exit code and its hint ("" for none).
type Coded interface {
	error
	ExitCode() Code
	Hint() string
}

// Sentinel is a kind of failure, compared with errors.Is, that carries its
// exit code and hint.
type Sentinel struct {
	msg    string
	code   Code
	hint   string
	parent *Sentinel
}

// New declares a kind of failure.
func New(code Code, msg, hint string) *Sentinel {
	return &Sentinel{msg: msg, code: code, hint: hint}
}

// Narrow declares a narrower kind of parent's: its message is the
// parent's followed by msg, and errors.Is(err, parent) holds for it.
func Narrow(parent *Sentinel, code Code, msg, hint string) *Sentinel {
	return &Sentinel{msg: parent.msg + ": " + msg, code: code, hint: hint, parent: parent}
}

func (s *Sentinel) Error() string { return s.msg }

// ExitCode is the kind's exit code.
func (s *Sentinel) ExitCode() Code { return s.code }

// Hint is the kind's fix.
func (s *Sentinel) Hint() string { return s.hint }

// Unwrap is the broader kind, for errors.Is.
func (s *Sentinel) Unwrap() error {
	if s.parent == nil {
		return nil
	}
	return s.parent
}

// With wraps err with a code and a hint of the caller's, for what only
// the caller knows (restore's "run it again" where a dump's would
// mislead). The message stays err's.
func With(err error, code Code, hint string) error {
	if err == nil {
		return nil
	}
	return &coded{err: err, code: code, hint: hint}
}

type coded struct {
	err  error
	code Code
	hint string
}

func (c *coded) Error() string  { return c.err.Error() }
func (c *coded) Unwrap() error  { return c.err }
func (c *coded) ExitCode() Code { return c.code }
func (c *coded) Hint() string   { return c.hint }

// Of is the exit code and hint of err. An interrupt (context.Canceled
// anywhere in the chain: a Ctrl-C that reached a fetch or a query, whatever
// error it surfaced as) is Interrupted, with the hint of a With(...,
// Interrupted, ...) in the chain if there is one and none otherwise: only
// a command that writes knows what an interrupt left behind and whether
// running it again resumes (a query just stopped); otherwise the code and
// hint of the outermost error of the chain that carries one; otherwise
// Error with no hint.
func Of(err error) (Code, string) {
	if err == nil {
		return OK, ""
	}
	var c Coded
	found := errors.As(err, &c)
	if errors.Is(err, context.Canceled) {
		if found && c.ExitCode() == Interrupted {
			return Interrupted, c.Hint()
		}
		return Interrupted, ""
	}
	if found {
		return c.ExitCode(), c.Hint()
	}
	return Error, ""
}

// Errorf is an error of kind s whose message is the formatted text alone:
// errors.Is(err, s) holds and it carries s's code and hint, but the kind's
// own words ("bad option: ") are for the code, not printed to the user.
// %w in format wraps as fmt.Errorf does.
func Errorf(s *Sentinel, format string, args ...any) error {
	return &marked{err: fmt.Errorf(format, args...), kind: s}
}

type marked struct {
	err  error
	kind *Sentinel
}

func (m *marked) Error() string   { return m.err.Error() }
func (m *marked) Unwrap() []error { return []error{m.kind, m.err} }
func (m *marked) ExitCode() Code  { return m.kind.code }
func (m *marked) Hint() string    { return m.kind.hint }
