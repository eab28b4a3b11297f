package queries

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChecksFileHostile: a checks file is read as hostile input; each
// breach is ErrChecksFile naming the file and what is wrong, never a
// partial list.
func TestChecksFileHostile(t *testing.T) {
	entry := func(s string) string { return `{"format_version":1,"checks":[` + s + `]}` }
	cases := []struct {
		name, body, want string
	}{
		{"not json", `{`, "not the JSON"},
		{"unknown field", `{"format_version":1,"checks":[],"extra":1}`, "unknown field"},
		{"two documents", entry(``) + entry(``), "more than one JSON document"},
		{"wrong version", `{"format_version":9,"checks":[]}`, "format_version 9"},
		{"unknown check", entry(`{"check":"nope","topic":"t","options":{}}`), `unknown check "nope"`},
		{"bad topic", entry(`{"check":"lag","topic":"../x","options":{}}`), "not a topic name"},
		{"option not taken", entry(`{"check":"gaps","topic":"t","options":{"group":"g"}}`), "takes no option"},
		{"out of bounds", entry(`{"check":"skew","topic":"t","options":{"hot":"0.5"}}`), "hot"},
		{"bad time", entry(`{"check":"reset","topic":"t","options":{"group":"g","to_time":"yesterday"}}`), "to_time"},
		{"against outside", entry(`{"check":"missing","topic":"t","options":{"against":"../orders.csv"}}`), "inside the snapshot folder"},
		{"against absolute", entry(`{"check":"missing","topic":"t","options":{"against":"/etc/passwd"}}`), "inside the snapshot folder"},
		{"twice", entry(`{"check":"lag","topic":"t","options":{}},{"check":"lag","topic":"t","options":{}}`), "configured twice"},
		{"long option", entry(`{"check":"reset","topic":"t","options":{"group":"` + strings.Repeat("g", MaxOptionText+1) + `"}}`), "at most"},
		{"too many", entry(strings.Repeat(`{"check":"lag","topic":"t","options":{}},`, MaxConfiguredChecks) + `{"check":"lag","topic":"u","options":{}}`), "at most"},
		{"too large", entry(`{"check":"lag","topic":"t","options":{}}`) + strings.Repeat(" ", MaxChecksFileBytes), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ChecksFileName), []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			cs, err := ReadChecksFile(dir)
			if !errors.Is(err, ErrChecksFile) || cs != nil || !strings.Contains(err.Error(), filepath.Join(dir, ChecksFileName)) {
				t.Fatalf("got %v, %v; want ErrChecksFile naming the file", cs, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not say %q", err, c.want)
			}
			// A file that cannot be read is never overwritten.
			if err := RememberChecks(dir, ConfiguredCheck{Check: "lag", Topic: "t", Options: map[string]string{}}); !errors.Is(err, ErrChecksFile) {
				t.Fatalf("remember over a bad file: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, ChecksFileName)); string(b) != c.body {
				t.Fatal("the bad file was changed")
			}
		})
	}
	// A directory, a FIFO or a symlink out of the folder named checks.json
	// is not read.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ChecksFileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadChecksFile(dir); !errors.Is(err, ErrChecksFile) {
		t.Errorf("a directory: %v", err)
	}
	dir = t.TempDir()
	out := filepath.Join(t.TempDir(), "outside.json")
	os.WriteFile(out, []byte(`{"format_version":1,"checks":[]}`), 0o644)
	if err := os.Symlink(out, filepath.Join(dir, ChecksFileName)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadChecksFile(dir); !errors.Is(err, ErrChecksFile) {
		t.Errorf("a symlink out of the folder: %v", err)
	}
}

