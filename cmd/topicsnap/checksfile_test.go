package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries"
)

// TestCheckRemember: check NAME ... --remember keeps the options in the
// folder's checks.json; afterwards check NAME and check all run it with
// them and give the same verdict; the command line's own options win; a
// bad checks file is a usage error naming it.
func TestCheckRemember(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 300, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	base := []string{"check", "missing", "--dir", dir, "--topic", seeds.TopicAppEvents}
	if code, _, stderr := cli(t, base...); code != 2 || !strings.Contains(stderr, "--match") {
		t.Fatalf("before: exit %d %s", code, stderr)
	}
	opts := []string{"--where", "value.event_name = 'order_completed'", "--match", "value.order_id",
		"--against", filepath.Join(dir, "orders.csv"), "--against-key", "order_id", "--by", "platform"}
	code, first, stderr := cli(t, append(append(append([]string{}, base...), opts...), "--remember")...)
	if code != 1 || !strings.HasPrefix(first, "FAIL missing on app_events") || !strings.Contains(stderr, "remembered missing on app_events") {
		t.Fatalf("--remember: exit %d\n%s%s", code, first, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, queries.ChecksFileName))
	if err != nil || !strings.Contains(string(b), `"against": "orders.csv"`) {
		t.Fatalf("checks.json: %s %v", b, err)
	}
	code, again, stderr := cli(t, base...)
	if code != 1 || again != first || !strings.Contains(stderr, "--against --against-key --where --match --by from "+filepath.Join(dir, "checks.json")) {
		t.Fatalf("remembered: exit %d\n%s%s", code, again, stderr)
	}
	// check all runs it with the remembered options, not "needs options".
	code, out, _ := cli(t, "check", "all", "--dir", dir, "--topic", seeds.TopicAppEvents, "--format", "json")
	var reports []struct{ Check, Status, Message string }
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	ran := false
	for _, r := range reports {
		if r.Check == "missing" {
			ran = r.Status == "fail" && strings.Contains(first, r.Message)
		}
	}
	if !ran {
		t.Errorf("check all did not run missing with the remembered options:\n%s", out)
	}
	// The command line's options win over the file's.
	if _, out, _ := cli(t, append(base, "--by", "city")...); !strings.Contains(out, "of them Harbor") || out == first {
		t.Errorf("--by city was not used:\n%s", out)
	}
	// Another question (another file of expected keys, another match)
	// takes nothing from the entry: before, it took the remembered --where
	// (order_completed events only) and --by, and failed users who had
	// events of other kinds.
	var users strings.Builder
	users.WriteString("user_id\n")
	seen := map[string]bool{}
	ob, _ := os.ReadFile(filepath.Join(dir, "orders.csv"))
	for _, line := range strings.Split(strings.TrimSpace(string(ob)), "\n")[1:] {
		if u := strings.Split(line, ",")[1]; !seen[u] {
			seen[u] = true
			users.WriteString(u + "\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "users.csv"), []byte(users.String()), 0o644)
	other := append(append([]string{}, base...), "--against", filepath.Join(dir, "users.csv"), "--against-key", "user_id", "--match", "value.user_id")
	if code, out, stderr := cli(t, other...); code != 0 || !strings.HasPrefix(out, "OK missing on app_events") ||
		!strings.Contains(stderr, "--against differs from the one "+filepath.Join(dir, "checks.json")+" remembers, so none of its options are used") {
		t.Errorf("another question: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := cli(t, "check", "all", "--dir", dir, "--topic", seeds.TopicAppEvents, "--remember"); code != 2 || !strings.Contains(stderr, "--remember") {
		t.Errorf("check all --remember: exit %d %s", code, stderr)
	}
	// A damaged file is said, never half used nor overwritten.
	os.WriteFile(filepath.Join(dir, queries.ChecksFileName), []byte(`{"format_version":1,"checks":[{"check":"missing","topic":"app_events","options":{"against":"../../etc/passwd"}}]}`), 0o644)
	if code, _, stderr := cli(t, "check", "lag", "--dir", dir, "--topic", seeds.TopicAppEvents); code != exitBadFolder || !strings.Contains(stderr, "checks.json") || !strings.Contains(stderr, "inside the snapshot folder") || !strings.Contains(stderr, "Try: fix or remove the folder's checks.json") {
		t.Errorf("damaged checks file: exit %d %s", code, stderr)
	}
}
