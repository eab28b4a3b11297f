package restore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLz4CompressorRoundTrips: what lz4Compressor makes of a batch,
// franz-go's decompressor (any consumer's) reads back byte for byte, in
// frames of 64 KiB blocks without a content checksum (as the Java
// producer writes them), smaller than the batch when it compresses.
func TestLz4CompressorRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	json := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, `{"event_id":"e%09d","user":"user-%04d","amount":%d}`, i, rng.IntN(5000), rng.IntN(1e6))
		}
		return b.Bytes()[:n]
	}
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	c := newLz4Compressor()
	dec := kgo.DefaultDecompressor()
	for _, tc := range []struct {
		name    string
		src     []byte
		smaller bool
	}{
		{"one record", json(200), true},
		{"one block", json(64 << 10), true},
		{"many blocks", json(1 << 20), true},
		{"a block and a bit", json(64<<10 + 7), true},
		{"incompressible", noise(100 << 10), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dst bytes.Buffer
			out, codec := c.Compress(&dst, tc.src)
			if codec != kgo.CodecLz4 || out == nil {
				t.Fatalf("codec %v, %d bytes", codec, len(out))
			}
			if tc.smaller && len(out) >= len(tc.src) {
				t.Errorf("%d bytes compressed to %d", len(tc.src), len(out))
			}
			back, err := dec.Decompress(out, kgo.CodecLz4)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, tc.src) {
				t.Fatalf("read back %d bytes that differ from the %d written", len(back), len(tc.src))
			}
			// The frame's descriptor: FLG (version 01, block independence,
			// no block checksum, no size, no content checksum) and BD
			// (block size 64 KiB: 4 << 4).
			if len(out) < 6 || out[4]&0x04 != 0 || out[5] != 4<<4 {
				t.Errorf("frame descriptor FLG %#x BD %#x: want no content checksum and 64 KiB blocks", out[4], out[5])
			}
			var again bytes.Buffer
			if _, err := again.ReadFrom(lz4.NewReader(bytes.NewReader(out))); err != nil || !bytes.Equal(again.Bytes(), tc.src) {
				t.Fatalf("lz4's own reader: %v, %d bytes", err, again.Len())
			}
		})
	}
	// A pooled writer starts each batch afresh: the same batch compresses
	// to the same bytes after another one.
	src := json(5000)
	var a, b, again bytes.Buffer
	first, _ := c.Compress(&a, src)
	first = bytes.Clone(first)
	c.Compress(&b, noise(5000))
	if out, _ := c.Compress(&again, src); !bytes.Equal(out, first) {
		t.Fatalf("the same batch compressed to %d bytes, then %d", len(first), len(out))
	}
}

// TestLz4CompressorIsTheReferenceAlgorithm: each block of a frame is what
// the reference library's LZ4_compress_default makes of it (lz4-java's
// fast compressor, so the Java producer's bytes; pierrec/lz4's
// CompressorCCompat), which compresses ~200 B JSON records faster and
// smaller than pierrec/lz4's own Fast level did.
func TestLz4CompressorIsTheReferenceAlgorithm(t *testing.T) {
	var src bytes.Buffer
	for i := 0; src.Len() < 200<<10; i++ {
		fmt.Fprintf(&src, `{"event_id":"e%09d","user":"user-%04d","amount":%d,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`, i, i*7919%5000, i*104729%1000000)
	}
	var dst bytes.Buffer
	out, _ := newLz4Compressor().Compress(&dst, src.Bytes())
	// Magic (4 bytes), FLG, BD, HC; then blocks: a 4-byte size (the high
	// bit: stored uncompressed) and the block; a zero size ends the frame.
	if len(out) < 7 {
		t.Fatalf("a frame of %d bytes", len(out))
	}
	in, blocks := src.Bytes(), out[7:]
	var ref lz4.CompressorCCompat
	want := make([]byte, lz4.CompressBlockBound(64<<10))
	for n := 0; len(in) > 0; n++ {
		if len(blocks) < 4 {
			t.Fatalf("the frame ends before block %d", n)
		}
		size := binary.LittleEndian.Uint32(blocks)
		if size&(1<<31) != 0 || int(size) > len(blocks)-4 {
			t.Fatalf("block %d: size word %#x", n, size)
		}
		k := min(len(in), 64<<10)
		m, err := ref.CompressBlock(in[:k], want)
		if err != nil {
			t.Fatal(err)
		}
		if got := blocks[4 : 4+size]; !bytes.Equal(got, want[:m]) {
			t.Fatalf("block %d: %d bytes, the reference algorithm makes %d (another algorithm compressed it)", n, len(got), m)
		}
		in, blocks = in[k:], blocks[4+size:]
	}
	if !bytes.Equal(blocks, []byte{0, 0, 0, 0}) {
		t.Fatalf("after the blocks: %x, want the end mark", blocks)
	}
}
