package server

import (
	"context"
	"sync"
	"time"

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
type tileStore struct {
	mu    sync.Mutex
	tiles map[tileKey]storedTile
}

type tileKey struct{ check, topic string }

type storedTile struct {
	stamp string
	tile
}

// maxTiles bounds the store: a new tile past it empties the store (the
// tiles of topics gone from the folder are never asked for again).
const maxTiles = 200_000

func (ts *tileStore) get(stamp string, k tileKey) (tile, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	st, ok := ts.tiles[k]
	if !ok || st.stamp != stamp {
		return tile{}, false
	}
	return st.tile, true
}

func (ts *tileStore) put(stamp string, k tileKey, t tile, keepTimeout bool) {
	if t.Status == "pending" || t.Label == "busy" || t.Label == "cancelled" || (t.Status == "timeout" && !keepTimeout) {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, ok := ts.tiles[k]; !ok && len(ts.tiles) >= maxTiles || ts.tiles == nil {
		ts.tiles = map[tileKey]storedTile{}
	}
	ts.tiles[k] = storedTile{stamp, t}
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
	queue  []warmJob
	queued map[warmJob]bool
}

type warmJob struct {
	stamp string // the tile's stamp when it was asked for
	tileKey
}

func newWarmer(ctx context.Context, s *Server) *warmer {
	w := &warmer{s: s, wake: make(chan struct{}, 1), done: make(chan struct{}), queued: map[warmJob]bool{}}
	w.ctx, w.cancel = context.WithCancel(context.WithoutCancel(ctx))
	w.wg.Add(1)
	go w.run()
	return w
}

// add queues tiles to compute; it tells how many are queued after it.
func (w *warmer) add(ks []stampedKey) int {
	w.mu.Lock()
	for _, k := range ks {
		j := warmJob(k)
		if !w.queued[j] && len(w.queue) < maxTiles {
			w.queued[j] = true
			w.queue = append(w.queue, j)
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

func (w *warmer) next() (warmJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) == 0 {
		return warmJob{}, false
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
		cfgs, _ := queries.ReadChecksFile(s.engine.Dir())
		if j.stamp != s.tileStamp(j.topic, s.checksFileStamp(), cfgs) {
			continue // the topic or the checks file changed: the next view asks again
		}
		if _, ok := s.tiles.get(j.stamp, j.tileKey); ok {
			continue
		}
		// People's requests go first: the warmer starts a check only
		// while none is being served.
		for s.inFlight.Load() > 0 {
			select {
			case <-w.ctx.Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		for {
			t := s.tileKept(w.ctx, j.check, j.topic, false)
			if w.ctx.Err() != nil {
				return
			}
			if t.Label != "busy" {
				s.tiles.put(j.stamp, j.tileKey, t, true)
				break
			}
			// Every check slot is taken by requests: they go first.
			select {
			case <-w.ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
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

// stampedKey is a tile asked for, with its stamp.
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
