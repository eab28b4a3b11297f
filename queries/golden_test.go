package queries

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGoldenTeaShop keeps the checks' full JSON documents on the tea shop's
// Monday as golden files: any change to a verdict, a number or a row shows
// up in review. Regenerate with: go test ./queries -run Golden -update
func TestGoldenTeaShop(t *testing.T) {
	dir, _ := teaShop(t)
	fixManifests(t, dir)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	cases := []goldenCase{
		{"gaps", "gaps", CheckOptions{}},
		{"duplicates-by-event", "duplicates", CheckOptions{ID: "value.event_id", By: "value.event_name", Limit: 10}},
		{"skew-what-if-city", "skew", CheckOptions{WhatIfKey: "value.city"}},
		{"missing-orders-by-platform", "missing", CheckOptions{Where: "value.event_name = 'order_completed'", Match: "value.order_id",
			Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id", By: "platform", Limit: 2}},
		{"keys", "keys", CheckOptions{}},
		{"order", "order", CheckOptions{}},
	}
	for i := range cases {
		cases[i].o.Topic = "app_events"
	}
	runGolden(t, e, "teashop-", cases)
}

// goldenCase is one check run kept as testdata/golden/PREFIX+name.json.
type goldenCase struct {
	name, check string
	o           CheckOptions
}

// runGolden runs each case as a subtest, compares it with its golden file
// and returns the reports by case name.
func runGolden(t *testing.T, e *Engine, prefix string, cases []goldenCase) map[string]*Report {
	t.Helper()
	results := map[string]*Report{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := e.RunCheck(context.Background(), c.check, c.o)
			if err != nil {
				t.Fatal(err)
			}
			results[c.name] = r
			compareGolden(t, prefix+c.name, r)
		})
	}
	return results
}

// compareGolden compares a check's JSON document with
// testdata/golden/NAME.json, or rewrites it with -update.
func compareGolden(t *testing.T, name string, r any) {
	t.Helper()
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run: go test ./queries -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; if the change is intended, run: go test ./queries -run Golden -update\n%s", name, path, diffLines(string(want), string(got)))
	}
}

// diffLines shows the first lines that differ.
func diffLines(a, b string) string {
	al, bl := bytes.Split([]byte(a), []byte("\n")), bytes.Split([]byte(b), []byte("\n"))
	var out bytes.Buffer
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y []byte
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if !bytes.Equal(x, y) {
			out.WriteString("- " + string(x) + "\n+ " + string(y) + "\n")
			if out.Len() > 2000 {
				break
			}
		}
	}
	return out.String()
}
