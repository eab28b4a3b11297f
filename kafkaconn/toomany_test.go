package kafkaconn

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestClassifyOpenFilesLimitIsNotUnreachable: a dial that fails because
// the process may open no more files ("socket: too many open files") was
// classified as "cannot reach the Kafka cluster" (exit 3, "check
// --brokers"). It is the limit of open files (exit 2, how to raise it); a
// refused connection stays unreachable.
func TestClassifyOpenFilesLimitIsNotUnreachable(t *testing.T) {
	dial := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}
	}
	for _, tc := range []struct {
		name  string
		err   error
		code  exit.Code
		limit bool
	}{
		{"EMFILE", dial(syscall.EMFILE), exit.Error, true},
		{"ENFILE", dial(syscall.ENFILE), exit.Error, true},
		{"refused", dial(syscall.ECONNREFUSED), exit.Unreachable, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Classify(tc.err)
			code, hint := exit.Of(err)
			if code != tc.code || errors.Is(err, store.ErrTooManyFiles) != tc.limit || errors.Is(err, ErrUnreachable) == tc.limit {
				t.Fatalf("Classify(%v) = %v: exit %d (%s)", tc.err, err, code, hint)
			}
		})
	}
}
