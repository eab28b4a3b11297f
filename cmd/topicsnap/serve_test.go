package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
)

// TestServeTLSFlags: the TLS flags go together, and a server off loopback
// without TLS warns on stderr that the token travels in clear.
func TestServeTLSFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	cases := []struct {
		name string
		args []string
		code int
		text string
	}{
		{"cert without key", []string{"serve", "--dir", missing, "--tls-cert", "c.pem"}, exitError, "--tls-cert and --tls-key go together"},
		{"key without cert", []string{"serve", "--dir", missing, "--tls-key", "k.pem"}, exitError, "--tls-cert and --tls-key go together"},
		// Zero is the server's "default": these were taken and became 10s
		// and 10,000 rows without a word.
		{"no query time", []string{"serve", "--dir", missing, "--query-timeout", "0s"}, exitError, "--query-timeout 0s: give a duration of more than 0"},
		{"negative query time", []string{"serve", "--dir", missing, "--query-timeout", "-1s"}, exitError, "--query-timeout -1s"},
		{"negative rows", []string{"serve", "--dir", missing, "--max-rows", "-1"}, exitError, "--max-rows -1: give 1 or more"},
		// Each worker is a process of its own: 100000 were started one
		// after another until the host ran out of memory.
		{"too many workers", []string{"serve", "--dir", missing, "--workers", "100000"}, exitError, "--workers 100000: use 1 to 64"},
		{"negative workers", []string{"serve", "--dir", missing, "--workers", "-1"}, exitError, "--workers -1: use 1 to 64"},
		{"unreadable certificate", []string{"serve", "--dir", missing, "--tls-cert", "c.pem", "--tls-key", "k.pem"}, -1, "load TLS certificate"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := cli(t, c.args...)
			if code == 0 || (c.code >= 0 && code != c.code) || !strings.Contains(errs, c.text) {
				t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.text)
			}
		})
	}
	// With TLS off loopback there is no warning (the certificate is
	// unreadable here, so the server does not start).
	_, _, errs := cli(t, "serve", "--dir", missing, "--addr", "0.0.0.0:0", "--token", "t", "--tls-cert", "c.pem", "--tls-key", "k.pem")
	if strings.Contains(errs, "in clear") {
		t.Errorf("a warning with TLS: %q", errs)
	}
	// Without TLS there is one; the context is done before the server
	// starts, so serve returns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	run(ctx, []string{"serve", "--dir", t.TempDir(), "--addr", "0.0.0.0:0", "--token", "t"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "Warning:") || !strings.Contains(errb.String(), "travel in clear") {
		t.Errorf("off loopback without TLS: stderr %q", errb.String())
	}
}

// TestServeWorkers: topicsnap serve runs its queries in two worker
// processes (copies of this program): a statement DuckDB is known to
// crash on is refused (400), one past the memory cap costs its request a
// 503 and the next is answered; when serve stops, no worker is left.
func TestServeWorkers(t *testing.T) {
	dir := t.TempDir()
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sout := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--dir", dir, "--addr", "127.0.0.1:0", "--worker-memory", "1GiB"}, strings.NewReader(""), sout, &lockedBuffer{})
	}()
	var base string
	for i := 0; i < 600 && base == ""; i++ {
		if _, after, ok := strings.Cut(sout.String(), " at "); ok {
			base = strings.TrimSpace(after)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if base == "" {
		stop()
		t.Fatalf("serve did not start: %q", sout.String())
	}
	workers := children(t)
	if len(workers) != 2 {
		t.Errorf("serve runs %d child processes, want 2 workers", len(workers))
	}
	post := func(stmt string) (int, string) {
		b, _ := json.Marshal(map[string]string{"sql": stmt})
		res, err := http.Post(base+"/api/sql", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	cases := []struct {
		stmt string
		code int
		want string
	}{
		{`SELECT count(*) AS n FROM app_events`, 200, `"n":`},
		// Refused by the allow-list before it reaches a worker.
		{`SELECT json_structure(repeat('[', 100000) || repeat(']', 100000))`, 400, "json_structure() is not allowed"},
		{`SELECT len(range(0, 300000000))`, 503, "more memory than a query worker may hold (1 GiB)"},
		{`SELECT 6 * 7 AS answer`, 200, `"answer":42`},
		// A function of the engine's own (Go) over enough rows that DuckDB
		// runs it on its threads: a worker started from an init function
		// would wait forever for Go's package initialization here.
		{`SELECT count(DISTINCT murmur2(i::VARCHAR)) AS n FROM range(0, 2000000) t(i)`, 200, `"n":`},
	}
	for _, c := range cases {
		code, body := post(c.stmt)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %s, want %d %q", c.stmt, code, body, c.code, c.want)
		}
	}
	stop()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d", code)
	}
	if left := children(t); len(left) != 0 {
		t.Errorf("processes left after serve stopped: %v", left)
	}
}

// children lists the live processes whose parent is this one.
func children(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc here")
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			out = append(out, pid)
		}
	}
	return out
}

