package server

import (
	"sync"

	"github.com/topicsnap/topicsnap/queries"
)

// reportCache keeps check results (their charts, and rendered notebooks) of one catalog version. A result of
// another version empties it: old reports describe files that may be gone.
// Errors a check gives for its options are kept too (they do not change
// until the catalog does); timeouts and cancellations are not.
type reportCache struct {
	max int

	mu      sync.Mutex
	version string
	items   map[string]cached
}

type cached struct {
	report   *queries.Report
	charts   []chart
	notebook *notebookPage
	err      error
}

func newReportCache(max int) *reportCache {
	return &reportCache{max: max, items: map[string]cached{}}
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

// put stores a result. When full, the cache starts over rather than track
// recency: it is a shortcut, not a store.
func (c *reportCache) put(version, key string, v cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version != c.version || len(c.items) >= c.max {
		c.version, c.items = version, map[string]cached{}
	}
	c.items[key] = v
}
