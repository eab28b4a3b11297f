package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/seeds"
)

const topic = "shop.events-v2"

func sp(s string) *string { return &s }

// fixture writes a small snapshot folder by code: topic "shop.events-v2"
// over two partitions and four minutes, JSON values (one not JSON), a
// repeated record, an aborted transaction, a lost range, a consumer group,
// and expected.csv, a file of expected event ids.
func fixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 5, 6, 10, 0, 0, 0, time.UTC).UnixMilli()
	for p := int32(0); p < 2; p++ {
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		var rows []catalog.Row
		for i := int64(0); i < 8; i++ {
			v := fmt.Sprintf(`{"event_id":"e%d-%d","event_name":"view_menu","order":{"total":%d}}`, p, i, i*10)
			rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: base + i*30_000, TimestampType: catalog.TimestampCreate,
				Key: []byte(fmt.Sprintf("u%d", p)), Value: []byte(v)})
		}
		if p == 0 {
			rows[7].Value = rows[6].Value // a duplicate
		}
		if p == 1 {
			rows[4].Value = []byte("not json")
			rows = append(rows,
				catalog.Row{Partition: 1, Offset: 8, Timestamp: base + 300_000, Transactional: true, TxnState: sp(catalog.TxnAborted), ProducerID: 9, Value: []byte(`{"event_id":"x"}`)},
				catalog.Row{Partition: 1, Offset: 9, Timestamp: base + 300_000, Transactional: true, Control: true, ControlType: sp(catalog.ControlAbort), TxnState: sp(catalog.TxnAborted), ProducerID: 9},
			)
		}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: fe.LastOffset + 1, Files: []catalog.FileEntry{fe}}
		if p == 0 {
			m.Lost = []catalog.LostRange{{Kind: catalog.LostBetween, From: 100, To: 109, DetectedAt: time.Now()}}
		}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: topic, AsOf: time.UnixMilli(base + 400_000), PartitionCount: 2, ReplicationFactor: 1,
		Configs:    map[string]string{"cleanup.policy": "delete"},
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 8}, {Partition: 1, HighWatermark: 10}},
		Groups: []catalog.GroupState{{Group: "watchers", State: "Stable", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 3}, {Partition: 1, Offset: 10}},
			Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "watcher-1", Assigned: []int32{0, 1}}}}},
		Dumped: []int32{0, 1},
	}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "expected.csv"), []byte("event_id\ne0-1\ne1-2\ne9-9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// newTestServer serves a fixture folder on loopback.
func newTestServer(t *testing.T, o Options) (*Server, *httptest.Server) {
	t.Helper()
	if o.Dir == "" {
		o.Dir = fixture(t)
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.QueryTimeout == 0 {
		o.QueryTimeout = 3 * time.Second
	}
	s, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

type response struct {
	code   int
	header http.Header
	body   string
}

func do(t *testing.T, method, u string, body io.Reader, header map[string]string) response {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header, string(b)}
}

func get(t *testing.T, u string) response { return do(t, http.MethodGet, u, nil, nil) }

func q(path string, kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return path + "?" + v.Encode()
}

func TestPages(t *testing.T) {
	dir := fixture(t)
	os.Symlink("/etc", filepath.Join(dir, "escape"))
	nb := t.TempDir()
	os.WriteFile(filepath.Join(nb, "monday.md"), []byte("# Monday at the tea shop\n\ntext\n\n```sql\nSELECT 1\n```\n"), 0o644)
	_, ts := newTestServer(t, Options{Dir: dir, NotebookDirs: []string{nb}})
	cases := []struct {
		name, path string
		code       int
		want       []string
	}{
		{"overview", "/", 200, []string{topic, "<svg", "class=\"lost\"", "s1", "gaps", "Monday at the tea shop", "monday.md"}},
		{"overview lists every check", "/", 200, []string{"/checks/missing?topic=shop.events-v2", "needs options", "/checks/freshness"}},
		{"gaps page draws coverage", q("/checks/gaps", "topic", topic), 200, []string{"<svg", "offset coverage", "class=\"lost\"", "/api/checks/gaps?topic="}},
		{"skew draws fair share", q("/checks/skew", "topic", topic), 200, []string{"<svg", "fair 50.0%"}},
		{"skew what-if twin", q("/checks/skew", "topic", topic, "what_if_key", "value.event_id", "what_if_partitions", "4"), 200, []string{"What if keyed by value.event_id over 4 partitions", "fair 25.0%"}},
		{"freshness timeline", q("/checks/freshness", "topic", topic), 200, []string{"<svg", `class="heat h4"`, "records per minute"}},
		{"lag bars", q("/checks/lag", "topic", topic), 200, []string{"<svg", "watchers · p0"}},
		{"duplicates over time", q("/checks/duplicates", "topic", topic), 200, []string{"<svg", "duplicates per minute"}},
		{"missing with a file inside", q("/checks/missing", "topic", topic, "against", "expected.csv", "against_key", "event_id", "match", "value.event_id"), 200, []string{"e9-9"}},
		{"missing needs options", q("/checks/missing", "topic", topic), 400, []string{"needs", "<form"}},
		{"topic defaults to the only one", "/checks/gaps", 200, []string{"<svg"}},
		{"unknown check", "/checks/nope", 404, []string{"unknown check"}},
		{"bad number", q("/checks/skew", "topic", topic, "hot", "lots"), 400, []string{"hot &#34;lots&#34;: must be a number"}},
		{"bad int", q("/checks/skew", "topic", topic, "what_if_partitions", "-3"), 400, []string{"what_if_partitions"}},
		{"against escapes", q("/checks/missing", "topic", topic, "against", "../../etc/passwd"), 400, []string{"inside the snapshot folder"}},
		{"sql page", "/sql", 200, []string{"<textarea", "/static/sql.js"}},
		{"stylesheet", "/static/style.css", 200, []string{"svg.chart"}},
		{"healthz", "/healthz", 200, []string{"ok"}},
		{"not found", "/nothing-here", 404, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := get(t, ts.URL+c.path)
			if r.code != c.code {
				t.Fatalf("GET %s: %d, want %d\n%s", c.path, r.code, c.code, r.body)
			}
			for _, w := range c.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("GET %s: no %q in\n%s", c.path, w, r.body)
				}
			}
			if strings.Contains(r.body, dirPrefix(t)) {
				t.Errorf("GET %s: the page shows a temporary path", c.path)
			}
		})
	}
}

