package server

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// manyTopics writes a folder of n small topics by code (t-00 ...), one
// partition of four records each, one cut each; the topics in lost have
// a lost range.
func manyTopics(t testing.TB, n int, lost ...string) string {
	t.Helper()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 5, 6, 10, 0, 0, 0, time.UTC).UnixMilli()
	for i := range n {
		name := fmt.Sprintf("t-%02d", i)
		tp := catalog.TopicPartition{Topic: name, Partition: 0}
		var rows []catalog.Row
		for o := int64(0); o < 4; o++ {
			rows = append(rows, catalog.Row{Offset: o, Timestamp: base + o*1000, TimestampType: catalog.TimestampCreate,
				Key: []byte("k"), Value: []byte(fmt.Sprintf(`{"n":%d}`, o))})
		}
		id := "s-" + name
		fe, err := d.WriteDataFile(t.Context(), tp, rows, id)
		if err != nil {
			t.Fatal(err)
		}
		m := &catalog.Manifest{Topic: name, NextOffset: fe.LastOffset + 1, Files: []catalog.FileEntry{fe}}
		for _, l := range lost {
			if l == name {
				m.Lost = []catalog.LostRange{{Kind: catalog.LostBetween, From: 10, To: 19, DetectedAt: time.Now()}}
			}
		}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: id, Topic: name, AsOf: time.UnixMilli(base + 10_000),
			PartitionCount: 1, ReplicationFactor: 1, Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 4}}, Dumped: []int32{0}}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var tileRE = regexp.MustCompile(`<a class="tile ([a-z]+)" href="([^"]+)"`)

