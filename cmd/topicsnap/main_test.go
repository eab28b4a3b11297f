package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

func brokers(t *testing.T) []string { return dumptest.Brokers(t) }

// cli runs topicsnap in-process and returns its exit code and output.
func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestEndToEnd(t *testing.T) {
	bs := brokers(t)
	dir := t.TempDir()
	ctx := context.Background()
	// A topic of its own: on a real broker the test may run again (-count=2,
	// a second make test), where app_events already held the first run's
	// events and the count came out twice the truth (2090, not 1045).
	topic := fmt.Sprintf("app_events_%d", time.Now().UnixNano()%1e9)
	data, _, err := loadTeaShop(ctx, kafkaconn.Conn{Brokers: bs}, dir, topic, 300)
	if err != nil {
		t.Fatal(err)
	}
	b := strings.Join(bs, ",")

	// A second dump finds nothing new.
	code, out, errs := cli(t, "dump", "--brokers", b, "--topic", topic, "--dir", dir)
	if code != 0 || !strings.Contains(out, "dumped 0 records") {
		t.Fatalf("dump again: %d %q %q", code, out, errs)
	}
	code, out, _ = cli(t, "sql", "--dir", dir, "-c", `SELECT count(*) AS n FROM `+topic, "--format", "json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || int(rows[0]["n"].(float64)) != data.Truth.Events {
		t.Fatalf("sql: %d %q", code, out)
	}
	code, out, _ = cli(t, "check", "missing", "--dir", dir, "--topic", topic, "--where", "value.event_name = 'order_completed'",
		"--match", "value.order_id", "--against", filepath.Join(dir, "orders.csv"), "--against-key", "order_id", "--by", "platform", "--format", "json")
	var doc map[string]any
	json.Unmarshal([]byte(out), &doc)
	if code != 1 || doc["status"] != "fail" || int(doc["summary"].(map[string]any)["missing"].(float64)) != data.Truth.OrdersMissingCompleted {
		t.Fatalf("check missing: exit %d %s", code, out)
	}
	if code, out, _ = cli(t, "check", "gaps", "--dir", dir, "--topic", topic); code != 0 || !strings.HasPrefix(out, "OK gaps on "+topic+": 0 missing offsets on all 6 partitions") {
		t.Fatalf("check gaps: %d %q", code, out)
	}
	if code, _, _ = cli(t, "check", "duplicates", "--dir", dir, "--topic", topic, "--id", "value.event_id", "--strict"); code != 1 {
		t.Fatalf("duplicates --strict on a warn: exit %d", code)
	}
	// --format parquet writes a Parquet file to stdout that DuckDB reads back.
	pq, err := os.Create(filepath.Join(t.TempDir(), "out.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if code := run(ctx, []string{"sql", "--dir", dir, "-c", `SELECT "partition", count(*) AS n FROM ` + topic + ` GROUP BY 1`, "--format", "parquet"},
		strings.NewReader(""), pq, &bytes.Buffer{}); code != 0 {
		t.Fatalf("sql --format parquet: exit %d", code)
	}
	pq.Close()
	code, out, _ = cli(t, "sql", "--dir", dir, "-c", fmt.Sprintf(`SELECT sum(n) AS n FROM read_parquet('%s')`, pq.Name()), "--format", "csv")
	if code != 0 || strings.TrimSpace(out) != fmt.Sprintf("n\n%d", data.Truth.Events) {
		t.Fatalf("read back the parquet output: %d %q", code, out)
	}
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	if code != 0 || !strings.Contains(out, "all match") {
		t.Fatalf("verify: %d %q", code, out)
	}
	// Truncate a file: verify names it, exits 9; other topics' queries still work.
	files, _ := filepath.Glob(filepath.Join(dir, "topic="+topic, "partition=0", "*.parquet"))
	st, _ := os.Stat(files[0])
	os.Truncate(files[0], st.Size()/2)
	code, out, _ = cli(t, "catalog", "verify", "--dir", dir)
	if code != exitBadFolder || !strings.Contains(out, filepath.Base(files[0])) || !strings.Contains(out, "truncated") {
		t.Fatalf("verify truncated: %d %q", code, out)
	}
}

func TestUsageErrorsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		text string
	}{
		{[]string{"dump", "--dir", dir}, exitError, "name a topic"},
		{[]string{"dump", "--brokers", "127.0.0.1:1", "--topic", "x", "--dir", dir, "--timeout", "300ms"}, exitUnreachable, "127.0.0.1:1"},
		{[]string{"dump", "--brokers", "127.0.0.1:1", "--topic", "x", "--dir", dir, "--follow", "--wait-unreachable", "1m"}, exitError, "--follow waits cluster outages out"},
		{[]string{"dump", "--brokers", "127.0.0.1:1", "--topic", "x", "--dir", dir, "--wait-unreachable", "-1s"}, exitError, "--wait-unreachable -1s"},
		{[]string{"restore", "--brokers", "127.0.0.1:1", "--topic", "x", "--dir", dir, "--wait-unreachable", "-1s"}, exitError, "--wait-unreachable -1s"},
		{[]string{"sql", "--dir", dir, "-c", "SELECT 1", "--format", "xml"}, exitError, "--format"},
		{[]string{"check", "gaps", "--dir", dir}, exitError, "--topic"},
		{[]string{"check", "gaps", "--dir", dir, "--topic", "nope"}, exitUnknownTopic, "no snapshot"},
		{[]string{"check", "freshness", "--dir", dir, "--topic", "nope", "--silence", "soon"}, exitError, "--silence"},
		{[]string{"nosuchcommand"}, exitError, "unknown command"},
	}
	for _, c := range cases {
		code, _, errs := cli(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.text) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.text)
		}
	}
	// A folder written by a newer format is refused by name.
	os.WriteFile(filepath.Join(dir, "topicsnap.json"), []byte(`{"format_version": 99}`), 0o644)
	code, _, errs := cli(t, "ls", "--dir", dir)
	if code != exitBadFolder || !strings.Contains(errs, "newer") {
		t.Errorf("newer folder: %d %q", code, errs)
	}
}