// dirPrefix is the start of every test folder, which pages must not show.
func dirPrefix(t *testing.T) string { return os.TempDir() + string(filepath.Separator) }

func TestAPI(t *testing.T) {
	dir := fixture(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("event_id\nx\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "escape"))
	_, ts := newTestServer(t, Options{Dir: dir})
	cases := []struct {
		name, path string
		code       int
		want       []string
	}{
		{"topics", "/api/topics", 200, []string{`"name":"shop.events-v2"`, `"partitions":2`}},
		{"snapshots", "/api/snapshots", 200, []string{`"snapshot_id":"s1"`, `"dumped_partitions":[0,1]`}},
		{"gaps", q("/api/checks/gaps", "topic", topic), 200, []string{`"check":"gaps"`}},
		{"unknown check", "/api/checks/nope", 404, []string{`"error"`}},
		{"unknown topic", q("/api/checks/gaps", "topic", "nope"), 400, []string{`"error"`, "has no snapshot in the snapshot folder"}},
		{"bad number", q("/api/checks/freshness", "topic", topic, "silence", "NaN"), 400, []string{`"error":"silence \"NaN\": must be a duration`}},
		{"bad limit", q("/api/checks/gaps", "topic", topic, "limit", "1000000000"), 400, []string{`"error":"limit`}},
		{"an option twice", q("/api/checks/duplicates", "topic", topic) + "&id=key&id=value", 400, []string{`"error":"id is given 2 times: give it once"`}},
		{"the topic twice", q("/api/checks/gaps", "topic", topic) + "&topic=other", 400, []string{`"error":"topic is given 2 times`}},
		{"bad expression", q("/api/checks/duplicates", "topic", topic, "id", "no_such_column"), 400, []string{`"error"`}},
		{"against dot-dot", q("/api/checks/missing", "topic", topic, "against", "../../etc/passwd", "against_key", "a", "match", "key"), 400, []string{"inside the snapshot folder"}},
		{"against absolute", q("/api/checks/missing", "topic", topic, "against", "/etc/passwd", "against_key", "a", "match", "key"), 400, []string{"inside the snapshot folder"}},
		{"against symlink out", q("/api/checks/missing", "topic", topic, "against", "escape/secret.csv", "against_key", "event_id", "match", "key"), 400, []string{"leads out of the snapshot folder"}},
		{"against missing file", q("/api/checks/missing", "topic", topic, "against", "nope.csv", "against_key", "a", "match", "key"), 400, []string{"no file nope.csv"}},
		{"against inside", q("/api/checks/missing", "topic", topic, "against", "./expected.csv", "against_key", "event_id", "match", "value.event_id"), 200, []string{`"check":"missing"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := get(t, ts.URL+c.path)
			if r.code != c.code {
				t.Fatalf("GET %s: %d, want %d\n%s", c.path, r.code, c.code, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
			for _, w := range c.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("GET %s: no %q in %s", c.path, w, r.body)
				}
			}
			if strings.Contains(r.body, dirPrefix(t)) {
				t.Errorf("GET %s: the answer shows a temporary path: %s", c.path, r.body)
			}
		})
	}
}

func TestCheckJSONShape(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	r := get(t, ts.URL+q("/api/checks/gaps", "topic", topic))
	if r.code != 200 {
		t.Fatalf("%d %s", r.code, r.body)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.body), &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"check", "topic", "status", "message", "summary", "rows"}
	if len(doc) != len(want) {
		t.Errorf("keys %v, want exactly %v", keys(doc), want)
	}
	for _, k := range want {
		if _, ok := doc[k]; !ok {
			t.Errorf("no %q in %s", k, r.body)
		}
	}
	var rep struct {
		Check, Topic, Status, Message string
		Summary                       map[string]any
		Rows                          []map[string]any
	}
	if err := json.Unmarshal([]byte(r.body), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Check != "gaps" || rep.Topic != topic || rep.Rows == nil {
		t.Errorf("report %+v", rep)
	}
	switch rep.Status {
	case "ok", "warn", "fail":
	default:
		t.Errorf("status %q", rep.Status)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

const headersSQL = `SELECT [{'key': 'content-type', 'value': 'application/json'::BLOB}, {'key': 'raw', 'value': '\xFF\x00'::BLOB}] AS headers, NULL::VARCHAR AS n, 7 AS i`

func TestSQL(t *testing.T) {
	_, ts := newTestServer(t, Options{MaxRows: 5, QueryTimeout: 2 * time.Second})
	js := map[string]string{"Content-Type": "application/json"}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	body := func(sql, format string) io.Reader {
		b, _ := json.Marshal(map[string]string{"sql": sql, "format": format})
		return bytes.NewReader(b)
	}
	cases := []struct {
		name   string
		method string
		body   io.Reader
		header map[string]string
		code   int
		want   []string
	}{
		{"rows as json", "POST", body(`SELECT "partition", count(*) AS n FROM "shop.events-v2" GROUP BY ALL ORDER BY ALL`, "json"), js, 200, []string{`"partition":0,"n":8`, `"partition":1,"n":8`}},
		{"json by default", "POST", body(`SELECT 1 AS one`, ""), js, 200, []string{`"one":1`}},
		// A header's value: base64 in json (exact), its text in text (the
		// SQL page's table) and csv when it is UTF-8, \xHH escapes when not.
		{"headers in json", "POST", body(headersSQL, "json"), js, 200, []string{`"value":"YXBwbGljYXRpb24vanNvbg=="`, `"value":"/wA="`, `"n":null`}},
		{"headers as text", "POST", body(headersSQL, "text"), js, 200, []string{`[{\"key\":\"content-type\",\"value\":\"application/json\"},{\"key\":\"raw\",\"value\":\"\\\\xFF\\\\x00\"}]`, `"n":null`, `"i":"7"`}},
		{"headers in csv", "POST", body(headersSQL, "csv"), js, 200, []string{`""value"":""application/json""`}},
		{"csv", "POST", body(`SELECT topic, count(*) AS files FROM files GROUP BY ALL`, "csv"), js, 200, []string{"topic,files\nshop.events-v2,2\n"}},
		// A UUID is its text in every format: duckdb-go scans it into 16
		// bytes, which were shown as a BLOB (base64, \xHH escapes).
		{"uuid in json", "POST", body(`SELECT UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u`, "json"), js, 200, []string{`"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`}},
		{"uuid as text", "POST", body(`SELECT UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u`, "text"), js, 200, []string{`"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`}},
		{"uuid in csv", "POST", body(`SELECT UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS u`, "csv"), js, 200, []string{"u\na0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n"}},
		// Every surface reads a value through display.Typed and display:
		// a TIME was 0001-01-01T12:00:00Z, a TIMETZ lost its offset, a
		// UUID in a LIST or STRUCT was base64, 'infinity'::TIMESTAMP was
		// 294247-01-10, a TIMESTAMP_NS lost its nanoseconds as text and
		// csv, a MAP holding NaN was a 500.
		{"time in json", "POST", body(`SELECT TIME '12:00' AS t, TIMETZ '12:00:00+01' AS tz`, "json"), js, 200, []string{`"t":"12:00:00"`, `"tz":"12:00:00+01"`}},
		{"time as text", "POST", body(`SELECT TIME '12:00' AS t, TIMETZ '12:00:00+01' AS tz`, "text"), js, 200, []string{`"t":"12:00:00"`, `"tz":"12:00:00+01"`}},
		{"time in csv", "POST", body(`SELECT TIME '12:00' AS t, TIMETZ '12:00:00+01' AS tz`, "csv"), js, 200, []string{"t,tz\n12:00:00,12:00:00+01\n"}},
		{"timestamp_ns as text", "POST", body(`SELECT TIMESTAMP_NS '2020-01-01 00:00:00.123456789' AS t`, "text"), js, 200, []string{`"t":"2020-01-01 00:00:00.123456789Z"`}},
		{"timestamp_ns in csv", "POST", body(`SELECT TIMESTAMP_NS '2020-01-01 00:00:00.123456789' AS t`, "csv"), js, 200, []string{"2020-01-01 00:00:00.123456789Z"}},
		// A DATE was a timestamp at midnight, 2026-12-07T00:00:00Z.
		{"date in json", "POST", body(`SELECT DATE '2026-12-07' AS d, [DATE '2026-12-08'] AS l`, "json"), js, 200, []string{`"d":"2026-12-07"`, `"l":["2026-12-08"]`}},
		{"date in csv", "POST", body(`SELECT DATE '2026-12-07' AS d`, "csv"), js, 200, []string{"d\n2026-12-07\n"}},
		{"infinity in json", "POST", body(`SELECT 'infinity'::TIMESTAMP AS t, '-infinity'::DATE AS d`, "json"), js, 200, []string{`"t":"infinity"`, `"d":"-infinity"`}},
		{"nested uuid in json", "POST", body(`SELECT [UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'] AS l, {'u': UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'} AS s`, "json"), js, 200, []string{`"l":["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]`, `"s":{"u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`}},
		{"nested uuid in csv", "POST", body(`SELECT [UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'] AS l`, "csv"), js, 200, []string{`a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11`}},
		{"map nan in json", "POST", body(`SELECT MAP {'a': 'nan'::DOUBLE} AS m, 'nan'::DOUBLE AS n`, "json"), js, 200, []string{`"m":{"a":"NaN"}`, `"n":"NaN"`}},
		{"form encoded", "POST", strings.NewReader(url.Values{"sql": {"SELECT 41+1 AS answer"}}.Encode()), form, 200, []string{`"answer":42`}},
		{"row limit", "POST", body(`SELECT * FROM range(100) r(i)`, "json"), js, 200, []string{`"i":4`}},
		{"COPY", "POST", body(`COPY (SELECT 1) TO 'x.csv'`, "json"), js, 400, []string{`"error"`, "SELECT"}},
		{"ATTACH", "POST", body(`ATTACH 'x.db' AS x`, "json"), js, 400, []string{`"error"`}},
		{"INSTALL", "POST", body(`INSTALL httpfs`, "json"), js, 400, []string{`"error"`}},
		{"read_csv", "POST", body(`SELECT * FROM read_csv('/etc/passwd')`, "json"), js, 400, []string{"read_csv() reads one CSV file of the snapshot folder", "not a regular file inside the snapshot folder"}},
		{"two statements", "POST", body(`SELECT 1; SELECT 2`, "json"), js, 400, []string{"exactly one statement"}},
		{"SET", "POST", body(`SET threads = 8`, "json"), js, 400, []string{`"error"`}},
		{"syntax error", "POST", body(`SELEC 1`, "json"), js, 400, []string{`"error"`}},
		// DuckDB's tree of a DOUBLE past float64 holds a bare Infinity,
		// not JSON: that was a 500 "parse query: invalid character 'I'".
		{"number past a DOUBLE", "POST", body(`SELECT 1e400 AS x`, "json"), js, 400, []string{"refused", "1e400", "'infinity'::DOUBLE"}},
		// DuckDB stops reading at a NUL: "SELECT 1\x00; COPY ..." was
		// answered as SELECT 1, the rest dropped without a word.
		{"NUL in the text", "POST", body("SELECT 1 AS one\x00 WHERE false", "json"), js, 400, []string{"refused", "NUL byte (at byte 15)"}},
		{"infinity written as text", "POST", body(`SELECT 'infinity'::DOUBLE AS x`, "json"), js, 200, []string{`"x":"+Inf"`}},
		{"no sql", "POST", body(``, "json"), js, 400, []string{"no SQL given"}},
		{"unknown format", "POST", body(`SELECT 1`, "xml"), js, 400, []string{"unknown format"}},
		{"not json", "POST", strings.NewReader(`{"sql":`), js, 400, []string{"not JSON"}},
		{"timeout", "POST", body(`SELECT count(*) FROM range(100000000000) a`, "json"), js, 408, []string{"timeout"}},
		{"GET is not allowed", "GET", nil, nil, 405, nil},
		{"oversize body", "POST", body(`SELECT '`+strings.Repeat("x", 70<<10)+`'`, "json"), js, 413, []string{"too large"}},
		{"oversize form, unknown length", "POST", io.MultiReader(strings.NewReader("sql="), strings.NewReader(strings.Repeat("x", 70<<10))), form, 413, []string{"larger than"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, ts.URL+"/api/sql", c.body, c.header)
			if r.code != c.code {
				t.Fatalf("%d, want %d: %s", r.code, c.code, r.body)
			}
			for _, w := range c.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("no %q in %s", w, r.body)
				}
			}
		})
	}
	t.Run("row limit says so", func(t *testing.T) {
		r := do(t, "POST", ts.URL+"/api/sql", body(`SELECT * FROM range(100) r(i)`, "json"), js)
		if r.header.Get("X-Topicsnap-Rows") != "5" || r.header.Get("X-Topicsnap-Truncated") != "true" || strings.Contains(r.body, `"i":5`) {
			t.Errorf("%v %s", r.header, r.body)
		}
	})
	t.Run("arrow", func(t *testing.T) {
		r := do(t, "POST", ts.URL+"/api/sql", body(`SELECT "partition", "offset", "timestamp", key, key_raw FROM "shop.events-v2" ORDER BY ALL LIMIT 3`, "arrow"), js)
		if r.code != 200 || r.header.Get("Content-Type") != "application/vnd.apache.arrow.stream" {
			t.Fatalf("%d %v %q", r.code, r.header, r.body)
		}
		rd, err := ipc.NewReader(strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		var n int64
		for rd.Next() {
			n += rd.RecordBatch().NumRows()
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		if got := rd.Schema().String(); n != 3 || !strings.Contains(got, "partition: type=int") || !strings.Contains(got, "timestamp: type=timestamp[us, tz=") || !strings.Contains(got, "key_raw: type=binary") {
			t.Errorf("%d rows, schema %s", n, got)
		}
	})
}

func TestSQLOffByDefaultOffLoopback(t *testing.T) {
	_, ts := newTestServer(t, Options{Addr: "0.0.0.0:0", Token: "t0ken"})
	auth := map[string]string{"Authorization": "Bearer t0ken", "Content-Type": "application/json"}
	if r := do(t, "POST", ts.URL+"/api/sql", strings.NewReader(`{"sql":"SELECT 1"}`), auth); r.code != http.StatusForbidden {
		t.Errorf("sql off loopback: %d %s", r.code, r.body)
	}
	if r := do(t, "GET", ts.URL+q("/api/checks/duplicates", "topic", topic, "id", "key"), nil, auth); r.code != 400 || !strings.Contains(r.body, "SQL is off") {
		t.Errorf("expression option with SQL off: %d %s", r.code, r.body)
	}
	if r := do(t, "GET", ts.URL+q("/api/checks/duplicates", "topic", topic), nil, auth); r.code != 200 {
		t.Errorf("check without expressions: %d %s", r.code, r.body)
	}
}

func TestSecurity(t *testing.T) {
	if _, err := New(context.Background(), Options{Dir: t.TempDir(), Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("no token off loopback: %v", err)
	}
	if _, err := New(context.Background(), Options{Dir: t.TempDir(), Addr: ":8080"}); err == nil {
		t.Fatal("no token on every interface: no error")
	}
	s, ts := newTestServer(t, Options{Addr: "0.0.0.0:0", Token: "s3cret"})
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	name := testCookieName(t, ts)
	cookie := func(v string) map[string]string { return map[string]string{"Cookie": name + "=" + v} }
	cases := []struct {
		name   string
		method string
		path   string
		header map[string]string
		body   string
		code   int
	}{
		{"no token, API", "GET", "/api/topics", nil, "", 401},
		{"no token, page goes to login", "GET", "/", nil, "", 303},
		{"no token, metrics", "GET", "/metrics", nil, "", 401},
		{"wrong bearer", "GET", "/api/topics", bearer("nope"), "", 401},
		{"wrong bearer on a page", "GET", "/", bearer("nope"), "", 401},
		{"right bearer", "GET", "/api/topics", bearer("s3cret"), "", 200},
		{"right bearer, page", "GET", "/", bearer("s3cret"), "", 200},
		{"basic auth is not a bearer", "GET", "/api/topics", map[string]string{"Authorization": "Basic czNjcmV0"}, "", 401},
		{"raw token as cookie", "GET", "/api/topics", cookie("s3cret"), "", 401},
		{"session cookie", "GET", "/api/topics", cookie(s.sessions.create()), "", 200},
		{"healthz is open", "GET", "/healthz", nil, "", 200},
		{"login form is open", "GET", "/login", nil, "", 200},
		{"wrong login", "POST", "/login", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "token=nope", 401},
		{"cross-site post", "POST", "/login", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}, "token=s3cret", 403},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, c.method, ts.URL+c.path, strings.NewReader(c.body), c.header)
			if r.code != c.code {
				t.Fatalf("%s %s: %d, want %d: %s", c.method, c.path, r.code, c.code, r.body)
			}
			checkHeaders(t, r)
		})
	}

	t.Run("login sets a cookie that works", func(t *testing.T) {
		form := url.Values{"token": {"s3cret"}, "next": {"/checks/gaps?topic=" + topic}}.Encode()
		r := do(t, "POST", ts.URL+"/login", strings.NewReader(form), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if r.code != http.StatusSeeOther || r.header.Get("Location") != "/checks/gaps?topic="+topic {
			t.Fatalf("login: %d %v", r.code, r.header)
		}
		res := &http.Response{Header: r.header}
		var session *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == name {
				session = c
			}
		}
		if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode || strings.Contains(session.Value, "s3cret") {
			t.Fatalf("cookie %+v", session)
		}
		if r := do(t, "GET", ts.URL+"/", nil, cookie(session.Value)); r.code != 200 || !strings.Contains(r.body, topic) {
			t.Errorf("with the cookie: %d", r.code)
		}
	})
	t.Run("login does not redirect elsewhere", func(t *testing.T) {
		form := url.Values{"token": {"s3cret"}, "next": {"//evil.example/"}}.Encode()
		r := do(t, "POST", ts.URL+"/login", strings.NewReader(form), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		if r.header.Get("Location") != "/" {
			t.Errorf("redirect to %q", r.header.Get("Location"))
		}
	})
}

func TestLoopbackOnlyAnswersLocalNames(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	r := do(t, "GET", ts.URL+"/api/topics", nil, nil)
	if r.code != 200 {
		t.Fatalf("local: %d", r.code)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/topics", nil)
	req.Host = "rebound.evil.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("foreign Host: %d", res.StatusCode)
	}
}

// checkHeaders checks the security headers every answer carries, and
// that none is a CORS header.
func checkHeaders(t *testing.T, r response) {
	t.Helper()
	for k, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s: %q", k, got)
		}
	}
	if csp := r.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	for k := range r.header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("CORS header %s", k)
		}
	}
}

