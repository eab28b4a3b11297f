package catalog

import (
	"runtime"
	"sync"

	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// pageBufferSize is the size of the pages a FileWriter writes.
const pageBufferSize = 1 << 20

// zstdCodec compresses every file's pages. parquet-go's own zstd codec
// keeps its encoders in a sync.Pool, which the collector empties: under the
// dump's soft memory limit it collects often, and each encoder made again
// allocated (and cleared) a 16 MiB history for its default 8 MiB window,
// more GC work in turn (an Avro dump, whose heap sits at the limit, spent
// twice the JSON dump's share of its CPU in GC). Here the encoders stay in
// a free list, and the window is a page: each call compresses one page on
// its own, so matches never reach further back than that.
var zstdCodec = &zstdEncoders{level: kzstd.SpeedFastest, window: pageBufferSize}

type zstdEncoders struct {
	zstd.Codec // the name, the format's code and Decode
	level      kzstd.EncoderLevel
	window     int

	mu   sync.Mutex
	free []*kzstd.Encoder
}

func (c *zstdEncoders) Encode(dst, src []byte) ([]byte, error) {
	c.mu.Lock()
	var e *kzstd.Encoder
	if n := len(c.free); n > 0 {
		e, c.free = c.free[n-1], c.free[:n-1]
	}
	c.mu.Unlock()
	if e == nil {
		var err error
		e, err = kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1), kzstd.WithEncoderLevel(c.level),
			kzstd.WithWindowSize(c.window), kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
		if err != nil {
			return nil, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	c.mu.Lock()
	// As many as can run at once, and a few more; others go to the collector.
	if len(c.free) < runtime.GOMAXPROCS(0)+2 {
		c.free = append(c.free, e)
	}
	c.mu.Unlock()
	return out, nil
}
