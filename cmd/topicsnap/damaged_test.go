package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
	"github.com/topicsnap/topicsnap/queries/hostile"
)

// TestDamagedFolderCorpus: a folder handed over, damaged in each way
// below, costs the damaged partition (the rest answers exactly, a warning
// names the partition by its path inside the folder, exit 0) or, when the
// folder's own file is damaged, the command (exit 9 naming the fix). No
// command blocks, writes into or beside the folder, or grows without bound.
func TestDamagedFolderCorpus(t *testing.T) {
	src := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), src, seeds.TeaShopConfig{Users: 30, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	part := func(dir string, p int) string {
		return filepath.Join(dir, "topic=app_events", fmt.Sprintf("partition=%d", p))
	}
	// The count of each partition, from the intact folder.
	counts := map[int]int{}
	total := 0
	for p := range 6 {
		code, out, errs := cli(t, "sql", "--dir", src, "-c", fmt.Sprintf(`SELECT count(*) AS n FROM app_events WHERE "partition" = %d`, p), "--format", "csv")
		if code != 0 {
			t.Fatalf("count partition %d: %d %s", p, code, errs)
		}
		var n int
		fmt.Sscanf(strings.Split(out, "\n")[1], "%d", &n)
		counts[p] = n
		total += n
	}
	rewrite := func(path string, f func(m map[string]any)) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		f(m)
		b, _ = json.Marshal(m)
		return os.WriteFile(path, b, 0o644)
	}
	firstFile := func(dir string) string {
		fs, _ := filepath.Glob(filepath.Join(part(dir, 2), "*.parquet"))
		return fs[0]
	}
	for _, c := range []struct {
		name   string
		damage func(dir string) error
		// folder: the folder's own file is damaged: every command exits 9.
		folder bool
	}{
		{"a FIFO for a manifest", func(d string) error {
			os.Remove(filepath.Join(part(d, 2), "manifest.json"))
			return syscall.Mkfifo(filepath.Join(part(d, 2), "manifest.json"), 0o644)
		}, false},
		{"a manifest linked to /dev/zero", func(d string) error {
			os.Remove(filepath.Join(part(d, 2), "manifest.json"))
			return os.Symlink("/dev/zero", filepath.Join(part(d, 2), "manifest.json"))
		}, false},
		{"a lost range from 5 to -5", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) {
				m["lost"] = []map[string]any{{"kind": "expired-before-first-snapshot", "from": 5, "to": -5}}
			})
		}, false},
		{"a lost range of every int64", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) {
				m["lost"] = []map[string]any{{"kind": "expired-before-first-snapshot", "from": -9223372036854775808, "to": 9223372036854775807}}
			})
		}, false},
		{"a manifest of another partition", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) { m["partition"] = 3 })
		}, false},
		{"a file name that climbs out", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) {
				fs := m["files"].([]any)
				fs[0].(map[string]any)["name"] = "../../../x.parquet"
			})
		}, false},
		{"a data file cut short", func(d string) error {
			st, err := os.Stat(firstFile(d))
			if err != nil {
				return err
			}
			return os.Truncate(firstFile(d), st.Size()/2)
		}, false},
		{"a FIFO for a data file", func(d string) error {
			f := firstFile(d)
			os.Remove(f)
			return syscall.Mkfifo(f, 0o644)
		}, false},
		{"topicsnap.json linked to /dev/zero", func(d string) error {
			os.Remove(filepath.Join(d, "topicsnap.json"))
			return os.Symlink("/dev/zero", filepath.Join(d, "topicsnap.json"))
		}, true},
		{"a FIFO for topicsnap.json", func(d string) error {
			os.Remove(filepath.Join(d, "topicsnap.json"))
			return syscall.Mkfifo(filepath.Join(d, "topicsnap.json"), 0o644)
		}, true},
		// No topicsnap writes a format version below 1, or none: the
		// folder's layout is not known (it was read as version 1).
		{"topicsnap.json of format_version -1", func(d string) error {
			return os.WriteFile(filepath.Join(d, "topicsnap.json"), []byte(`{"format_version": -1, "created_by": "topicsnap"}`), 0o644)
		}, true},
		{"topicsnap.json of format_version 0", func(d string) error {
			return os.WriteFile(filepath.Join(d, "topicsnap.json"), []byte(`{"format_version": 0, "created_by": "topicsnap"}`), 0o644)
		}, true},
		{"topicsnap.json of {}", func(d string) error {
			return os.WriteFile(filepath.Join(d, "topicsnap.json"), []byte(`{}`), 0o644)
		}, true},
		// A manifest of two objects, and cut entries no dump writes: each
		// costs its partition, not taken as sound.
		{"a manifest with more JSON after its object", func(d string) error {
			path := filepath.Join(part(d, 2), "manifest.json")
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(path, append(b, b...), 0o644)
		}, false},
		{"a cut entry of high watermark -1", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) {
				m["snapshots"] = []map[string]any{cutEntry("20260716T120000.000Z-abcdef", -1)}
			})
		}, false},
		{"a cut entry of id ../../x", func(d string) error {
			return rewrite(filepath.Join(part(d, 2), "manifest.json"), func(m map[string]any) {
				m["snapshots"] = []map[string]any{cutEntry("../../x", 100)}
			})
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "snap")
			if code, _, errs := cli(t, "catalog", "copy", src, dir); code != 0 {
				t.Fatalf("copy: %d %s", code, errs)
			}
			if err := c.damage(dir); err != nil {
				t.Fatal(err)
			}
			before := hostile.FolderHash(t, top)
			resetPeak(t)
			run := func(args ...string) (int, string, string) {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				var out, errb bytes.Buffer
				done := make(chan int, 1)
				go func() { done <- run(ctx, args, strings.NewReader(""), &out, &errb) }()
				select {
				case code := <-done:
					return code, out.String(), errb.String()
				case <-time.After(90 * time.Second):
					t.Fatalf("%v blocked", args)
					return 0, "", ""
				}
			}
			code, out, errs := run("sql", "--dir", dir, "-c", "SELECT count(*) AS n FROM app_events", "--format", "csv")
			if c.folder {
				if code != exitBadFolder || !strings.Contains(errs, "topicsnap.json") || !strings.Contains(errs, "Try:") {
					t.Errorf("sql: exit %d %q, want %d naming topicsnap.json with a Try:", code, errs, exitBadFolder)
				}
				if code, _, _ := run("check", "gaps", "--dir", dir, "--topic", "app_events"); code != exitBadFolder {
					t.Errorf("check gaps: exit %d, want %d", code, exitBadFolder)
				}
			} else {
				want := fmt.Sprintf("n\n%d\n", total-counts[2])
				if code != 0 || out != want {
					t.Errorf("sql: exit %d %q, want the other partitions' %d records", code, out, total-counts[2])
				}
				// The problem names partition 2 by its path inside the folder;
				// only the command to run names the folder, as given.
				// The hint once, at the end, as ls says it.
				problem, hint, _ := strings.Cut(errs, "; run topicsnap catalog verify --dir ")
				if !strings.Contains(problem, "topic=app_events/partition=2/") || strings.Contains(problem, top) || hint != dir+"\n" ||
					strings.Count(errs, "catalog verify") != 1 {
					t.Errorf("sql's warning does not name partition 2 by its path inside the folder, then the folder to verify: %q", errs)
				}
				code, out, _ = run("check", "gaps", "--dir", dir, "--topic", "app_events", "--format", "json")
				var doc struct {
					Status  string         `json:"status"`
					Summary map[string]any `json:"summary"`
				}
				json.Unmarshal([]byte(out), &doc)
				if doc.Status == "ok" || fmt.Sprint(doc.Summary["unreadable_partitions"]) != "[2]" {
					t.Errorf("check gaps: exit %d %s %v, want not ok with partition 2 unreadable", code, doc.Status, doc.Summary)
				}
				if code, out, _ := run("ls", "--dir", dir); code != 0 || !strings.Contains(out, "app_events") {
					t.Errorf("ls: exit %d %q", code, out)
				}
			}
			if after := hostile.FolderHash(t, top); after != before {
				t.Errorf("the commands wrote into or beside the folder")
			}
			if peak := peakRSS(t); peak > 1<<30 {
				t.Errorf("peak resident memory %d MiB", peak>>20)
			}
		})
	}
}

