package queries

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// The inferred value structure of a topic depends only on the files it is
// sampled from (the first and the last of the topic), and committed data
// files never change under their name. Inference reads and parses thousands
// of values (~30 ms a topic), so its answer is kept in the user's cache
// folder, keyed by the sampled files' paths, sizes and modification times:
// a new dump adds a new last file and so a new key. The cache is only ever
// a shortcut: unreadable, unwritable or stale, it is ignored.

// maxInferCacheBytes bounds a cache entry: a structure of maxViewFields
// fields with long names fits many times over.
const maxInferCacheBytes = 4 << 20

type inferred struct {
	Structure string `json:"structure"`
	JSON      bool   `json:"json"`
}

// inferCacheDir is where inferred structures are kept; "" disables the cache.
var inferCacheDir = func() string {
	if d := os.Getenv("TOPICSNAP_CACHE_DIR"); d != "" {
		return filepath.Join(d, "structures")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "topicsnap", "structures")
}()

// inferCacheKey names the cache entry of a sample; ok is false when a file
// cannot be stat'ed (then nothing is cached).
func inferCacheKey(sample []string) (string, bool) {
	h := sha256.New()
	fmt.Fprintf(h, "v4\n") // v4: values past jsonbound's bounds left out, the sample's bytes and the structure bounded
	for _, p := range sample {
		st, err := os.Stat(p)
		if err != nil {
			return "", false
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// inferJSONCached is inferJSON through the cache.
func inferJSONCached(ctx context.Context, tx rowQuerier, paths []string, encoded bool) (string, bool, error) {
	key, ok := inferCacheKey(sampleFiles(paths))
	if !ok || inferCacheDir == "" {
		return inferJSON(ctx, tx, paths, encoded)
	}
	if encoded {
		key += "-decoded"
	}
	file := filepath.Join(inferCacheDir, key+".json")
	// The cache is the user's, but bounded like every file topicsnap reads.
	if b, err := safefile.ReadFile(file, maxInferCacheBytes); err == nil {
		var c inferred
		if json.Unmarshal(b, &c) == nil && (c.JSON == (c.Structure != "")) {
			return c.Structure, c.JSON, nil
		}
	}
	s, isJSON, err := inferJSON(ctx, tx, paths, encoded)
	if err != nil {
		return s, isJSON, err
	}
	if b, err := json.Marshal(inferred{Structure: s, JSON: isJSON}); err == nil {
		if os.MkdirAll(inferCacheDir, 0o755) == nil {
			// Best effort: a cache that cannot be written is no cache.
			_ = catalog.WriteFileAtomic(file, func(w io.Writer) error { _, err := w.Write(b); return err })
		}
	}
	return s, isJSON, nil
}

// sampleFiles are the files inference reads: the first and the last.
func sampleFiles(paths []string) []string {
	if len(paths) <= 1 {
		return paths
	}
	return []string{paths[0], paths[len(paths)-1]}
}
