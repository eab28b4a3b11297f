package queries

import (
	"errors"
	"strings"
	"testing"
)

// TestDurationOptionsNeedAUnit: a duration option (KindSeconds) reads a
// duration with its unit; a bare number is refused with an *OptionError
// asking for one (it meant seconds while the help said "default 5m"); and
// Text writes a value back with a unit, so Set(Text(o)) gives it again (the
// commands the demo prints run as printed).
func TestDurationOptionsNeedAUnit(t *testing.T) {
	for _, name := range []string{"silence", "late", "stale"} {
		op := CheckOptionSet[name]
		if op.Kind != KindSeconds {
			t.Fatalf("%s is %s", name, op.Kind)
		}
		cases := []struct {
			raw     string
			seconds float64
			err     string // a substring of the refusal; "" when accepted
			text    string // Text of the value set
		}{
			{"5m", 300, "", "5m"},
			{"90s", 90, "", "90s"},
			{"1h30m", 5400, "", "90m"},
			{"2h", 7200, "", "2h"},
			{"1800s", 1800, "", "30m"},
			{"500ms", 0.5, "", "0.5s"},
			{"5", 0, `"5": has no unit: write the duration with one, such as 5s, 5m or 5h`, ""},
			{"300", 0, "has no unit", ""},
			{"0.5", 0, "has no unit", ""},
			{"1e3", 0, "has no unit", ""},
			{"soon", 0, "must be a duration such as 90s, 5m or 1h", ""},
			{"NaN", 0, "must be a duration such as 90s, 5m or 1h", ""}, // not a number a user means
			{"Inf", 0, "must be a duration such as 90s, 5m or 1h", ""},
			{"0s", 0, "must be between 1ms and ", ""},
			// 1ns is more than 0: the refusal says the bound it misses.
			{"1ns", 0, "must be between 1ms and ", ""},
			// Past Go's durations (~2,562,047h): a duration, too long.
			{"9999999h", 0, "must be a duration such as 90s, 5m or 1h, at most ", ""},
		}
		for _, c := range cases {
			var o CheckOptions
			err := op.Set(&o, c.raw)
			if c.err != "" {
				var oe *OptionError
				if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%s %q: %v, want an *OptionError with %q", name, c.raw, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %q: %v", name, c.raw, err)
				continue
			}
			if got := *op.field(&o).(*float64); got != c.seconds {
				t.Errorf("%s %q: %v seconds, want %v", name, c.raw, got, c.seconds)
			}
			text := op.Text(o)
			var back CheckOptions
			if text != c.text || op.Set(&back, text) != nil || *op.field(&back).(*float64) != c.seconds {
				t.Errorf("%s %q: Text %q, want %q read back as %v", name, c.raw, text, c.text, c.seconds)
			}
		}
	}
}
