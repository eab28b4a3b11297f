package queries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A check that reads the folder's cuts says, in its verdict and its
// summary, that a cut of its topic could not be read: never ok.
// TestChecksSayUnreadCuts.
func TestChecksSayUnreadCuts(t *testing.T) {
	dir := damagedTeaShop(t, func(t *testing.T, dir string) {
		cuts, err := filepath.Glob(filepath.Join(dir, "snapshots", "topic=app_events", "*.json"))
		if err != nil || len(cuts) != 1 {
			t.Fatalf("cuts %v %v", cuts, err)
		}
		if err := os.WriteFile(cuts[0], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()
	for _, lazy := range []bool{false, true} {
		e, err := Open(ctx, dir, Options{Lazy: lazy, Topics: map[bool][]string{true: {"app_events"}}[lazy]})
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			check string
			cuts  bool // it reads the cuts
		}{
			{"lag", true}, {"freshness", true}, {"gaps", true}, {"skew", true}, {"keys", true}, {"durability", true},
			{"values", false}, {"order", false},
		}
		for _, c := range cases {
			t.Run(c.check+map[bool]string{false: "", true: "/lazy"}[lazy], func(t *testing.T) {
				r, err := e.RunCheck(ctx, c.check, CheckOptions{Topic: "app_events"})
				if err != nil {
					t.Fatal(err)
				}
				got := r.Summary.Get("unreadable_cuts")
				said := strings.Contains(r.Message, "1 cut of the folder could not be read")
				if c.cuts && (r.Status == StatusOK || got != int64(1) || !said) {
					t.Fatalf("%s: %v %s", r.Status, got, r.Message)
				}
				if !c.cuts && (got != nil || said) {
					t.Fatalf("%s: %v %s", r.Status, got, r.Message)
				}
			})
		}
		e.Close()
	}
}
