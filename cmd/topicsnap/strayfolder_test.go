package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// copyDir copies the folder src to dst (files and folders only).
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if de.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFolderNamedAsNoTopicIsNamed: a folder handed over may hold a topic's
// folder copied or renamed by hand ("topic=orders (copy)") or by a tool
// that mangles names ("topic=or$ders"): names no Kafka topic has, so no
// dump wrote them. Every command left them out in silence: ls listed the
// rest, catalog verify said "all match their manifests" (exit 0) over
// records no answer held, and catalog copy copied the rest without a word.
// Now ls (and every reader) warns naming each, and verify, compact and copy
// name each and exit 9 with the fix (copy after copying the rest).
func TestFolderNamedAsNoTopicIsNamed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snap")
	catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 3)}})
	for _, stray := range []string{"topic=orders (copy)", "topic=or$ders"} {
		copyDir(t, filepath.Join(dir, "topic=orders"), filepath.Join(dir, stray))
	}
	said := func(args []string, code int, out, errs string) {
		t.Helper()
		for _, name := range []string{`"orders (copy)" is no topic name Kafka allows`, `"or$ders" is no topic name Kafka allows`} {
			if !strings.Contains(out+errs, name) {
				t.Errorf("%s: exit %d\n%s%s\nwant it to name %s", strings.Join(args, " "), code, out, errs, name)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"ls", "--dir", dir}, 0},
		{[]string{"catalog", "verify", "--dir", dir}, 9},
		{[]string{"catalog", "compact", "--dir", dir}, 9},
		// It copied the rest and said nothing of them (exit 0).
		{[]string{"catalog", "copy", dir, filepath.Join(t.TempDir(), "copy")}, 9},
		{[]string{"check", "gaps", "--dir", dir, "--topic", "orders"}, 0},
	} {
		code, out, errs := cli(t, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", strings.Join(tc.args, " "), code, tc.code, out, errs)
		}
		if tc.args[0] == "check" {
			continue // a check of one topic reads that topic only
		}
		said(tc.args, code, out, errs)
	}
	code, out, errs := cli(t, "catalog", "verify", "--dir", dir)
	if !strings.Contains(errs, "2 folders named as topics' that no dump wrote") || !strings.Contains(errs, "Try: move each such folder out of the snapshot folder") {
		t.Errorf("verify: exit %d\n%s%s\nwant the count and the fix", code, out, errs)
	}
	code, out, errs = cli(t, "sql", "--dir", dir, "--format", "csv", "-c", `SELECT count(*) AS n FROM orders`)
	if code != 0 || strings.TrimSpace(out) != "n\n3" {
		t.Errorf("sql: exit %d\n%s%s; want the 3 records of orders alone", code, out, errs)
	}
}
