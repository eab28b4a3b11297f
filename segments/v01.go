package segments

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"unsafe"
)

// decodeV01 reads one message of a v0/v1 message set (Kafka before 0.11;
// Kafka 4 reads them but cannot write them). A compressed message is a
// wrapper whose value is an inner message set of uncompressed messages:
// with magic 1 their offsets are relative to the wrapper's (which carries
// the last inner offset), with magic 0 they are absolute.
func (s *Scanner) decodeV01(buf []byte, magic int8) (*Batch, error) {
	outer, err := readMessage(buf, magic)
	if err != nil {
		return nil, err
	}
	b := &Batch{Magic: magic, BaseOffset: outer.offset, LastOffset: outer.offset, LeaderEpoch: -1,
		ProducerID: -1, ProducerEpoch: -1, ControlType: -1, Codec: int8(outer.attrs & 0x07),
		LogAppendTime: magic == 1 && outer.attrs&0x08 != 0, NoTimestamp: magic == 0}
	if b.Codec == CodecNone {
		b.Records = []Record{{Offset: outer.offset, Timestamp: outer.ts, Key: outer.key, Value: outer.value}}
		return b, nil
	}
	if outer.value == nil {
		return nil, errors.New("a compressed message without a value")
	}
	data, err := s.dec.decompressV01(b.Codec, outer.value, s.lim.MaxDecompressed, magic)
	if err != nil {
		return nil, err
	}
	var inner []message
	// Each inner message costs its message and its Record once decoded,
	// bounded with the bytes they come from (as decodeV2's records).
	budget := int64(s.lim.MaxDecompressed) - int64(len(data))
	size := len(data)
	for len(data) > 0 {
		if budget -= innerCost; budget < 0 {
			return nil, fmt.Errorf("the inner messages of %d bytes take more than the cap of %d bytes in memory once decoded (%d bytes a message)", size, s.lim.MaxDecompressed, innerCost)
		}
		if len(data) < logOverhead {
			return nil, fmt.Errorf("inner message set: %d bytes left, no message", len(data))
		}
		size := int32(binary.BigEndian.Uint32(data[8:12]))
		if size < v0MinSize || int64(size) > int64(len(data)-logOverhead) {
			return nil, fmt.Errorf("inner message of %d bytes, %d left", size, len(data)-logOverhead)
		}
		m, err := readMessage(data[:logOverhead+int(size)], int8(-1))
		if err != nil {
			return nil, fmt.Errorf("inner message %d: %v", len(inner), err)
		}
		if m.attrs&0x07 != 0 {
			return nil, fmt.Errorf("inner message %d is compressed again", len(inner))
		}
		inner = append(inner, m)
		data = data[logOverhead+int(size):]
	}
	if len(inner) == 0 {
		return nil, errors.New("a compressed message with no message inside")
	}
	lastRel := inner[len(inner)-1].offset
	prev := int64(-1)
	b.Records = make([]Record, 0, len(inner))
	for i, m := range inner {
		off := m.offset
		if magic == 1 {
			off = outer.offset - lastRel + m.offset
		}
		if off <= prev || off > outer.offset || off < 0 || off > MaxOffset {
			return nil, fmt.Errorf("inner message %d has offset %d (after %d, wrapper %d)", i, off, prev, outer.offset)
		}
		prev = off
		ts := m.ts
		if b.LogAppendTime {
			ts = outer.ts
		}
		b.Records = append(b.Records, Record{Offset: off, Timestamp: ts, Key: m.key, Value: m.value})
	}
	b.BaseOffset = b.Records[0].Offset
	return b, nil
}

// innerCost is what an inner message of a wrapper costs once decoded.
const innerCost = int64(unsafe.Sizeof(message{}) + unsafe.Sizeof(Record{}))

type message struct {
	offset int64
	attrs  int8
	ts     int64
	key    []byte
	value  []byte
}

// readMessage reads one v0/v1 message (log overhead included) and checks
// its CRC-32 (IEEE). want is the magic it must have, -1 for either.
func readMessage(buf []byte, want int8) (message, error) {
	var m message
	if len(buf) < logOverhead+v0MinSize {
		return m, fmt.Errorf("a message of %d bytes", len(buf))
	}
	m.offset = int64(binary.BigEndian.Uint64(buf[0:8]))
	crc := binary.BigEndian.Uint32(buf[12:16])
	if got := crc32.ChecksumIEEE(buf[16:]); got != crc {
		return m, fmt.Errorf("CRC mismatch (stored %08x, computed %08x)", crc, got)
	}
	magic := int8(buf[16])
	if magic != 0 && magic != 1 || want >= 0 && magic != want {
		return m, fmt.Errorf("magic %d inside a magic %d message set", magic, want)
	}
	m.attrs = int8(buf[17])
	rest := buf[18:]
	m.ts = -1
	if magic == 1 {
		if len(rest) < 8 {
			return m, errors.New("no timestamp")
		}
		m.ts = int64(binary.BigEndian.Uint64(rest[:8]))
		rest = rest[8:]
	}
	var err error
	if m.key, rest, err = int32Bytes(rest); err != nil {
		return m, fmt.Errorf("key: %v", err)
	}
	if m.value, rest, err = int32Bytes(rest); err != nil {
		return m, fmt.Errorf("value: %v", err)
	}
	if len(rest) != 0 {
		return m, fmt.Errorf("%d bytes past the value", len(rest))
	}
	return m, nil
}

func int32Bytes(b []byte) ([]byte, []byte, error) {
	if len(b) < 4 {
		return nil, nil, errors.New("no length")
	}
	n := int32(binary.BigEndian.Uint32(b[:4]))
	b = b[4:]
	if n == -1 {
		return nil, b, nil
	}
	if n < 0 || int64(n) > int64(len(b)) {
		return nil, nil, fmt.Errorf("%d bytes claimed, %d left", n, len(b))
	}
	return b[:n:n], b[n:], nil
}