func TestCacheAndRefresh(t *testing.T) {
	dir := fixture(t)
	s, ts := newTestServer(t, Options{Dir: dir})
	path := ts.URL + q("/api/checks/gaps", "topic", topic)
	first := get(t, path)
	hits0, _ := s.metrics.cacheCounts("reports")
	// The same options spelled differently are the same entry.
	get(t, ts.URL+q("/api/checks/gaps", "topic", topic, "limit", "50"))
	get(t, path)
	hits1, _ := s.metrics.cacheCounts("reports")
	if hits1 != hits0+2 {
		t.Errorf("hits %d then %d", hits0, hits1)
	}
	if r := get(t, path); r.body != first.body {
		t.Errorf("cached report differs")
	}
	get(t, ts.URL+"/")
	get(t, ts.URL+"/")
	if h, _ := s.metrics.cacheCounts("overview"); h < 1 {
		t.Errorf("overview not cached")
	}

	// A dump commits a second topic: it shows without a restart.
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	tp := catalog.TopicPartition{Topic: "late.topic", Partition: 0}
	fe, err := d.WriteDataFile(t.Context(), tp, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: 1700000000000, Value: []byte("v")}}, "s2")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteManifest(t.Context(), &catalog.Manifest{Topic: "late.topic", NextOffset: 1, Files: []catalog.FileEntry{fe}}); err != nil {
		t.Fatal(err)
	}
	_, misses0 := s.metrics.cacheCounts("reports")
	deadline := time.Now().Add(5 * time.Second)
	for {
		if r := get(t, ts.URL+"/api/topics"); strings.Contains(r.body, "late.topic") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new topic never showed")
		}
		time.Sleep(200 * time.Millisecond)
	}
	get(t, path)
	if _, misses1 := s.metrics.cacheCounts("reports"); misses1 != misses0+1 {
		t.Errorf("a new catalog version should recompute: misses %d then %d", misses0, misses1)
	}

	m := get(t, ts.URL+"/metrics")
	for _, w := range []string{
		`topicsnap_http_requests_total{path="GET /api/checks/{name}",code="200"}`,
		`topicsnap_http_request_duration_seconds_bucket{path="GET /api/topics",le="+Inf"}`,
		`topicsnap_cache_hits_total{cache="reports"}`,
		`topicsnap_report_cache_max_bytes 67108864`,
		`topicsnap_catalog_files 3`,
		`topicsnap_topic_records{topic="shop.events-v2"} 18`,
		`topicsnap_topic_lost_ranges{topic="shop.events-v2"} 1`,
		`topicsnap_topic_lost_ranges{topic="late.topic"} 0`,
	} {
		if !strings.Contains(m.body, w) {
			t.Errorf("no %s in\n%s", w, m.body)
		}
	}
}

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Dir: fixture(t), Addr: "127.0.0.1:0"}, func(a string) { addrs <- a }) }()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatal(err)
	}
	if r := get(t, "http://"+addr+"/healthz"); r.code != 200 || r.body != "ok" {
		t.Errorf("healthz: %d %q", r.code, r.body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func TestConcurrentSQLIsBounded(t *testing.T) {
	s, ts := newTestServer(t, Options{Dir: fixture(t), MaxConcurrentSQL: 1, QueryTimeout: 3 * time.Second})
	slow := `{"sql": "SELECT count(*) FROM range(1000000000000)"}`
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/api/sql", "application/json", strings.NewReader(slow))
		if err == nil {
			resp.Body.Close()
			done <- resp.StatusCode
		} else {
			done <- 0
		}
	}()
	// Wait until the slow query holds the one slot.
	for deadline := time.Now().Add(5 * time.Second); len(s.sqlSlots) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the slow query never took its slot")
		}
	}
	resp, err := http.Post(ts.URL+"/api/sql", "application/json", strings.NewReader(`{"sql": "SELECT 1"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second query while one runs: %d, want 429", resp.StatusCode)
	}
	if code := <-done; code != http.StatusRequestTimeout {
		t.Fatalf("slow query: %d, want 408", code)
	}
}

// TestMembershipHistoryPageAndAPI: on the wind farm's incident folder, the
// history page draws partition 18's three runs (writer, watcher, writer)
// with who and how far they committed, and /api/history gives the same
// runs as group_history.
func TestMembershipHistoryPageAndAPI(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteWindFarmIncidentFolder(t.Context(), dir, seeds.WindFarmConfig{}); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{Dir: dir, Addr: "127.0.0.1:0", QueryTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/history")
	if code != 200 || !strings.Contains(body, `href="/history?group=galewatch-writers&amp;topic=readings"`) {
		t.Fatalf("index: %d\n%s", code, body)
	}
	code, body = get("/history?topic=readings&group=galewatch-writers")
	for _, want := range []string{"<svg", "p18: galewatch-watcher-1 (10.20.3.40) from 2026-07-16 11:02:01Z to 2026-07-16 11:16:00Z, 15 cuts",
		"galewatch-writer-5 (10.20.0.15)", "still at the last cut"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Fatalf("page lacks %q: %d\n%s", want, code, body)
		}
	}
	// Hosts as people read them; the legend's counts with separators.
	if strings.Contains(body, "/10.20.") || regexp.MustCompile(`[0-9]{4,} records committed`).MatchString(body) ||
		!regexp.MustCompile(`[0-9],[0-9]{3} records committed`).MatchString(body) {
		t.Errorf("hosts or legend counts not as people read them:\n%s", body)
	}
	code, body = get("/api/history?topic=readings&group=galewatch-writers")
	var doc struct {
		Runs []struct {
			Partition int32  `json:"partition"`
			ClientID  string `json:"client_id"`
			Cuts      int    `json:"cuts"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || code != 200 {
		t.Fatalf("api: %d %v\n%s", code, err, body)
	}
	var p18 []string
	for _, r := range doc.Runs {
		if r.Partition == 18 {
			p18 = append(p18, fmt.Sprintf("%s/%d", r.ClientID, r.Cuts))
		}
	}
	if got := strings.Join(p18, " "); got != "galewatch-writer-5/3 galewatch-watcher-1/15 galewatch-writer-5/6" {
		t.Fatalf("runs of 18: %s", got)
	}
	if code, _ := get("/api/history?topic=readings&group=nobody"); code != 404 {
		t.Fatalf("unknown group: %d", code)
	}
	if code, body := get("/history?topic=readings&group=%3Cscript%3E"); code != 404 || strings.Contains(body, "<script>") {
		t.Fatalf("hostile group name: %d\n%s", code, body)
	}
}

// TestValueBytesNested: a MAP's and a UNION's values count toward the
// result's byte bound like a LIST's; a MAP counted 24 bytes whatever it
// held.
func TestValueBytesNested(t *testing.T) {
	var big duckdb.OrderedMap
	for i := range 1000 {
		big.Set(fmt.Sprint(i), strings.Repeat("x", 100))
	}
	cases := []struct {
		name string
		v    any
		min  int
	}{
		{"map", big, 100_000},
		{"union", duckdb.Union{Tag: "s", Value: strings.Repeat("x", 1000)}, 1000},
		{"list", []any{strings.Repeat("x", 1000)}, 1000},
	}
	for _, c := range cases {
		if got := valueBytes(c.v, 1<<30); got < c.min {
			t.Errorf("%s: %d bytes, want at least %d", c.name, got, c.min)
		}
	}
}
