package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestBrowserSecurity drives headless Chromium through the DevTools
// protocol (over --remote-debugging-pipe, no extra library) against a
// server with a token: it logs in through the form, then opens a page
// served on another port of 127.0.0.1, the "same-site" attacker of the
// issue, whose <img>, fetch and POST at the server must get 403 although
// the browser sends the session cookie with them; the page's link, a
// top-level navigation, must still open the report. Then it logs out with
// the button and checks that the session is gone on the server. Like
// TestBrowser it runs when TOPICSNAP_CHROMIUM names a Chromium binary.
func TestBrowserSecurity(t *testing.T) {
	bin := os.Getenv("TOPICSNAP_CHROMIUM")
	if bin == "" {
		t.Skip("TOPICSNAP_CHROMIUM is not set: TOPICSNAP_CHROMIUM=$(scripts/chromium.sh) go test -run BrowserSecurity ./server")
	}
	log := &syncBuffer{}
	s, ts := newTestServer(t, Options{Dir: teaShopFixture(t), Token: "s3cret", Logger: log})
	target := ts.URL
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, attackerPage, target)
	}))
	t.Cleanup(evil.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startCDP(ctx, t, bin)

	// 1. Log in through the form.
	c.navigate(t, target+"/checks/gaps?topic=app_events")
	if p := c.eval(t, `location.pathname`); p != "/login" {
		t.Fatalf("without a session the report sent the browser to %q, want /login", p)
	}
	c.submit(t, `document.getElementById("token").value = "s3cret"; document.querySelector("main form").submit()`)
	if p := c.eval(t, `location.pathname + location.search`); p != "/checks/gaps?topic=app_events" {
		t.Fatalf("after logging in the browser is at %q; server log:\n%s", p, log)
	}
	if body := c.eval(t, `document.body.innerText`); !strings.Contains(body, "gaps") {
		t.Errorf("the report after login: %.300s", body)
	}
	if !strings.Contains(log.String(), "POST /login 303") {
		t.Errorf("no POST /login 303 in the server log:\n%s", log)
	}

	// 2. A page on another port of the host: its <img>, fetch and POST are
	// refused, though the browser sends our session cookie with them.
	c.navigate(t, evil.URL+"/")
	// The image fails; the no-cors fetches end opaque or, as the answer
	// says Cross-Origin-Resource-Policy: same-origin, fail: either way the
	// server log below says what the server did.
	got := c.eval(t, `window.finished`)
	t.Logf("the attacker page's requests ended: %s", got)
	if !strings.HasPrefix(got, "error,") {
		t.Errorf("the image did not fail: %q", got)
	}
	for _, line := range []string{"GET /api/checks/duplicates 403", "GET /api/checks/gaps 403", "POST /api/sql 403"} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("no %q in the server log:\n%s", line, log)
		}
	}
	for _, line := range []string{"GET /api/checks/duplicates 200", "POST /api/sql 200"} {
		if strings.Contains(log.String(), line) {
			t.Errorf("%q in the server log: a drive-by request ran", line)
		}
	}
	// Its link, followed, opens the report: a top-level navigation.
	c.submit(t, `document.getElementById("link").click()`)
	if p := c.eval(t, `location.origin + location.pathname`); p != target+"/checks/skew" {
		t.Errorf("the link led to %q", p)
	}
	if body := c.eval(t, `document.body.innerText`); !strings.Contains(body, "skew") || strings.Contains(body, "refused") {
		t.Errorf("the linked report: %.300s", body)
	}
	if !strings.Contains(log.String(), "GET /checks/skew 200") {
		t.Errorf("no GET /checks/skew 200 in the server log:\n%s", log)
	}

	// 3. Log out with the button: the session ends on the server.
	if n := len(s.sessions.m); n != 1 {
		t.Errorf("%d sessions before logging out, want 1", n)
	}
	c.submit(t, `document.querySelector("header form").submit()`)
	if p := c.eval(t, `location.pathname`); p != "/login" {
		t.Errorf("after logging out the browser is at %q", p)
	}
	if !strings.Contains(log.String(), "POST /logout 303") {
		t.Errorf("no POST /logout 303 in the server log:\n%s", log)
	}
	if n := len(s.sessions.m); n != 0 {
		t.Errorf("%d sessions after logging out, want 0", n)
	}
	c.navigate(t, target+"/api/topics")
	if body := c.eval(t, `document.body.innerText`); !strings.Contains(body, "a valid token is required") {
		t.Errorf("the API after logging out: %.300s", body)
	}
}

