package queries

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Decoding a data file's footer costs ~40 µs of CPU, and an open checks
// every file a local folder lists (checkContents): on 24,000 files about
// a second, which nearly doubled the open of a folder of 1,000 topics. A
// committed data file never changes under its name, so the files whose
// footer decoded are kept in the user's cache folder, one cache file a
// snapshot folder, by their path in the folder, size, modification time
// and inode: the next open decodes only the files it has not seen (their
// ends are still checked, and their footer's length held to its bound,
// on every open). A file rewritten in place gets a new modification time,
// a folder copied anew new inodes. The cache is only a shortcut: a stale
// hit costs what the check prevents (a query of the file's topic fails
// with exit 9 naming it), never more; unreadable or unwritable, it is
// ignored.

// footerCacheMagic heads a cache file; the keys (8 bytes each) follow.
const footerCacheMagic = "TSFOOT02"

// maxFooterCacheKeys bounds a cache file (8 bytes a key: 16 MiB).
const maxFooterCacheKeys = 2 << 20

// footerCacheDir is where the caches are kept; "" disables them.
var footerCacheDir = func() string {
	if d := os.Getenv("TOPICSNAP_CACHE_DIR"); d != "" {
		return filepath.Join(d, "footers")
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "topicsnap", "footers")
}()

// footerCache is the set of files of one folder whose footer decoded.
type footerCache struct {
	file  string // "" when disabled
	known map[uint64]bool
	mu    sync.Mutex
	seen  []uint64 // keys met on this open (checked or known)
	added bool
}

// openFooterCache reads the cache of the local folder root (an empty one
// when there is none, or it does not read).
func openFooterCache(root string) *footerCache {
	c := &footerCache{known: map[uint64]bool{}}
	if footerCacheDir == "" {
		return c
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return c
	}
	sum := sha256.Sum256([]byte(abs))
	c.file = filepath.Join(footerCacheDir, hex.EncodeToString(sum[:16]))
	b, err := safefile.ReadFile(c.file, int64(len(footerCacheMagic)+8*maxFooterCacheKeys))
	if err != nil || !bytes.HasPrefix(b, []byte(footerCacheMagic)) || (len(b)-len(footerCacheMagic))%8 != 0 {
		return c
	}
	for k := b[len(footerCacheMagic):]; len(k) > 0; k = k[8:] {
		c.known[binary.LittleEndian.Uint64(k)] = true
	}
	return c
}

// key is a data file's key (rel: its path in the folder); ok is false when
// the file's inode is not known (nothing is cached of it).
func (c *footerCache) key(rel string, st os.FileInfo) (uint64, bool) {
	if c == nil || c.file == "" {
		return 0, false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	h := fnv.New64a()
	var b [24]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(st.Size()))
	binary.LittleEndian.PutUint64(b[8:], uint64(st.ModTime().UnixNano()))
	binary.LittleEndian.PutUint64(b[16:], uint64(sys.Ino))
	io.WriteString(h, rel)
	h.Write(b[:])
	return h.Sum64(), true
}

// has reports whether the file of key k decoded before, and counts it as
// met.
func (c *footerCache) has(k uint64) bool {
	ok := c.known[k] // read-only once opened
	if ok {
		c.mu.Lock()
		c.seen = append(c.seen, k)
		c.mu.Unlock()
	}
	return ok
}

// add records that the file of key k decoded.
func (c *footerCache) add(k uint64) {
	c.mu.Lock()
	c.seen, c.added = append(c.seen, k), true
	c.mu.Unlock()
}

// save writes the cache back when this open decoded a file it did not
// know: the keys known and met, or only those met past the bound.
func (c *footerCache) save() {
	if c == nil || c.file == "" || !c.added {
		return
	}
	keys := c.seen
	if len(c.known)+len(c.seen) <= maxFooterCacheKeys {
		for k := range c.known {
			keys = append(keys, k)
		}
	}
	if len(keys) > maxFooterCacheKeys {
		return
	}
	out := make([]byte, 0, len(footerCacheMagic)+8*len(keys))
	out = append(out, footerCacheMagic...)
	written := map[uint64]bool{}
	for _, k := range keys {
		if !written[k] {
			written[k] = true
			out = binary.LittleEndian.AppendUint64(out, k)
		}
	}
	if os.MkdirAll(footerCacheDir, 0o755) == nil {
		// Best effort: a cache that cannot be written is no cache.
		_ = catalog.WriteFileAtomic(c.file, func(w io.Writer) error { _, err := w.Write(out); return err })
	}
}