// TestOverviewOfALargeFolder: past overviewInline missing tiles, the
// first view answers with pending tiles (none computed, with a budget of
// a nanosecond) and reloads itself; the warmer computes them; a later
// view shows every tile with its check's verdict, the API's; the folder
// is paged, and page 1 names the topics with lost ranges and their page.
func TestOverviewOfALargeFolder(t *testing.T) {
	dir := manyTopics(t, 7, "t-06")
	s, ts := newTestServer(t, Options{Dir: dir, overviewInline: 10, overviewBudget: time.Nanosecond, overviewPageSize: 3})

	first := get(t, ts.URL+"/")
	if first.code != 200 {
		t.Fatalf("first view: %d %s", first.code, first.body)
	}
	tiles := tileRE.FindAllStringSubmatch(first.body, -1)
	if len(tiles) != 3*len(tileOrder(nil, "")) {
		t.Fatalf("first view: %d tiles, want 3 topics' %d", len(tiles), 3*len(tileOrder(nil, "")))
	}
	for _, m := range tiles {
		if m[1] != "pending" {
			t.Errorf("first view: tile %s is %s, want pending (nothing computed within a nanosecond)", m[2], m[1])
		}
	}
	for _, want := range []string{`<meta http-equiv="refresh" content="5">`, "being computed in the background", `href="/?page=3"`, "Topics with problems"} {
		if !strings.Contains(first.body, want) {
			t.Errorf("first view lacks %q", want)
		}
	}

	// The warmer computes every topic's tiles, this page's and the others'.
	var later response
	deadline := time.Now().Add(90 * time.Second)
	for {
		later = get(t, ts.URL+"/")
		if !strings.Contains(later.body, `class="tile pending"`) && s.warm.pending() == 0 && !strings.Contains(later.body, "still being computed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tiles still pending after 90 s:\n%s", later.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(later.body, `http-equiv="refresh"`) {
		t.Errorf("a page with no pending tile reloads itself")
	}
	tiles = tileRE.FindAllStringSubmatch(later.body, -1)
	if len(tiles) != 3*len(tileOrder(nil, "")) {
		t.Fatalf("later view: %d tiles", len(tiles))
	}
	verdicts := 0
	for _, m := range tiles {
		status, link := m[1], strings.ReplaceAll(m[2], "&amp;", "&")
		if status == "ok" || status == "warn" || status == "fail" {
			verdicts++
		}
		api := get(t, ts.URL+"/api"+link)
		var want string
		switch {
		case api.code == 200:
			re := regexp.MustCompile(`"status":"([a-z]+)"`).FindStringSubmatch(api.body)
			if re == nil {
				t.Fatalf("%s: no status in %s", link, api.body)
			}
			want = re[1]
		case api.code == 400 && (status == "needs" || status == "na"):
			want = status
		default:
			t.Fatalf("%s: API %d %s, tile %s", link, api.code, api.body, status)
		}
		if status != want {
			t.Errorf("%s: tile %s, the check's verdict %s", link, status, want)
		}
	}
	if verdicts < len(tiles)/2 {
		t.Errorf("only %d of %d tiles have a verdict", verdicts, len(tiles))
	}
	// Page 1 names t-06, on page 3, for its lost range.
	if !strings.Contains(later.body, `href="/?page=3#topic-t-06"`) || !strings.Contains(later.body, "1 lost ranges") {
		t.Errorf("page 1 does not name t-06 (page 3) for its lost range")
	}
	p3 := get(t, ts.URL+"/?page=3")
	if p3.code != 200 || !strings.Contains(p3.body, `id="topic-t-06"`) || strings.Contains(p3.body, `id="topic-t-00"`) {
		t.Errorf("page 3: %d, want t-06 and not t-00", p3.code)
	}
	for _, bad := range []string{"0", "x", "4"} {
		if r := get(t, ts.URL+"/?page="+url.QueryEscape(bad)); r.code != 400 {
			t.Errorf("page %s: %d, want 400", bad, r.code)
		}
	}
}

// TestCloseStopsTheWarmer: Close cancels the warmer with tiles still
// queued and waits for it.
func TestCloseStopsTheWarmer(t *testing.T) {
	dir := manyTopics(t, 7)
	s, ts := newTestServer(t, Options{Dir: dir, overviewInline: 1, overviewBudget: time.Nanosecond})
	if r := get(t, ts.URL+"/"); r.code != 200 || !strings.Contains(r.body, `class="tile pending"`) {
		t.Fatalf("first view: %d, no pending tile", r.code)
	}
	if s.warm.pending() == 0 {
		t.Fatalf("nothing queued after a view of pending tiles")
	}
	t0 := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.warm.done:
	default:
		t.Fatalf("Close returned with the warmer running")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	if s.warm.pending() == 0 {
		t.Logf("the warmer finished its queue before Close (a fast machine)")
	}
}

// TestTileStoreKeeps: which tiles the store keeps, and that a tile is
// served only at the stamp it was kept with, whatever other tiles are
// kept beside it.
func TestTileStoreKeeps(t *testing.T) {
	for _, c := range []struct {
		name        string
		t           tile
		keepTimeout bool
		kept        bool
	}{
		{"a verdict", tile{Status: "fail", Label: "fail"}, false, true},
		{"needs options", tile{Status: "needs", Label: "needs options"}, false, true},
		{"pending", tile{Status: "pending", Label: "running"}, true, false},
		{"busy", tile{Status: "timeout", Label: "busy"}, true, false},
		{"cancelled", tile{Status: "timeout", Label: "cancelled"}, true, false},
		{"timeout, inline", tile{Status: "timeout", Label: "timeout"}, false, false},
		{"timeout, the warmer's", tile{Status: "timeout", Label: "timeout"}, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts tileStore
			k := tileKey{"gaps", "t"}
			ts.put("v1", k, c.t, c.keepTimeout)
			if _, ok := ts.get("v1", k); ok != c.kept {
				t.Errorf("kept %v, want %v", ok, c.kept)
			}
			if _, ok := ts.get("v2", k); ok {
				t.Errorf("a tile kept at v1 served at v2")
			}
			// Another topic's tile at its own stamp leaves this one be.
			ts.put("w7", tileKey{"gaps", "u"}, tile{Status: "ok"}, false)
			if _, ok := ts.get("v1", k); ok != c.kept {
				t.Errorf("after another topic's tile: kept %v, want %v", ok, c.kept)
			}
			ts.put("v2", k, tile{Status: "ok"}, false)
			if _, ok := ts.get("v1", k); ok {
				t.Errorf("a tile of v1 served after v2's was kept")
			}
		})
	}
}

// TestOverviewKeepsOtherTopicsTiles: a dump that commits one topic leaves
// the other topics' tiles known: the next view shows them at once, and
// only the changed topic's are computed again, with its new records.
func TestOverviewKeepsOtherTopicsTiles(t *testing.T) {
	dir := manyTopics(t, 7)
	s, ts := newTestServer(t, Options{Dir: dir, overviewInline: 10, overviewBudget: time.Nanosecond, overviewPageSize: 3})
	settled := func(page string) response {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			r := get(t, ts.URL+"/?page="+page)
			if r.code == 200 && !strings.Contains(r.body, `class="tile pending"`) && s.warm.pending() == 0 && !strings.Contains(r.body, "still being computed") {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatalf("page %s: tiles still pending after 90 s:\n%s", page, r.body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	settled("1")
	before := settled("2")

	// t-04 gets four more records, in a file and manifest of its own.
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tp := catalog.TopicPartition{Topic: "t-04", Partition: 0}
	m, err := d.ReadManifest(ctx, tp)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 5, 6, 11, 0, 0, 0, time.UTC).UnixMilli()
	var rows []catalog.Row
	for o := int64(4); o < 8; o++ {
		rows = append(rows, catalog.Row{Offset: o, Timestamp: base + o*1000, TimestampType: catalog.TimestampCreate,
			Key: []byte("k"), Value: []byte(fmt.Sprintf(`{"n":%d}`, o))})
	}
	fe, err := d.WriteDataFile(ctx, tp, rows, "s-t-04-2")
	if err != nil {
		t.Fatal(err)
	}
	m.Files, m.NextOffset = append(m.Files, fe), fe.LastOffset+1
	if err := d.WriteManifest(ctx, m); err != nil {
		t.Fatal(err)
	}
	v0 := s.engine.Version()
	if _, err := s.engine.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if s.engine.Version() == v0 {
		t.Fatalf("the engine did not see t-04's new file")
	}

	// Page 2 is t-03, t-04, t-05: with a budget of a nanosecond nothing
	// is computed in the view, so what is not pending came from the store.
	r := get(t, ts.URL+"/?page=2")
	if r.code != 200 {
		t.Fatalf("view after the commit: %d %s", r.code, r.body)
	}
	for _, m := range tileRE.FindAllStringSubmatch(r.body, -1) {
		link := strings.ReplaceAll(m[2], "&amp;", "&")
		changed := strings.Contains(link, "topic=t-04")
		if changed && m[1] != "pending" {
			t.Errorf("%s: %s right after t-04 changed, want pending (computed again)", link, m[1])
		}
		if !changed && m[1] == "pending" {
			t.Errorf("%s: pending after another topic changed, want the tile kept", link)
		}
	}
	// Page 1 (t-00 to t-02) is as it was.
	if p1 := get(t, ts.URL+"/?page=1"); strings.Contains(p1.body, `class="tile pending"`) {
		t.Errorf("page 1 has pending tiles after t-04 changed")
	}
	after := settled("2")
	if after.body == before.body {
		t.Errorf("page 2 is the same after t-04 got four more records")
	}
	if !strings.Contains(after.body, "8") {
		t.Errorf("page 2 does not show t-04's 8 records:\n%s", after.body)
	}
}

// TestSharedTileFolder: two workers' tile stores over one folder: a tile
// one keeps the other reads (at its stamp only); a claim holds a tile for
// the worker that made it until released or stale; what is not a whole
// tile of that key (garbage, too large, another key's) is no tile.
func TestSharedTileFolder(t *testing.T) {
	dir := t.TempDir()
	a, b := &tileStore{dir: dir}, &tileStore{dir: dir}
	k := tileKey{"gaps", "orders"}
	a.put("s1", k, tile{Check: "gaps", Status: "fail", Label: "fail"}, false)
	if tl, ok := b.get("s1", k); !ok || tl.Status != "fail" {
		t.Errorf("the other worker's tile: %+v %v, want fail", tl, ok)
	}
	if _, ok := b.get("s2", k); ok {
		t.Errorf("a tile of stamp s1 served at s2")
	}
	if _, ok := b.getListed("s1", tileKey{"skew", "orders"}, b.onDisk()); ok {
		t.Errorf("a tile nobody kept was found")
	}
	if !a.claim(k) {
		t.Fatalf("a cannot claim a tile nobody claimed")
	}
	if b.claim(k) {
		t.Errorf("b claimed a tile a holds")
	}
	a.unclaim(k)
	if !b.claim(k) {
		t.Errorf("b cannot claim a tile a released")
	}
	old := time.Now().Add(-2 * claimFor)
	if err := os.Chtimes(b.tileFile(k, ".claim"), old, old); err != nil {
		t.Fatal(err)
	}
	if !a.claim(k) {
		t.Errorf("a cannot take over a stale claim")
	}
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"garbage", []byte("{not json")},
		{"another key's", []byte(`{"stamp":"s1","tile":{"Status":"ok"},"check":"skew","topic":"orders"}`)},
		{"too large", append([]byte(`{"stamp":"s1","check":"gaps","topic":"orders","pad":"`), append(bytes.Repeat([]byte("x"), maxTileFile), `"}`...)...)},
	} {
		fresh := &tileStore{dir: dir}
		if err := os.WriteFile(fresh.tileFile(k, ".json"), c.body, 0o600); err != nil {
			t.Fatal(err)
		}
		if tl, ok := fresh.get("s1", k); ok {
			t.Errorf("%s: read as a tile: %+v", c.name, tl)
		}
	}
	// What is not a regular file inside the folder is not read at all: a
	// FIFO (no writer: a read would wait for ever), a link to /dev/zero
	// (endless), a link out of the folder to a real tile.
	outside := t.TempDir()
	real := &tileStore{dir: outside}
	real.put("s1", k, tile{Status: "ok"}, false)
	for _, c := range []struct {
		name string
		make func(path string) error
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"a link out of the folder", func(p string) error { return os.Symlink(real.tileFile(k, ".json"), p) }},
	} {
		fresh := &tileStore{dir: dir}
		path := fresh.tileFile(k, ".json")
		os.Remove(path)
		if err := c.make(path); err != nil {
			t.Fatal(err)
		}
		done := make(chan bool, 1)
		go func() { _, ok := fresh.get("s1", k); done <- ok }()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("%s: read as a tile", c.name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the read still waits after 5 s", c.name)
		}
	}
}