// TestChecksFileRemember: remembering writes the options as a user types
// them (a file as its path in the folder), replaces the entry of the same
// check and topic in its place, and filling in sets only what is unset.
func TestChecksFileRemember(t *testing.T) {
	dir := t.TempDir()
	if cs, err := ReadChecksFile(dir); cs != nil || err != nil {
		t.Fatalf("no file: %v %v", cs, err)
	}
	to := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	reset, err := ConfiguredFrom(dir, "reset", CheckOptions{Topic: "readings", Group: "w", ToTime: to, Partitions: []int32{0, 1, 2, 5}})
	if err != nil {
		t.Fatal(err)
	}
	missing, err := ConfiguredFrom(dir, "missing", CheckOptions{Topic: "app_events", Match: "value.order_id", Against: filepath.Join(dir, "orders.csv"), AgainstKey: "order_id"})
	if err != nil {
		t.Fatal(err)
	}
	if missing.Options["against"] != "orders.csv" || reset.Options["partitions"] != "0,1,2,5" || reset.Options["to_time"] != "2026-07-16T11:00:00Z" {
		t.Fatalf("options as typed: %v %v", reset.Options, missing.Options)
	}
	if _, err := ConfiguredFrom(dir, "missing", CheckOptions{Topic: "t", Match: "x", Against: filepath.Join(t.TempDir(), "o.csv")}); err == nil {
		t.Fatal("a file outside the folder was remembered")
	}
	if err := RememberChecks(dir, reset, missing); err != nil {
		t.Fatal(err)
	}
	reset2 := reset
	reset2.Options = map[string]string{"group": "w2", "to_time": "2026-07-16T11:00:00Z"}
	if err := RememberChecks(dir, reset2); err != nil {
		t.Fatal(err)
	}
	cs, err := ReadChecksFile(dir)
	if err != nil || len(cs) != 2 || cs[0].Check != "reset" || cs[0].Options["group"] != "w2" || cs[1].Check != "missing" {
		t.Fatalf("after replacing: %+v %v", cs, err)
	}
	// Filling in: the request's own options win, the rest come from the file.
	c, _ := Configured(cs, "missing", "app_events")
	o := CheckOptions{Topic: "app_events", Limit: 7, AgainstKey: "order_id", Against: filepath.Join(dir, ".", "orders.csv")}
	set, differs, err := c.FillFrom(dir, &o)
	if err != nil || differs != "" || o.Limit != 7 || o.Match != "value.order_id" || len(set) != 1 {
		t.Fatalf("filled %v (differs %q): %+v %v", set, differs, o, err)
	}
	// A request that asks another question (another file, key column or
	// match) takes nothing from the entry, and says which option differs.
	for _, tc := range []struct {
		o    CheckOptions
		want string
	}{
		{CheckOptions{Topic: "app_events", AgainstKey: "id"}, "against_key"},
		{CheckOptions{Topic: "app_events", Against: filepath.Join(dir, "users.csv")}, "against"},
		{CheckOptions{Topic: "app_events", Match: "value.user_id", Limit: 3}, "match"},
	} {
		o := tc.o
		set, differs, err := c.FillFrom(dir, &o)
		if err != nil || differs != tc.want || len(set) != 0 || o.Match != tc.o.Match || o.Against != tc.o.Against || o.AgainstKey != tc.o.AgainstKey {
			t.Errorf("%+v: filled %v, differs %q, %+v, %v; want nothing filled, %q differs", tc.o, set, differs, o, err, tc.want)
		}
	}
	if _, ok := Configured(cs, "missing", "other"); ok {
		t.Fatal("an entry of another topic applies")
	}
}

// TestChecksFileFileStaysInside: a file option a checks file names is
// read only as a regular file inside the folder, on the command line as
// on the server (queries.FileInside): a folder handed over whose
// orders.csv is a link to /etc/passwd had `check missing` print that
// file's lines as expected keys, where the server refused it.
func TestChecksFileFileStaysInside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.csv")
	if err := os.WriteFile(outside, []byte("id\nsecret-key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entry := ConfiguredCheck{Check: "missing", Topic: "app_events",
		Options: map[string]string{"against": "orders.csv", "against_key": "id", "match": "value.order_id"}}
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		want string // "" when the entry is filled in
	}{
		{"link out of the folder", func(t *testing.T, p string) { mustDo(t, os.Symlink(outside, p)) }, "leads out of the snapshot folder"},
		{"relative link out of the folder", func(t *testing.T, p string) {
			rel, err := filepath.Rel(filepath.Dir(p), outside)
			mustDo(t, err)
			mustDo(t, os.Symlink(rel, p))
		}, "leads out of the snapshot folder"},
		{"link to /dev/zero", func(t *testing.T, p string) { mustDo(t, os.Symlink("/dev/zero", p)) }, "leads out of the snapshot folder"},
		{"FIFO", func(t *testing.T, p string) { mustDo(t, syscall.Mkfifo(p, 0o644)) }, "not a regular file"},
		{"folder", func(t *testing.T, p string) { mustDo(t, os.Mkdir(p, 0o755)) }, "not a regular file"},
		{"link to a file inside", func(t *testing.T, p string) {
			mustDo(t, os.WriteFile(filepath.Join(filepath.Dir(p), "real.csv"), []byte("id\nA1\n"), 0o644))
			mustDo(t, os.Symlink("real.csv", p))
		}, ""},
		{"regular file", func(t *testing.T, p string) { mustDo(t, os.WriteFile(p, []byte("id\nA1\n"), 0o644)) }, ""},
		{"missing (the check names it)", func(t *testing.T, p string) {}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.make(t, filepath.Join(dir, "orders.csv"))
			o := CheckOptions{Topic: "app_events"}
			set, _, err := entry.FillFrom(dir, &o)
			if c.want == "" {
				if err != nil || len(set) != 3 || filepath.Dir(o.Against) != dir {
					t.Fatalf("filled %v, against %q, %v; want the file inside %s", set, o.Against, err, dir)
				}
				return
			}
			if !errors.Is(err, ErrChecksFile) || !strings.Contains(err.Error(), c.want) || o.Against != "" {
				t.Fatalf("FillFrom = %v (against %q); want ErrChecksFile saying %q", err, o.Against, c.want)
			}
		})
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
