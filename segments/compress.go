package segments

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// decompressor undoes a batch's compression with the libraries franz-go
// uses, never producing more than a cap: the output is read through a
// limit one byte past it, so a zip bomb stops at the cap and costs its
// batch.
type decompressor struct {
	zstd *zstd.Decoder
}

// xerialMagic starts snappy data framed the way snappy-java (Kafka's Java
// producer) writes it: a header, then blocks each with its length.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func (d *decompressor) decompress(codec int8, in []byte, limit int) ([]byte, error) {
	var r io.Reader
	switch codec {
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(in))
		if err != nil {
			return nil, fmt.Errorf("gzip: %v", err)
		}
		r = zr
	case CodecSnappy:
		return snappy(in, limit)
	case CodecLZ4:
		r = lz4.NewReader(bytes.NewReader(in))
	case CodecZstd:
		if d.zstd == nil {
			z, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)+1),
				zstd.WithDecoderMaxWindow(uint64(min(limit, 1<<30))))
			if err != nil {
				return nil, fmt.Errorf("zstd: %v", err)
			}
			d.zstd = z
		}
		if err := d.zstd.Reset(bytes.NewReader(in)); err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		r = d.zstd
	default:
		return nil, fmt.Errorf("unknown compression codec %d", codec)
	}
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, fmt.Errorf("zstd: its window is past the cap of %d bytes", limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", CodecName(codec), err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("%s: decompresses past the cap of %d bytes", CodecName(codec), limit)
	}
	return out, nil
}

// decompressV01 is decompress for a v0/v1 wrapper. Magic 0 wrote LZ4 with
// a wrong frame header checksum (KAFKA-3160), which the lz4 reader refuses:
// such data is reported as damaged, not guessed at.
func (d *decompressor) decompressV01(codec int8, in []byte, limit int, magic int8) ([]byte, error) {
	if codec == CodecZstd {
		return nil, fmt.Errorf("zstd in a magic %d message (Kafka allows it only in v2 batches)", magic)
	}
	return d.decompress(codec, in, limit)
}

// snappy decodes a raw snappy block or xerial-framed blocks, checking each
// block's stated length against what is left of the cap before decoding.
func snappy(in []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(in, xerialMagic) {
		n, err := s2.DecodedLen(in)
		if err != nil {
			return nil, fmt.Errorf("snappy: %v", err)
		}
		if n > limit {
			return nil, fmt.Errorf("snappy: decompresses to %d bytes, past the cap of %d", n, limit)
		}
		out, err := s2.Decode(nil, in)
		if err != nil {
			return nil, fmt.Errorf("snappy: %v", err)
		}
		return out, nil
	}
	if len(in) < 16 {
		return nil, errors.New("snappy: xerial header cut short")
	}
	in = in[16:] // magic, version, compatible version
	var out []byte
	for len(in) > 0 {
		if len(in) < 4 {
			return nil, errors.New("snappy: xerial block length cut short")
		}
		n := int(binary.BigEndian.Uint32(in[:4]))
		in = in[4:]
		if n < 0 || n > len(in) {
			return nil, fmt.Errorf("snappy: xerial block of %d bytes, %d left", n, len(in))
		}
		dl, err := s2.DecodedLen(in[:n])
		if err != nil {
			return nil, fmt.Errorf("snappy: %v", err)
		}
		if dl > limit-len(out) {
			return nil, fmt.Errorf("snappy: decompresses past the cap of %d bytes", limit)
		}
		start := len(out)
		out = append(out, make([]byte, dl)...)
		if _, err := s2.Decode(out[start:], in[:n]); err != nil {
			return nil, fmt.Errorf("snappy: %v", err)
		}
		in = in[n:]
	}
	return out, nil
}
