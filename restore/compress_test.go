package restore

import (
	"bytes"
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
