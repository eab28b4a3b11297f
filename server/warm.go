package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/queries"
)

// The overview of a large folder does not wait for its tiles: it takes
// those known (the tile store, or a report already cached), computes
// missing ones for a short budget, and shows the rest as "pending",
// which the warmer computes in the background; the page refreshes itself
// until none is pending (pages.go, buildOverview).

// tileStore keeps the overview's tiles, each with the stamp it was
// computed at (tileStamp: its topic's version and the checks file): a
// tile is served only while its stamp holds, so a dump that commits one
// topic leaves every other topic's tiles as they were. A tile is a few
// strings, so the tiles of a whole cluster (12,000 for 1,000 topics) fit
// where their reports would not (the report cache holds maxCacheItems). A
// pending tile, or one that found the server busy or was cancelled, is not
// kept; one past its time is kept only when the warmer computed it (else
// the next view tries again, as for a small folder; the warmer's would be
// queued again and again).
//
// The workers of one front share their tiles through a folder (dir, in
// the front's private folder): a tile kept is also written there, a tile
// not in memory is looked for there, and a warmer claims a tile before it
// computes it, so the folder is warmed once, not once per worker.
type tileStore struct {
	mu    sync.Mutex
	tiles map[tileKey]storedTile
	dir   string // shared with the other workers; "" for none
}

type tileKey struct{ check, topic string }

type storedTile struct {
	Stamp string `json:"stamp"`
	Tile  tile   `json:"tile"`
}

// tileDoc is a tile in the shared folder: with its key, so a file under
// another key's name is no tile.
type tileDoc struct {
	storedTile
	Check string `json:"check"`
	Topic string `json:"topic"`
}

const (
	// maxTiles bounds the store: a new tile past it empties the store in
	// memory (the tiles of topics gone from the folder are never asked
	// for again).
	maxTiles = 200_000
	// maxTileFile bounds a tile read from the shared folder.
	maxTileFile = 64 << 10
	// claimFor is how long a claim holds a tile for the worker that
	// made it (a worker killed while computing leaves its claim).
	claimFor = 2 * time.Minute
)

func (ts *tileStore) get(stamp string, k tileKey) (tile, bool) {
	return ts.getListed(stamp, k, nil)
}

// getListed is get for a caller that looks up many tiles: listed is the
// shared folder's files (onDisk), and a tile not among them is not read.
func (ts *tileStore) getListed(stamp string, k tileKey, listed map[string]bool) (tile, bool) {
	ts.mu.Lock()
	st, ok := ts.tiles[k]
	ts.mu.Unlock()
	if ok && st.Stamp == stamp {
		return st.Tile, true
	}
	if ts.dir == "" || listed != nil && !listed[tileName(k, ".json")] {
		return tile{}, false
	}
	st, ok = ts.read(k)
	if !ok || st.Stamp != stamp {
		return tile{}, false
	}
	ts.keep(k, st)
	return st.Tile, true
}

func (ts *tileStore) put(stamp string, k tileKey, t tile, keepTimeout bool) {
	if t.Status == "pending" || t.Label == "busy" || t.Label == "cancelled" || (t.Status == "timeout" && !keepTimeout) {
		return
	}
	st := storedTile{stamp, t}
	ts.keep(k, st)
	if ts.dir != "" {
		ts.write(k, st)
	}
}

func (ts *tileStore) keep(k tileKey, st storedTile) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, ok := ts.tiles[k]; !ok && len(ts.tiles) >= maxTiles || ts.tiles == nil {
		ts.tiles = map[tileKey]storedTile{}
	}
	ts.tiles[k] = st
}

// onDisk lists the tiles in the shared folder (nil without one, or when
// it cannot be read: then each tile is looked for).
func (ts *tileStore) onDisk() map[string]bool {
	if ts.dir == "" {
		return nil
	}
	es, err := os.ReadDir(ts.dir)
	if err != nil {
		return nil
	}
	m := make(map[string]bool, len(es))
	for _, e := range es {
		m[e.Name()] = true
	}
	return m
}

// tileName is the name the shared folder keeps a tile under (ext
// ".json") or its claim (".claim"): a hash of its key, so no topic name
// becomes a file name.
func tileName(k tileKey, ext string) string {
	h := sha256.Sum256([]byte(k.check + "\x00" + k.topic))
	return hex.EncodeToString(h[:16]) + ext
}

// tileFile is tileName's path in the shared folder.
func (ts *tileStore) tileFile(k tileKey, ext string) string {
	return filepath.Join(ts.dir, tileName(k, ext))
}

// read reads a tile from the shared folder as safefile reads a file
// someone else chose (no FIFO, device or link out of the folder, at most
// maxTileFile bytes); a file that is missing, refused, not a tile or
// another key's is no tile.
func (ts *tileStore) read(k tileKey) (storedTile, bool) {
	b, err := safefile.ReadFileIn(ts.dir, tileName(k, ".json"), maxTileFile)
	if err != nil {
		return storedTile{}, false
	}
	var d tileDoc
	if json.Unmarshal(b, &d) != nil || d.Check != k.check || d.Topic != k.topic {
		return storedTile{}, false
	}
	return d.storedTile, true
}

// write writes a tile to the shared folder: a temp file renamed over the
// last one, so a reader sees a whole tile or the one before. It is a
// cache: no fsync, and a failure costs the other workers the tile alone.
func (ts *tileStore) write(k tileKey, st storedTile) {
	b, err := json.Marshal(tileDoc{st, k.check, k.topic})
	if err != nil {
		return
	}
	f, err := os.CreateTemp(ts.dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(f.Name())
		return
	}
	if os.Rename(f.Name(), ts.tileFile(k, ".json")) != nil {
		os.Remove(f.Name())
	}
}

