package queries

import "testing"

// TestWithDefaultsReadsTheRegistry: every default is written once, in
// CheckOptionSet, and WithDefaults is what the engine runs with: an unset
// option gets its Default, a set one keeps its value.
func TestWithDefaultsReadsTheRegistry(t *testing.T) {
	got := CheckOptions{}.WithDefaults()
	n := 0
	for name, op := range CheckOptionSet {
		var want CheckOptions
		if op.Default == "" {
			if txt := op.Text(got); txt != "" {
				t.Errorf("%s has no default but WithDefaults set it to %q", name, txt)
			}
			continue
		}
		n++
		if err := op.Set(&want, op.Default); err != nil {
			t.Fatalf("%s: default %q does not parse: %v", name, op.Default, err)
		}
		if op.Text(got) != op.Text(want) {
			t.Errorf("%s: WithDefaults gave %q, its Default is %q", name, op.Text(got), op.Default)
		}
	}
	if n < 5 {
		t.Fatalf("only %d options have a default: the registry lost some", n)
	}
	if got.Hot != 1.5 || got.Silence != 300 || got.Late != 60 || got.Stale != 3600 || got.Limit != 50 {
		t.Errorf("defaults %+v: want hot 1.5, silence 300 s, late 60 s, stale 3600 s, limit 50 as the help says", got)
	}
	kept := CheckOptions{Hot: 2, Limit: 7}.WithDefaults()
	if kept.Hot != 2 || kept.Limit != 7 {
		t.Errorf("a set option was overwritten: %+v", kept)
	}
}
