package main

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// rawFloat is a number printed as Go or DuckDB print a float: four or more
// decimals, or a long fraction of one.
var rawFloat = regexp.MustCompile(`(^|[^0-9.:])[0-9]+\.[0-9]{4,}([^0-9]|$)`)

// TestCheckOutputHasNoRawFloats: the README promises figures a person
// reads (shares as percentages, counts with separators): every check's
// text output on the tea shop's folder, with the demo's options, prints no
// raw float.
func TestCheckOutputHasNoRawFloats(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(dir, seeds.TeaShopConfig{Users: 200, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	for _, c := range demoChecks(dir) {
		args := []string{"check", c.name, "--dir", dir, "--topic", c.opts.Topic}
		switch c.name {
		case "duplicates":
			args = append(args, "--id", c.opts.ID)
		case "skew":
			args = append(args, "--what-if-key", c.opts.WhatIfKey)
		case "missing":
			args = append(args, "--where", c.opts.Where, "--match", c.opts.Match, "--against", filepath.Join(dir, "orders.csv"),
				"--against-key", c.opts.AgainstKey, "--by", c.opts.By)
		case "freshness":
			args = append(args, "--silence", "30m")
		}
		code, out, errs := cli(t, args...)
		if code != exitOK && code != exitCheckFailed {
			t.Errorf("%v: exit %d: %s", args, code, errs)
			continue
		}
		if m := rawFloat.FindString(out); m != "" {
			t.Errorf("check %s prints a raw float %q:\n%s", c.name, m, out)
		}
	}
}