// A worker's environment is serve's, marked, without the token.
func TestWorkerEnviron(t *testing.T) {
	cases := []struct {
		in, want []string
	}{
		{nil, []string{workerEnv + "=1"}},
		{[]string{"HOME=/h", "TOPICSNAP_TOKEN=secret", "TOPICSNAP_DIR=/d"}, []string{"HOME=/h", "TOPICSNAP_DIR=/d", workerEnv + "=1"}},
		{[]string{workerEnv + "=0", "TOPICSNAP_TOKEN_FILE=x"}, []string{"TOPICSNAP_TOKEN_FILE=x", workerEnv + "=1"}},
	}
	for _, c := range cases {
		if got := workerEnviron(c.in); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("workerEnviron(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestEmptyFolderFlag: a folder flag given empty (--dir "", an unset shell
// variable) is a usage error naming it, on every command, not exit 11 for
// a folder named "".
func TestEmptyFolderFlag(t *testing.T) {
	for _, args := range [][]string{
		{"ls", "--dir", ""},
		{"check", "gaps", "--topic", "t", "--dir", " "},
		{"sql", "--dir", "", "-c", "SELECT 1"},
		{"catalog", "verify", "--dir", ""},
		{"serve", "--dir", ""},
	} {
		code, _, stderr := cli(t, args...)
		if code != exitError || !strings.Contains(stderr, "--dir is empty: name a folder") {
			t.Errorf("%q: exit %d, %q; want %d and --dir is empty", args, code, stderr, exitError)
		}
	}
}

// TestEmptyFlagValues: a flag given an empty value ("$ADDR" of an unset
// shell variable) was read as its default without a word: serve --addr ""
// served on 127.0.0.1:8080, notebook run --out "" wrote to stdout, dump
// --topic "" went on to connect, serve --token " " served. Each is a usage
// error naming the flag now, before anything is opened or served; the
// flags whose commands said it already keep their own words.
func TestEmptyFlagValues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), dir, seeds.TeaShopConfig{Users: 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	nb := filepath.Join(t.TempDir(), "n.md")
	if err := os.WriteFile(nb, []byte("```sql\nSELECT 1 AS a\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--dir", dir, "--addr", ""}, "--addr is empty"},
		{[]string{"serve", "--dir", dir, "--token", " "}, "--token is empty"},
		{[]string{"notebook", "run", nb, "--dir", dir, "--out", ""}, "--out is empty"},
		{[]string{"notebook", "run", nb, "--dir", dir, "--param", ""}, `--param "": use key=value`},
		{[]string{"dump", "--brokers", "127.0.0.1:1", "--dir", filepath.Join(t.TempDir(), "d"), "--topic", ""}, "--topic has an empty value"},
		{[]string{"dump", "--brokers", "127.0.0.1:1", "--dir", filepath.Join(t.TempDir(), "d"), "--topic", "a", "--topic", " "}, "--topic has an empty value"},
		{[]string{"sql", "--dir", dir, "-c", ""}, "-c is empty"},
		{[]string{"restore", "--dir", dir, "--topic", "app_events", "--brokers", "", "--dry-run"}, "--brokers is empty"},
	} {
		code, out, stderr := cli(t, c.args...)
		if code != exitError || out != "" || !strings.Contains(stderr, c.want) || strings.Contains(stderr, "connect") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, out, stderr, exitError, c.want)
		}
	}
}