// TestWorkersWarmOnce: two servers over one folder sharing a tile folder
// (as the workers of one front do) warm the overview's tiles between
// them once: every tile computed by one of them, none by both, and each
// one's overview then shows every tile without a pending one.
func TestWorkersWarmOnce(t *testing.T) {
	dir := manyTopics(t, 7)
	tiles := t.TempDir()
	o := Options{Dir: dir, overviewInline: 1, overviewBudget: time.Nanosecond, tileDir: tiles}
	a, ta := newTestServer(t, o)
	b, tb := newTestServer(t, o)
	for _, u := range []string{ta.URL, tb.URL} {
		if r := get(t, u+"/"); r.code != 200 {
			t.Fatalf("first view: %d %s", r.code, r.body)
		}
	}
	total := int64(7 * len(tileOrder(nil, "")))
	deadline := time.Now().Add(120 * time.Second)
	for a.warm.pending()+b.warm.pending() > 0 || a.warm.computed.Load()+b.warm.computed.Load() < total {
		if time.Now().After(deadline) {
			t.Fatalf("after 120 s: %d and %d computed of %d, %d and %d queued", a.warm.computed.Load(), b.warm.computed.Load(), total, a.warm.pending(), b.warm.pending())
		}
		time.Sleep(100 * time.Millisecond)
		// The pages reload themselves while tiles are pending; so do we.
		get(t, ta.URL+"/?page=1")
		get(t, tb.URL+"/?page=1")
	}
	time.Sleep(300 * time.Millisecond) // a last job finishing
	if got := a.warm.computed.Load() + b.warm.computed.Load(); got != total {
		t.Errorf("%d tiles computed between the two (%d and %d), want each of the %d once", got, a.warm.computed.Load(), b.warm.computed.Load(), total)
	}
	for _, u := range []string{ta.URL, tb.URL} {
		r := get(t, u+"/")
		if strings.Contains(r.body, `class="tile pending"`) || len(tileRE.FindAllStringSubmatch(r.body, -1)) == 0 {
			t.Errorf("%s: pending tiles (or none) after the warm:\n%s", u, r.body)
		}
	}
}