// cutEntry is a manifest's entry of cut id whose high watermark is hw.
func cutEntry(id string, hw int64) map[string]any {
	return map[string]any{"id": id, "as_of": "2026-07-16T12:00:00Z", "log_start_offset": 0, "high_watermark": hw,
		"last_stable_offset": max(hw, 0), "from": 0, "until": max(hw, 0), "complete": true}
}

// TestDamagedChecksFile: a checks.json that is a FIFO, a link to
// /dev/zero, larger than its bound, or not JSON: check and serve's API say
// so (exit 9, naming the file and the fix) without blocking or reading it
// whole; sql, which does not need it, answers; nothing is written.
func TestDamagedChecksFile(t *testing.T) {
	src := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), src, seeds.TeaShopConfig{Users: 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		damage func(path string) error
		says   string
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file"},
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "a link that leads outside the folder"},
		{"larger than its bound", func(p string) error {
			return os.WriteFile(p, bytes.Repeat([]byte(" "), int(queries.MaxChecksFileBytes)+1), 0o644)
		}, "larger than 256 KiB"},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("{\"format_version\": 1, \"checks\": [ {"), 0o644) }, "not the JSON of a checks file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "snap")
			if code, _, errs := cli(t, "catalog", "copy", src, dir); code != 0 {
				t.Fatalf("copy: %d %s", code, errs)
			}
			if err := c.damage(filepath.Join(dir, queries.ChecksFileName)); err != nil {
				t.Fatal(err)
			}
			before := hostile.FolderHash(t, top)
			done := make(chan struct{})
			go func() {
				defer close(done)
				code, _, errs := cli(t, "check", "gaps", "--dir", dir, "--topic", "app_events")
				if code != exitBadFolder || !strings.Contains(errs, queries.ChecksFileName) || !strings.Contains(errs, c.says) || !strings.Contains(errs, "Try: fix or remove the folder's checks.json") {
					t.Errorf("check gaps: exit %d %q; want %d naming checks.json, %q and the fix", code, errs, exitBadFolder, c.says)
				}
				if code, out, errs := cli(t, "sql", "--dir", dir, "-c", "SELECT count(*) > 0 AS any FROM app_events", "--format", "csv"); code != 0 || out != "any\ntrue\n" {
					t.Errorf("sql: exit %d %q %s", code, out, errs)
				}
			}()
			select {
			case <-done:
			case <-time.After(90 * time.Second):
				t.Fatal("blocked on the checks file")
			}
			if after := hostile.FolderHash(t, top); after != before {
				t.Errorf("the commands wrote into or beside the folder")
			}
		})
	}
}
