package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// TestTooManyOpenFilesIsNoDamage: a limit of open files reached (EMFILE,
// ENFILE) when a manifest or a listing was opened is the process's, not
// the object's. The old Damaged marked it as the object's own, which the
// catalog calls a damaged manifest (exit 9, "run catalog verify").
func TestTooManyOpenFilesIsNoDamage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		damaged bool
		limit   bool
		code    exit.Code
	}{
		{"EMFILE", &fs.PathError{Op: "openat", Path: "m.json", Err: syscall.EMFILE}, false, true, exit.Error},
		{"ENFILE", &fs.PathError{Op: "openat", Path: "m.json", Err: syscall.ENFILE}, false, true, exit.Error},
		{"wrapped EMFILE", fmt.Errorf("list x: %w", syscall.EMFILE), false, true, exit.Error},
		{"a link out", errors.New("a link out of the folder"), true, false, exit.Error},
		{"EISDIR", &fs.PathError{Op: "read", Path: "m.json", Err: syscall.EISDIR}, true, false, exit.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Damaged(tc.err)
			if IsDamaged(err) != tc.damaged || errors.Is(err, ErrTooManyFiles) != tc.limit {
				t.Fatalf("Damaged(%v) = %v: damaged %v, limit %v", tc.err, err, IsDamaged(err), errors.Is(err, ErrTooManyFiles))
			}
			if code, _ := exit.Of(err); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if c := Classify(tc.err); errors.Is(c, ErrTooManyFiles) != tc.limit {
				t.Errorf("Classify(%v) = %v", tc.err, c)
			}
		})
	}
}
