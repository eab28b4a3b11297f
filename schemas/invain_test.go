package schemas

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestRegistryAskedInVainIsBounded: a producer can write any schema id,
// and a registry can answer every request with an error; a run asks in
// vain a bounded number of times. Before, every id the registry did not
// know cost a request (3,000 made-up ids took 11.6 s on Apicurio), and
// every id it answered 5xx cost three requests 1.25 s apart (20 ids took
// 26.3 s against a registry answering 500). Now, past maxServerErrorIDs
// ids in a row answered 5xx, or maxFailedIDs ids with no schema, the
// registry is not asked again this run, warned of once; each value is kept
// with its reason, and the ids the folder holds still decode.
func TestRegistryAskedInVainIsBounded(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		serve  func(w http.ResponseWriter)
		asked  int // ids asked before the registry is left alone
		times  int // requests for each
		reason string
		is     error
	}{
		{"5xx to everything", func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) }, maxServerErrorIDs, 3,
			"not fetched: the schema registry answered HTTP 500 to 3 schema ids in a row, each asked three times", ErrRegistryUnreachable},
		{"unknown ids", nil, maxFailedIDs, 1,
			"not fetched: the schema registry had no schema for 1000 schema ids of this run (unknown ids, or answers that are not schemas): no more are asked", ErrTooManyFailedIDs},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHostileRegistry(t)
			dir, err := catalog.Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := dir.WriteSchema(ctx, &catalog.Schema{ID: 7, Type: catalog.SchemaAvro, Schema: `"string"`}); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			r, err := NewResolver(t.Context(), Options{Folder: dir, Registry: &Registry{URLs: []string{h.srv.URL}},
				Warn: func(s string) { warnings = append(warnings, s) }})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			const first = 1000
			for id := first; id < first+c.asked+20; id++ {
				h.set(id, c.serve)
				_, _, ok, fail := r.Decode(ctx, wire(id), nil)
				if !ok || fail == nil {
					t.Fatalf("schema %d decoded", id)
				}
				if id >= first+c.asked && (fail.Reason != fmt.Sprintf("schema %d %s", id, c.reason) || !errors.Is(fail, c.is)) {
					t.Fatalf("schema %d: %q, want %q", id, fail.Reason, c.reason)
				}
				if _, _, _, fail := r.Decode(ctx, wire(7), nil); fail != nil {
					t.Fatalf("stored schema 7: %v", fail)
				}
			}
			for id := first; id < first+c.asked+20; id++ {
				want := c.times
				if id >= first+c.asked {
					want = 0
				}
				if n := h.times(id); n != want {
					t.Fatalf("schema %d asked %d times, want %d", id, n, want)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], strings.TrimPrefix(strings.Split(c.reason, ": no more")[0], "not fetched: ")) {
				t.Fatalf("warnings %q, want one", warnings)
			}
			t.Logf("%s: %d ids in %v; %s", c.name, c.asked+20, time.Since(start).Round(time.Millisecond), warnings[0])
		})
	}
}

// TestSlowRegistryAskedInVainIsBounded: a registry that takes its time to
// say it has no schema (within the client's timeout) is left alone once a
// run has waited maxFailedWait for such answers. Before, each id waited
// its full answer: at 9 s an answer, the 1,000 ids of maxFailedIDs would
// hold the dump for two and a half hours.
func TestSlowRegistryAskedInVainIsBounded(t *testing.T) {
	old := maxFailedWait
	maxFailedWait = time.Second
	t.Cleanup(func() { maxFailedWait = old })
	h := newHostileRegistry(t)
	var warnings []string
	r, err := NewResolver(t.Context(), Options{Registry: &Registry{URLs: []string{h.srv.URL}},
		Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	slow := func(w http.ResponseWriter) {
		time.Sleep(300 * time.Millisecond)
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error_code":40403,"message":"Schema not found"}`))
	}
	start := time.Now()
	for id := 1; id <= 20; id++ {
		h.set(id, slow)
		if _, _, _, fail := r.Decode(context.Background(), wire(id), nil); fail == nil {
			t.Fatalf("schema %d decoded", id)
		}
	}
	asked := 0
	for id := 1; id <= 20; id++ {
		asked += h.times(id)
	}
	if took := time.Since(start); asked != 4 || took > 3*time.Second {
		t.Fatalf("asked for %d ids in %v; want 4 (1 s of 300 ms answers)", asked, took)
	}
	_, _, _, fail := r.Decode(context.Background(), wire(20), nil)
	if !errors.Is(fail, ErrTooManyFailedIDs) || !strings.Contains(fail.Reason, "schema 20 not fetched: the schema registry took 1s to answer about 4 schema ids it had no schema for: no more are asked") {
		t.Fatalf("schema 20: %v", fail)
	}
	if len(warnings) != 1 {
		t.Fatalf("warnings %q, want one", warnings)
	}
}
