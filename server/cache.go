package server

import (
	"sync"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
	"github.com/topicsnap/topicsnap/queries"
)

// reportCache keeps check results (their charts, and rendered notebooks)
// of one catalog version. A result of another version empties it: old
// reports describe files that may be gone. Errors a check gives for its
// options are kept too (they do not change until the catalog does);
// timeouts and cancellations are not.
//
// It is bounded twice: by entries, and by bytes, the sum of each entry's
// estimated size in memory (cached.size). When a new entry would pass
// either bound, the oldest entries go first. An entry larger than an
// eighth of the byte bound is not kept at all: one odd request cannot
// push out everything else.
type reportCache struct {
	maxItems int
	maxBytes int64

	mu      sync.Mutex
	version string
	items   map[string]cached
	order   []string // keys, oldest first
	bytes   int64
}

type cached struct {
	report   *queries.Report
	charts   []chart.Chart
	notebook *notebookPage
	html     []byte // a rendered page
	err      error
	bytes    int64 // estimated size, set by put
}

func newReportCache(maxItems int, maxBytes int64) *reportCache {
	return &reportCache{maxItems: maxItems, maxBytes: maxBytes, items: map[string]cached{}}
}

// get returns the result stored under key for version.
func (c *reportCache) get(version, key string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		return cached{}, false
	}
	v, ok := c.items[key]
	return v, ok
}

// put stores a result, evicting the oldest entries to stay inside the
// bounds; it tells whether the result was kept.
func (c *reportCache) put(version, key string, v cached) bool {
	v.bytes = int64(len(key)) + v.size()
	if v.bytes > c.maxBytes/8 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version {
		c.version, c.items, c.order, c.bytes = version, map[string]cached{}, nil, 0
	}
	if old, ok := c.items[key]; ok {
		c.bytes -= old.bytes
		delete(c.items, key)
		for i, k := range c.order {
			if k == key {
				c.order = append(c.order[:i], c.order[i+1:]...)
				break
			}
		}
	}
	for len(c.order) > 0 && (len(c.items) >= c.maxItems || c.bytes+v.bytes > c.maxBytes) {
		oldest := c.order[0]
		c.order = c.order[1:]
		c.bytes -= c.items[oldest].bytes
		delete(c.items, oldest)
	}
	c.items[key] = v
	c.order = append(c.order, key)
	c.bytes += v.bytes
	return true
}

// usage returns the entries and estimated bytes held.
func (c *reportCache) usage() (items int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}

// Sizes in memory, estimated generously: the Go representation of a value
// (interface, map entry, slice and string headers) costs more than its
// text. The figures are per-item overheads measured on amd64 and rounded
// up; see TestCacheEstimate.
const (
	sizeEntry  = 256 // an entry itself: the map slot, the key's slot in order
	sizeRow    = 160 // an ordered map: its header, its keys slice, its map
	sizeField  = 64  // one key of a row: the key's string, the map slot, the boxed value
	sizeValue  = 24  // a value: interface plus what it boxes, beyond its text
	sizeString = 16  // a string header
)

// size estimates the memory an entry holds on to.
func (v cached) size() int64 {
	n := int64(sizeEntry)
	if v.report != nil {
		r := v.report
		n += int64(len(r.Check)+len(r.Topic)+len(r.Status)+len(r.Message)) + 4*sizeString
		if r.Summary != nil {
			n += orderedSize(r.Summary)
		}
		for i := range r.Rows {
			n += orderedSize(&r.Rows[i])
		}
		for _, t := range r.Tables {
			n += int64(len(t.Title)) + sizeString
			for _, c := range t.Columns {
				n += int64(len(c)) + sizeString
			}
			for _, row := range t.Rows {
				n += 24 // slice header
				for _, x := range row {
					n += valueSize(x)
				}
			}
		}
	}
	for _, c := range v.charts {
		n += int64(len(c.Title)+len(c.Note)+len(c.SVG)) + 3*sizeString
	}
	if v.notebook != nil {
		n += int64(len(v.notebook.html)+len(v.notebook.styleHash)) + 48
	}
	n += int64(len(v.html))
	if v.err != nil {
		n += int64(len(v.err.Error())) + 64
	}
	return n
}

func orderedSize(m *queries.Summary) int64 {
	n := int64(sizeRow)
	for _, k := range m.Keys {
		n += 2*int64(len(k)) + sizeField + valueSize(m.Vals[k]) // the key is in Keys and in Vals
	}
	return n
}

// valueSize estimates one value of a report, nested lists and maps
// included.
func valueSize(v any) int64 {
	switch x := v.(type) {
	case nil:
		return sizeString
	case string:
		return int64(len(x)) + sizeValue
	case []byte:
		return int64(len(x)) + sizeValue + 8
	case time.Time, display.Date:
		return sizeValue + 24
	case []any:
		n := int64(sizeValue + 24)
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	case map[string]any:
		n := int64(sizeRow)
		for k, e := range x {
			n += int64(len(k)) + sizeField + valueSize(e)
		}
		return n
	}
	return sizeValue
}
