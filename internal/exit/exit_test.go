package exit

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

var (
	errBroad  = New(Auth, "authentication failed", "check the password")
	errNarrow = Narrow(errBroad, Auth, "the listener expects SASL", "set security.protocol")
	errOption = New(Error, "bad option", HelpHint)
)

type fields struct{ who string }

func (f *fields) Error() string  { return "refused " + f.who }
func (f *fields) ExitCode() Code { return NotAllowed }
func (f *fields) Hint() string   { return "grant " + f.who }

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code Code
		hint string
		msg  string
	}{
		{"nil", nil, OK, "", ""},
		{"plain", errors.New("boom"), Error, "", "boom"},
		{"sentinel", errBroad, Auth, "check the password", "authentication failed"},
		{"wrapped", fmt.Errorf("dial: %w", errBroad), Auth, "check the password", "dial: authentication failed"},
		{"narrow is its own", fmt.Errorf("x: %w", errNarrow), Auth, "set security.protocol", "x: authentication failed: the listener expects SASL"},
		{"fields", fmt.Errorf("describe: %w", &fields{"alice"}), NotAllowed, "grant alice", "describe: refused alice"},
		{"outermost wins", fmt.Errorf("%w: %w", errBroad, &fields{"bob"}), Auth, "check the password", "authentication failed: refused bob"},
		{"errorf keeps the kind's words out", Errorf(errOption, "--from %s is after --until", "9"), Error, HelpHint, "--from 9 is after --until"},
		{"interrupt", fmt.Errorf("fetch: %w", context.Canceled), Interrupted, "", "fetch: context canceled"},
		{"interrupt beats a kind", fmt.Errorf("%w: %w", errBroad, context.Canceled), Interrupted, "", ""},
		{"interrupt with the command's hint", With(fmt.Errorf("%w: %w", errBroad, context.Canceled), Interrupted, "run it again"), Interrupted, "run it again", ""},
		{"with overrides", With(errBroad, NoCatalog, "choose a new folder"), NoCatalog, "choose a new folder", "authentication failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, hint := Of(tc.err)
			if code != tc.code || hint != tc.hint {
				t.Errorf("Of = %d %q, want %d %q", code, hint, tc.code, tc.hint)
			}
			if tc.msg != "" && tc.err.Error() != tc.msg {
				t.Errorf("message %q, want %q", tc.err.Error(), tc.msg)
			}
		})
	}
}

func TestKindsCompare(t *testing.T) {
	if !errors.Is(fmt.Errorf("x: %w", errNarrow), errBroad) {
		t.Error("a narrow kind is not its parent's")
	}
	if errors.Is(errBroad, errNarrow) {
		t.Error("a parent is its narrow kind")
	}
	e := Errorf(errOption, "wrapping %w", errBroad)
	if !errors.Is(e, errOption) || !errors.Is(e, errBroad) {
		t.Error("Errorf loses its kind or what it wraps")
	}
}