// claim tells whether this worker may compute k now: always without a
// shared folder; with one, when no other worker claimed it within
// claimFor. The claim is released by unclaim.
func (ts *tileStore) claim(k tileKey) bool {
	if ts.dir == "" {
		return true
	}
	name := ts.tileFile(k, ".claim")
	for range 3 {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return true
		}
		if !errors.Is(err, fs.ErrExist) {
			return true // the folder failed us: compute it here, as without one
		}
		st, err := os.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // released just now
		case err != nil:
			return true
		case time.Since(st.ModTime()) < claimFor:
			return false // another worker computes it
		}
		os.Remove(name) // a stale claim: its worker is gone
	}
	return false
}

func (ts *tileStore) unclaim(k tileKey) {
	if ts.dir != "" {
		os.Remove(ts.tileFile(k, ".claim"))
	}
}

// warmer computes pending tiles in the background, one at a time and
// only while no request is being served, for the server's life: the server starts it in New and Close cancels it and
// waits for it. Its queue is bounded (maxTiles) and holds each tile once;
// a job of an older catalog version or checks file is dropped.
type warmer struct {
	s      *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wake   chan struct{}
	done   chan struct{} // closed when run returns

	mu     sync.Mutex
	queue  []stampedKey
	queued map[stampedKey]bool

	computed atomic.Int64 // tiles this warmer computed and kept

	// run's own: the checks file's entries as of its stamp.
	cfgStamp string
	cfgs     []queries.ConfiguredCheck
}

func newWarmer(ctx context.Context, s *Server) *warmer {
	w := &warmer{s: s, wake: make(chan struct{}, 1), done: make(chan struct{}), queued: map[stampedKey]bool{}}
	w.ctx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	w.wg.Add(1)
	go w.run()
	return w
}

// add queues tiles to compute; it tells how many are queued after it.
func (w *warmer) add(ks []stampedKey) int {
	w.mu.Lock()
	for _, k := range ks {
		if !w.queued[k] && len(w.queue) < maxTiles {
			w.queued[k] = true
			w.queue = append(w.queue, k)
		}
	}
	n := len(w.queue)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return n
}

// pending is how many tiles wait in the queue.
func (w *warmer) pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

func (w *warmer) next() (stampedKey, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return stampedKey{}, false
	}
	j := w.queue[0]
	w.queue = w.queue[1:]
	delete(w.queued, j)
	return j, true
}

func (w *warmer) run() {
	defer w.wg.Done()
	defer close(w.done)
	for {
		j, ok := w.next()
		if !ok {
			select {
			case <-w.ctx.Done():
				return
			case <-w.wake:
				continue
			}
		}
		if w.ctx.Err() != nil {
			return
		}
		s := w.s
		cs := s.checksFileStamp()
		if cs != w.cfgStamp || w.cfgs == nil {
			// The checks file is read again only when it changed, not
			// once a tile.
			w.cfgs, _ = queries.ReadChecksFile(s.engine.Dir())
			w.cfgStamp = cs
			if w.cfgs == nil {
				w.cfgs = []queries.ConfiguredCheck{}
			}
		}
		if j.stamp != s.tileStamp(j.topic, cs, w.cfgs) {
			continue // the topic or the checks file changed: the next view asks again
		}
		if _, ok := s.tiles.get(j.stamp, j.tileKey); ok {
			continue
		}
		// Another worker of the front computing it: the next view reads
		// it from the shared folder (or asks again).
		if !s.tiles.claim(j.tileKey) {
			continue
		}
		if _, ok := s.tiles.get(j.stamp, j.tileKey); ok {
			s.tiles.unclaim(j.tileKey) // kept by the worker whose claim just ended
			continue
		}
		if !w.compute(j) {
			return
		}
	}
}

// compute computes a claimed tile and keeps it, once no request is being
// served and a check slot is free; false when the warmer is stopped.
func (w *warmer) compute(j stampedKey) bool {
	s := w.s
	defer s.tiles.unclaim(j.tileKey)
	// People's requests go first: the warmer starts a check only
	// while none is being served.
	for s.inFlight.Load() > 0 {
		select {
		case <-w.ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	for {
		t := s.tileKept(w.ctx, j.check, j.topic, false)
		if w.ctx.Err() != nil {
			return false
		}
		if t.Label != "busy" {
			s.tiles.put(j.stamp, j.tileKey, t, true)
			w.computed.Add(1)
			return true
		}
		// Every check slot is taken by requests: they go first.
		select {
		case <-w.ctx.Done():
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop cancels the warmer and waits for it.
func (w *warmer) stop() {
	w.cancel()
	w.wg.Wait()
}

// tileStoreKey is what the overview's pages are a function of: the
// catalog version and the checks file.
func (s *Server) tileStoreKey() string {
	return s.engine.Version() + "/" + s.checksFileStamp()
}

// stampedKey is a tile asked for, with its stamp when it was asked for
// (a view's missing tile, a warmer's job).
type stampedKey struct {
	stamp string
	tileKey
}

// tileStamp is what a topic's tiles are a function of: the topic's
// version (what its checks read), and the checks file (cs, its
// checksFileStamp, and cfgs, its entries). A topic the checks file gives
// a group gets the folder's version instead: whether a group is unknown
// is a question about every topic's cuts.
func (s *Server) tileStamp(topic, cs string, cfgs []queries.ConfiguredCheck) string {
	v := s.engine.TopicVersion(topic)
	for _, c := range cfgs {
		if c.Topic == topic && c.Options["group"] != "" {
			v = ""
		}
	}
	if v == "" {
		v = "folder:" + s.engine.Version()
	}
	return v + "/" + cs
}
