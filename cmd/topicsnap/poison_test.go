package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/internal/jsonbound"
	"github.com/topicsnap/topicsnap/kafkaconn"
	"github.com/topicsnap/topicsnap/server"
)

// poisonValues are values any producer can write, each past one of
// jsonbound's bounds (the first four) or merely strange (the rest); the
// first killed every reader of the folder before the bounds.
func poisonValues() []struct {
	name  string
	value []byte
	bound bool
} {
	members := func(n int) []byte {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"m%d":%d`, i, i)
		}
		b.WriteByte('}')
		return []byte(b.String())
	}
	return []struct {
		name  string
		value []byte
		bound bool
	}{
		{"an object nested 20,000 levels", []byte(strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)), true},
		{"an array nested 100,000 levels", []byte(`{"x":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}"), true},
		{"a value past 16 MiB", []byte(`{"id":"big","pad":"` + strings.Repeat("x", jsonbound.MaxBytes) + `"}`), true},
		{"10,001 members", members(jsonbound.MaxMembers + 1), true},
		{"a number past float64", []byte(`{"id":"e-huge","n":1e400}`), false},
		{"not UTF-8", []byte{0xff, 0xfe, '{', '}'}, false},
		{"NUL bytes", []byte("{\"id\":\"e\x00\"}"), false},
		{"a string of brackets", []byte(`{"id":"` + strings.Repeat("[{", 50_000) + `"}`), false},
		{"empty", []byte{}, false},
	}
}

// TestPoisonTopicEndToEnd: a topic holding the poison values beside 600
// ordinary records, on the real broker: dump, sql, two checks and serve's
// API all answer, the ordinary records' answers are exact, each poison
// value keeps its bytes, and the process's peak memory stays bounded.
func TestPoisonTopicEndToEnd(t *testing.T) {
	bs := brokers(t)
	ctx := t.Context()
	var rb [3]byte
	rand.Read(rb[:])
	topic := "poison_" + hex.EncodeToString(rb[:])
	big := "25165824" // 24 MiB: the 16 MiB value fits
	if err := dump.CreateTopic(ctx, kafkaconn.Conn{Brokers: bs}, topic, 3, map[string]*string{"max.message.bytes": &big}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchMaxBytes(32<<20), kgo.MaxBufferedBytes(256<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const ordinary = 600
	var recs []*kgo.Record
	sum := 0
	for i := range ordinary {
		sum += i
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint("user-", i%50)),
			Value: fmt.Appendf(nil, `{"id":"e%d","n":%d}`, i%500, i)})
	}
	poison := poisonValues()
	for i, p := range poison {
		recs = append(recs, &kgo.Record{Topic: topic, Partition: int32(i % 3), Key: p.value[:min(len(p.value), 64)], Value: p.value,
			Headers: []kgo.RecordHeader{{Key: "h", Value: p.value[:min(len(p.value), 4096)]}}})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, out, errs := cli(t, "dump", "--brokers", strings.Join(bs, ","), "--topic", topic, "--dir", dir); code != 0 {
		t.Fatalf("dump: %d %q %q", code, out, errs)
	}
	resetPeak(t)
	total := ordinary + len(poison)
	q := fmt.Sprintf(`SELECT count(*) AS n, count(value.id) AS ids, sum(value.n) FILTER (WHERE value.id LIKE 'e%%' AND value.id <> 'e-huge') AS s,
  count(*) FILTER (WHERE value_error LIKE 'bound: %%' AND value IS NULL AND value_raw IS NOT NULL) AS bound
FROM %q`, topic)
	code, out, errs := cli(t, "sql", "--dir", dir, "-c", q, "--format", "json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 {
		t.Fatalf("sql: %d %q %q", code, out, errs)
	}
	// ids: the ordinary 600 and the string of brackets; "big" is past a
	// bound, a raw NUL inside a string is not JSON, and "e-huge" does not
	// fit the type sampled (its n, 1e400, is no integer): its value is
	// NULL and value_error says why.
	if got := fmt.Sprint(rows[0]["n"], rows[0]["ids"], rows[0]["s"], rows[0]["bound"]); got != fmt.Sprint(total, ordinary+1, sum, 4) {
		t.Errorf("sql: n ids sum bound = %s, want %d %d %d %d", got, total, ordinary+1, sum, 4)
	}
	code, out, errs = cli(t, "check", "values", "--dir", dir, "--topic", topic, "--format", "json")
	var doc struct {
		Status  string         `json:"status"`
		Summary map[string]any `json:"summary"`
	}
	if code != 0 && code != 1 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("check values: %d %q %q", code, out, errs)
	}
	if doc.Status != "warn" || doc.Summary["past_bound"] != float64(4) || doc.Summary["not_sampled_type"] != float64(1) || doc.Summary["records"] != float64(total) {
		t.Errorf("check values: %s %v", doc.Status, doc.Summary)
	}
	code, out, errs = cli(t, "check", "duplicates", "--dir", dir, "--topic", topic, "--id", "value.id", "--format", "json")
	if json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("check duplicates: %d %q %q", code, out, errs)
	}
	// e0..e99 appear twice among the ordinary records.
	if doc.Summary["duplicate_ids"] != float64(100) {
		t.Errorf("check duplicates: %s %v", doc.Status, doc.Summary)
	}
	// serve: the API and a check page answer from the same folder.
	s, err := server.New(ctx, server.Options{Dir: dir, QueryTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.PostForm(ts.URL+"/api/sql", url.Values{"sql": {fmt.Sprintf(`SELECT count(*) AS n FROM %q WHERE value_error LIKE 'bound: %%'`, topic)}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"n":4`) && !strings.Contains(string(body), `[4]`) {
		t.Errorf("/api/sql: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(ts.URL + "/api/checks/values?topic=" + url.QueryEscape(topic))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"past_bound":4`) {
		t.Errorf("/api/checks/values: %d %s", resp.StatusCode, body)
	}
	// The 16 MiB value is read a few times over (the Parquet page, DuckDB's
	// copy, Go's); nothing grows with the depth or the member count.
	if peak := peakRSS(t); peak > 1536<<20 {
		t.Errorf("peak resident memory %d MiB over sql, two checks and serve; want under 1536 MiB", peak>>20)
	} else {
		t.Logf("peak resident memory over sql, two checks and serve: %d MiB", peak>>20)
	}
}

// resetPeak resets this process's peak resident memory (VmHWM), so peakRSS
// measures what follows.
func resetPeak(t *testing.T) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("reset the peak resident memory: %v", err)
	}
}

// peakRSS is this process's peak resident memory in bytes since resetPeak.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
