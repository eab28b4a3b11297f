package segments

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Segment bytes made by code, for the decoder's tests: what Kafka 4 can no
// longer write (v0/v1 message sets) and what it never writes (damage).

type testRec struct {
	key, value []byte
	headers    []Header
	delta      int64 // offset delta; -1: its index
	tsDelta    int64
}

type testBatch struct {
	base          int64
	lastDelta     int32 // -1: from the records
	firstTS       int64
	attrs         int16
	pid           int64
	epoch         int16
	leaderEpoch   int32
	recs          []testRec
	compressBomb  int // if > 0, the records are this many zero bytes instead
	corruptCRC    bool
	numRecordsFix int32 // if != 0, the stated record count
}

func appendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

func appendVarBytes(b, v []byte) []byte {
	if v == nil {
		return appendVarint(b, -1)
	}
	return append(appendVarint(b, int64(len(v))), v...)
}

func encodeRecords(recs []testRec) []byte {
	var out []byte
	for i, r := range recs {
		var body []byte
		body = append(body, 0)
		body = appendVarint(body, r.tsDelta)
		d := r.delta
		if d < 0 {
			d = int64(i)
		}
		body = appendVarint(body, d)
		body = appendVarBytes(body, r.key)
		body = appendVarBytes(body, r.value)
		body = appendVarint(body, int64(len(r.headers)))
		for _, h := range r.headers {
			body = appendVarBytes(body, []byte(h.Key))
			body = appendVarBytes(body, h.Value)
		}
		out = appendVarint(out, int64(len(body)))
		out = append(out, body...)
	}
	return out
}

func compress(codec int8, raw []byte) []byte {
	var buf bytes.Buffer
	switch codec {
	case CodecNone:
		return raw
	case CodecGzip:
		w := gzip.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case CodecSnappy:
		return s2.EncodeSnappy(nil, raw)
	case CodecLZ4:
		w := lz4.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	case CodecZstd:
		w, _ := zstd.NewWriter(&buf)
		w.Write(raw)
		w.Close()
	}
	return buf.Bytes()
}

func (tb testBatch) encode() []byte {
	raw := encodeRecords(tb.recs)
	if tb.compressBomb > 0 {
		raw = make([]byte, tb.compressBomb)
	}
	recs := compress(int8(tb.attrs&7), raw)
	last := tb.lastDelta
	if last < 0 {
		last = int32(len(tb.recs) - 1)
		for _, r := range tb.recs {
			if int32(r.delta) > last {
				last = int32(r.delta)
			}
		}
	}
	n := int32(len(tb.recs))
	if tb.numRecordsFix != 0 {
		n = tb.numRecordsFix
	}
	rb := kmsg.RecordBatch{
		FirstOffset: tb.base, PartitionLeaderEpoch: tb.leaderEpoch, Magic: 2, Attributes: tb.attrs,
		LastOffsetDelta: last, FirstTimestamp: tb.firstTS, MaxTimestamp: tb.firstTS + 1000,
		ProducerID: tb.pid, ProducerEpoch: tb.epoch, FirstSequence: 0, NumRecords: n, Records: recs,
	}
	rb.Length = int32(49 + len(recs))
	out := rb.AppendTo(nil)
	crc := crc32.Checksum(out[21:], castagnoli)
	if tb.corruptCRC {
		crc++
	}
	binary.BigEndian.PutUint32(out[17:21], crc)
	return out
}

// v01Message encodes one v0/v1 message (log overhead included).
func v01Message(offset int64, magic, attrs int8, ts int64, key, value []byte) []byte {
	var body []byte
	body = append(body, byte(magic), byte(attrs))
	if magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(ts))
	}
	for _, f := range [][]byte{key, value} {
		if f == nil {
			body = binary.BigEndian.AppendUint32(body, 0xffffffff)
			continue
		}
		body = binary.BigEndian.AppendUint32(body, uint32(len(f)))
		body = append(body, f...)
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(offset))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(body)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(body))
	return append(out, body...)
}