// attackerPage is served from another port; %[1]s is the server's URL.
// window.finished settles when the image failed or loaded and both
// fetches answered (no-cors: an opaque answer whatever its status).
const attackerPage = `<!doctype html>
<html><head><title>elsewhere</title></head><body>
<img id="img" src="%[1]s/api/checks/duplicates?topic=app_events&id=key" alt="">
<a id="link" href="%[1]s/checks/skew?topic=app_events">a report</a>
<script>
var img = new Promise(function (done) {
  var i = document.getElementById("img");
  i.onload = function () { done("load"); };
  i.onerror = function () { done("error"); };
});
window.finished = Promise.all([
  img,
  fetch("%[1]s/api/checks/gaps?topic=app_events", {mode: "no-cors", credentials: "include"}).then(function (r) { return r.type; }, function (e) { return "failed: " + e; }),
  fetch("%[1]s/api/sql", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: '{"sql": "SELECT 1"}'}).then(function (r) { return r.type; }, function (e) { return "failed: " + e; })
]).then(function (all) { return all.join(","); });
</script>
</body></html>
`

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// cdp is one Chromium driven over the DevTools protocol on a pipe: JSON
// messages ended by a NUL byte, fd 3 to the browser, fd 4 from it.
type cdp struct {
	ctx     context.Context
	w       io.Writer
	session string

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpMessage
	events  chan cdpMessage
	stderr  *syncBuffer
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    any             `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// startCDP starts Chromium and opens one page (a target) to drive.
func startCDP(ctx context.Context, t *testing.T, bin string) *cdp {
	t.Helper()
	toBrowser, ourEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowser, theirEnd, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &cdp{ctx: ctx, w: ourEnd, waiting: map[int]chan cdpMessage{}, events: make(chan cdpMessage, 1024), stderr: &syncBuffer{}}
	cmd := exec.CommandContext(ctx, bin,
		"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBrowser, theirEnd} // fd 3, fd 4
	cmd.Stderr = c.stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	theirEnd.Close()
	t.Cleanup(func() {
		ourEnd.Close()
		cmd.Process.Kill()
		cmd.Wait()
		fromBrowser.Close()
	})
	go c.read(fromBrowser)

	var created struct {
		TargetID string `json:"targetId"`
	}
	c.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	c.call(t, "", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	c.session = attached.SessionID
	c.call(t, c.session, "Page.enable", nil, nil)
	return c
}

func (c *cdp) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.ReadBytes(0)
		if err != nil {
			close(c.events)
			return
		}
		var m cdpMessage
		if json.Unmarshal(b[:len(b)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			c.mu.Lock()
			ch := c.waiting[m.ID]
			delete(c.waiting, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		if m.SessionID == c.sessionID() {
			select {
			case c.events <- m:
			default: // nobody reads this many events: drop
			}
		}
	}
}

func (c *cdp) sessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// call sends a command and waits for its answer, decoded into out.
func (c *cdp) call(t *testing.T, session, method string, params, out any) {
	t.Helper()
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan cdpMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	b, err := json.Marshal(cdpMessage{ID: id, SessionID: session, Method: method, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.w.Write(append(b, 0)); err != nil {
		t.Fatalf("%s: write to chromium: %v; its log:\n%s", method, err, tail(c.stderr.String()))
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				t.Fatalf("%s: %v in %s", method, err, m.Result)
			}
		}
	case <-c.ctx.Done():
		t.Fatalf("%s: no answer from chromium; its log:\n%s", method, tail(c.stderr.String()))
	}
}

// drain forgets the events received so far.
func (c *cdp) drain() {
	for {
		select {
		case <-c.events:
		default:
			return
		}
	}
}

// waitLoad waits for the page's next load event.
func (c *cdp) waitLoad(t *testing.T) {
	t.Helper()
	for {
		select {
		case m, ok := <-c.events:
			if !ok {
				t.Fatalf("chromium went away; its log:\n%s", tail(c.stderr.String()))
			}
			if m.Method == "Page.loadEventFired" {
				return
			}
		case <-c.ctx.Done():
			t.Fatalf("no page load; chromium's log:\n%s", tail(c.stderr.String()))
		}
	}
}

// navigate opens url and waits until it has loaded.
func (c *cdp) navigate(t *testing.T, url string) {
	t.Helper()
	c.drain()
	c.call(t, c.session, "Page.navigate", map[string]any{"url": url}, nil)
	c.waitLoad(t)
}

// submit runs script, which starts a navigation (a form, a click), and
// waits until the new page has loaded.
func (c *cdp) submit(t *testing.T, script string) {
	t.Helper()
	c.drain()
	c.eval(t, script+"; 'ok'")
	c.waitLoad(t)
}

// eval evaluates a JavaScript expression in the page, awaiting a promise,
// and returns its value as text.
func (c *cdp) eval(t *testing.T, expr string) string {
	t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	c.call(t, c.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res)
	if res.Exception != nil {
		t.Fatalf("%s: %s %s", expr, res.Exception.Text, res.Exception.Exception.Description)
	}
	if s, ok := res.Result.Value.(string); ok {
		return s
	}
	return fmt.Sprint(res.Result.Value)
}
