package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// testBucket returns a fresh s3:// prefix in the bucket of the real S3
// server make test starts (scripts/s3.sh) and its endpoint, with the
// credentials in the environment the AWS SDK reads. Without
// TOPICSNAP_TEST_S3_ENDPOINT the test skips.
func testBucket(t *testing.T) (loc, endpoint string) {
	t.Helper()
	endpoint = os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if endpoint == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	var b [4]byte
	rand.Read(b[:])
	return "s3://" + os.Getenv("TOPICSNAP_TEST_S3_BUCKET") + "/" + strings.ToLower(t.Name()) + "-" + hex.EncodeToString(b[:]), endpoint
}

// Every command on --dir s3://...: dump into the bucket, list, verify,
// query, check, run a notebook, copy to a folder and back; the answers
// are the ones the local folder gives.
func TestBucketEndToEnd(t *testing.T) {
	bs := brokers(t)
	loc, ep := testBucket(t)
	ctx := t.Context()
	conn := kafkaconn.Conn{Brokers: bs}
	var rb [3]byte
	rand.Read(rb[:])
	topic := "bucket_" + hex.EncodeToString(rb[:])
	if err := dump.CreateTopic(ctx, conn, topic, 3, nil); err != nil {
		t.Fatal(err)
	}
	const n = 30_000
	now := time.Now().Add(-time.Hour)
	recs := make([]dump.Record, n)
	for i := range recs {
		recs[i] = dump.Record{Topic: topic, Partition: int32(i % 3), Key: []byte(fmt.Sprint(i)),
			Value: []byte(fmt.Sprintf(`{"n":%d}`, i)), Timestamp: now.Add(time.Duration(i) * time.Millisecond)}
	}
	if err := dump.Produce(ctx, conn, recs); err != nil {
		t.Fatal(err)
	}
	b := strings.Join(bs, ",")
	s3 := []string{"--s3-endpoint", ep, "--s3-cache", filepath.Join(t.TempDir(), "cache")}
	ts := func(args ...string) (int, string, string) {
		t.Helper()
		return cli(t, append(args, s3...)...)
	}
	code, out, errs := ts("dump", "--brokers", b, "--topic", topic, "--dir", loc, "--file-rows", "4000")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("dumped %d records", n)) {
		t.Fatalf("dump to the bucket: %d %q %q", code, out, errs)
	}
	if strings.Contains(errs, os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY")) {
		t.Fatalf("the secret was printed: %q", errs)
	}
	code, out, _ = ts("ls", "--dir", loc)
	if code != 0 || strings.Count(out, topic) != 3 {
		t.Fatalf("ls: %d %q", code, out)
	}
	code, out, _ = ts("catalog", "verify", "--dir", loc)
	if code != 0 || !strings.Contains(out, "all match") {
		t.Fatalf("verify: %d %q", code, out)
	}
	// The endpoint from s3.endpoint in the properties file, without --s3-endpoint.
	props := filepath.Join(t.TempDir(), "client.properties")
	os.WriteFile(props, []byte("bootstrap.servers="+b+"\ns3.endpoint="+ep+"\n"), 0o644)
	t.Setenv("TOPICSNAP_CONFIG", props)
	if code, out, errs := cli(t, "ls", "--dir", loc); code != 0 || strings.Count(out, topic) != 3 {
		t.Fatalf("ls with s3.endpoint in TOPICSNAP_CONFIG: %d %q %q", code, out, errs)
	}
	t.Setenv("TOPICSNAP_CONFIG", "")
	count := func(dir string, extra ...string) (int, string) {
		t.Helper()
		code, out, errs := cli(t, append([]string{"sql", "--dir", dir, "-c", fmt.Sprintf(`SELECT count(*) AS n, count(DISTINCT "offset" || '/' || "partition") AS d FROM %s`, topic), "--format", "json"}, extra...)...)
		var rows []map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
			t.Fatalf("sql on %s: %d %q %q", dir, code, out, errs)
		}
		if rows[0]["n"] != rows[0]["d"] {
			t.Fatalf("sql on %s: duplicates %v", dir, rows)
		}
		return int(rows[0]["n"].(float64)), errs
	}
	got, errs := count(loc, s3...)
	if got != n || !strings.Contains(errs, "s3: fetched") {
		t.Fatalf("sql on the bucket: %d records, stderr %q", got, errs)
	}
	// A second query reads the cache: nothing fetched again.
	if got, errs = count(loc, s3...); got != n || strings.Contains(errs, "fetched") {
		t.Fatalf("sql on the bucket again: %d records, stderr %q", got, errs)
	}
	code, out, _ = ts("check", "gaps", "--dir", loc, "--topic", topic)
	if code != 0 || !strings.HasPrefix(out, fmt.Sprintf("OK gaps on %s: 0 missing offsets on all 3 partitions", topic)) {
		t.Fatalf("check gaps on the bucket: %d %q", code, out)
	}
	nb := filepath.Join(t.TempDir(), "n.md")
	os.WriteFile(nb, []byte(fmt.Sprintf("# Count\n\n```sql\nSELECT count(*) AS records FROM %s\n```\n", topic)), 0o644)
	code, out, errs = ts("notebook", "run", nb, "--dir", loc, "--out", filepath.Join(t.TempDir(), "n.html"))
	if code != 0 {
		t.Fatalf("notebook run on the bucket: %d %q %q", code, out, errs)
	}

	// serve reads the bucket through the cache: the API's gaps report is
	// the CLI's.
	sctx, stop := context.WithCancel(ctx)
	sout := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(sctx, append([]string{"serve", "--dir", loc, "--addr", "127.0.0.1:0"}, s3...), strings.NewReader(""), sout, &lockedBuffer{})
	}()
	var base string
	for i := 0; i < 300 && base == ""; i++ {
		if _, after, ok := strings.Cut(sout.String(), "serving "+loc+" at "); ok {
			base = strings.TrimSpace(after)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if base == "" {
		stop()
		t.Fatalf("serve on the bucket did not start: %q", sout.String())
	}
	resp, err := http.Get(base + "/api/checks/gaps?topic=" + topic)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	var rep map[string]any
	json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	stop()
	if code := <-done; code != 0 || rep["status"] != "ok" {
		t.Fatalf("serve on the bucket: exit %d, gaps %v", code, rep)
	}

	// restore from the bucket into a new topic holds every record again
	// (transactions: on the real broker only).
	if dumptest.Real() {
		to := topic + "_restored"
		if err := dump.CreateTopic(ctx, conn, to, 3, nil); err != nil {
			t.Fatal(err)
		}
		code, out, errs = ts("restore", "--brokers", b, "--dir", loc, "--topic", topic, "--to-topic", to)
		if code != 0 {
			t.Fatalf("restore from the bucket: %d %q %q", code, out, errs)
		}
		back2 := filepath.Join(t.TempDir(), "restored")
		if code, out, errs = ts("dump", "--brokers", b, "--topic", to, "--dir", back2); code != 0 {
			t.Fatalf("dump of the restored topic: %d %q %q", code, out, errs)
		}
		// The view counts data records (the restore's transaction markers are not).
		code, out, errs = cli(t, "sql", "--dir", back2, "-c", "SELECT count(*) AS n FROM "+to, "--format", "csv")
		if code != 0 || strings.TrimSpace(out) != fmt.Sprintf("n\n%d", n) {
			t.Fatalf("the restored topic holds: %d %q %q", code, out, errs)
		}
	}

	// Copy to a folder (offline), and that folder back to another prefix.
	local := filepath.Join(t.TempDir(), "copy")
	code, out, errs = ts("catalog", "copy", loc, local)
	if code != 0 || !strings.Contains(out, "0 snapshots") && !strings.Contains(out, "1 snapshots") {
		t.Fatalf("copy to a folder: %d %q %q", code, out, errs)
	}
	if got, _ := count(local); got != n {
		t.Fatalf("the folder copy holds %d records", got)
	}
	// Resumable: a second copy keeps every file.
	code, out, _ = ts("catalog", "copy", loc, local)
	if code != 0 || !strings.HasPrefix(out, "copied 0 files") {
		t.Fatalf("copy again: %d %q", code, out)
	}
	back := loc + "-back"
	code, out, errs = ts("catalog", "copy", local, back)
	if code != 0 || strings.HasPrefix(out, "copied 0 files") {
		t.Fatalf("copy to a bucket: %d %q %q", code, out, errs)
	}
	code, out, _ = ts("catalog", "verify", "--dir", back)
	if code != 0 || !strings.Contains(out, "all match") {
		t.Fatalf("verify the copy: %d %q", code, out)
	}
}

// A bucket that is not one, or credentials that are wrong, say so with
// their exit code and never print the secret.
func TestBucketErrors(t *testing.T) {
	loc, ep := testBucket(t)
	cases := []struct {
		name string
		args []string
		env  map[string]string
		code int
		text string
	}{
		{"no such bucket", []string{"ls", "--dir", "s3://no-such-bucket-here/x"}, nil, exitNoCatalog, "does not exist"},
		{"wrong secret", []string{"ls", "--dir", loc}, map[string]string{"AWS_SECRET_ACCESS_KEY": "wrong-secret-xyz"}, exitAuth, "access denied"},
		{"endpoint not a URL", []string{"ls", "--dir", loc, "--s3-endpoint", "127.0.0.1:1"}, nil, exitError, "give a URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			args := append([]string{"--s3-endpoint", ep}, c.args...)
			code, out, errs := cli(t, args...)
			if code != c.code || !strings.Contains(errs, c.text) || strings.Contains(out+errs, "wrong-secret-xyz") {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, errs, c.code, c.text)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer a server goroutine writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBucketDamagedFileCostsItsPartition: a data file of a bucket cut
// short, garbage of its size or missing costs its partition on sql and
// check, as in a folder (named, "not judged: 1 partition"), not every
// query of the bucket (the copy into the cache refused the whole bucket on
// a file cut short or missing: exit 2); put back whole, it is read again.
// ls finds one cut short or missing by its listed size (it showed the
// partition as fine), naming the bucket in its hint.
func TestBucketDamagedFileCostsItsPartition(t *testing.T) {
	loc, ep := testBucket(t)
	local := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), local, seeds.TeaShopConfig{Users: 300, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	s3 := []string{"--s3-endpoint", ep, "--s3-cache", cache}
	if code, out, errs := cli(t, append([]string{"catalog", "copy", local, loc}, s3...)...); code != 0 {
		t.Fatalf("copy to the bucket: %d %q %q", code, out, errs)
	}
	b, err := catalog.OpenAt(t.Context(), loc, catalog.S3Config{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p int) string {
		ms, err := filepath.Glob(filepath.Join(local, "topic=app_events", fmt.Sprintf("partition=%d", p), "*.parquet"))
		if err != nil || len(ms) != 1 {
			t.Fatalf("partition %d: %v %v", p, ms, err)
		}
		r, _ := filepath.Rel(local, ms[0])
		return filepath.ToSlash(r)
	}
	whole, err := os.ReadFile(filepath.Join(local, rel(3)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		damage func()
		p      int
		said   string
		listed bool // ls finds it by the listed size, reading no object
	}{
		{"cut short", func() {
			if _, err := b.Store().Put(t.Context(), rel(3), whole[:2000], store.Cond{}); err != nil {
				t.Fatal(err)
			}
		}, 3, "2000 bytes where the manifest says", true},
		{"garbage of the manifest's size", func() {
			g := make([]byte, len(whole))
			rand.Read(g)
			if _, err := b.Store().Put(t.Context(), rel(3), g, store.Cond{}); err != nil {
				t.Fatal(err)
			}
		}, 3, "not Parquet", false},
		{"missing", func() {
			if err := b.Store().Delete(t.Context(), rel(1)); err != nil {
				t.Fatal(err)
			}
		}, 1, ": missing", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.damage()
			code, out, errs := cli(t, append([]string{"sql", "--dir", loc, "-c", "SELECT count(DISTINCT partition) FROM app_events", "--format", "csv"}, s3...)...)
			if code != 0 || !strings.Contains(out, "5") || !strings.Contains(errs, c.said) || !strings.Contains(errs, fmt.Sprintf("partition %d", c.p)) {
				t.Fatalf("sql: %d %q %q", code, out, errs)
			}
			// The hint names the bucket the user gave, not the local cache.
			if hint := "catalog verify --dir " + loc; !strings.Contains(errs, hint) || strings.Contains(errs, "--dir "+cache) {
				t.Errorf("sql's warning does not say %q, or names the cache %s: %q", hint, cache, errs)
			}
			if c.listed {
				code, out, errs = cli(t, append([]string{"ls", "--dir", loc, "--topic", "app_events"}, s3...)...)
				if code != 0 || !strings.Contains(errs, c.said) || !strings.Contains(errs, fmt.Sprintf("partition %d", c.p)) ||
					!strings.Contains(errs, "catalog verify --dir "+loc) || strings.Count(out, "app_events") != 5 {
					t.Errorf("ls: %d %q %q, want partition %d left out and named (%s)", code, out, errs, c.p, c.said)
				}
			}
			// restore refuses the topic whole: its warning of a file the
			// copy into the cache finds damaged (by its size) says so,
			// where it said "its partition is not read".
			code, out, errs = cli(t, append([]string{"restore", "--brokers", strings.Join(brokers(t), ","), "--dir", loc, "--topic", "app_events", "--to-topic", "app_events_restored", "--dry-run"}, s3...)...)
			if code != exitBadFolder || c.listed && (!strings.Contains(errs, c.said) || !strings.Contains(errs, ": restore refuses its topic until the file is put back whole")) || strings.Contains(errs, "its partition is not read") {
				t.Errorf("restore: %d %q %q, want exit %d and a warning that says restore refuses the topic", code, out, errs, exitBadFolder)
			}
			code, out, errs = cli(t, append([]string{"check", "gaps", "--dir", loc, "--topic", "app_events"}, s3...)...)
			if code != 0 || !strings.Contains(out, "not judged: 1 partition") {
				t.Fatalf("check gaps: %d %q %q", code, out, errs)
			}
			if hint := "catalog verify --dir " + loc; !strings.Contains(errs, hint) || strings.Contains(errs, "--dir "+cache) {
				t.Errorf("check's warning does not say %q, or names the cache %s: %q", hint, cache, errs)
			}
			// Put back whole: read again.
			if _, err := b.Store().Put(t.Context(), rel(c.p), func() []byte {
				bb, _ := os.ReadFile(filepath.Join(local, rel(c.p)))
				return bb
			}(), store.Cond{}); err != nil {
				t.Fatal(err)
			}
			code, out, errs = cli(t, append([]string{"sql", "--dir", loc, "-c", "SELECT count(DISTINCT partition) FROM app_events", "--format", "csv"}, s3...)...)
			if code != 0 || !strings.Contains(out, "6") || strings.Contains(errs, "warning") {
				t.Fatalf("sql, the file put back: %d %q %q", code, out, errs)
			}
		})
	}
}
