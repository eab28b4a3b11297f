package restore

import (
	"bytes"
	"sync"

	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// lz4Compressor frames a batch's records as the Java producer does: lz4
// blocks of 64 KiB, no content checksum, each compressed by the reference
// library's fast algorithm (LZ4_compress_default, which lz4-java calls;
// pierrec/lz4's CompressorCCompat). franz-go's own lz4 writes 4 MiB
// blocks with an xxHash of the content: for ~200 B JSON records its
// compression ran at ~480 MB/s against ~790 MB/s in 64 KiB blocks (whose
// hash table stays in the CPU's cache), the most CPU a default restore
// spent (~0.45 s a million records), for batches ~6% smaller. On the
// bench's records (scripts/bench-restore.sh) the reference algorithm (a
// 16 KiB table, one position a step) compresses 10-15% faster than
// pierrec/lz4's own Fast level (a 128 KiB table, three positions a step)
// and 4% smaller (318 against 333 KB a MiB); on more repetitive data
// Fast can be smaller. Every Kafka client and the broker read either
// framing.
type lz4Compressor struct {
	pool sync.Pool // *lz4.Writer
}

func newLz4Compressor() *lz4Compressor {
	c := &lz4Compressor{}
	c.pool.New = func() any {
		w := lz4.NewWriter(nil)
		if err := w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false), lz4.CompressionLevelOption(lz4.CCompatFast)); err != nil {
			panic("restore: lz4 options: " + err.Error()) // constant options: never
		}
		return w
	}
	return c
}

// Compress implements kgo.Compressor. A failed write returns nil: franz-go
// then sends the batch uncompressed.
func (c *lz4Compressor) Compress(dst *bytes.Buffer, src []byte, _ ...kgo.CompressFlag) ([]byte, kgo.CompressionCodecType) {
	w := c.pool.Get().(*lz4.Writer)
	defer c.pool.Put(w)
	w.Reset(dst)
	if _, err := w.Write(src); err != nil {
		return nil, kgo.CodecLz4
	}
	if err := w.Close(); err != nil {
		return nil, kgo.CodecLz4
	}
	return dst.Bytes(), kgo.CodecLz4
}
