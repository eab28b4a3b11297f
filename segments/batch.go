package segments

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
)

// Limits bound what one batch may cost. Everything in a segment file is
// read as hostile: a batch over a limit is a damaged range, never an
// allocation of the size it claims.
type Limits struct {
	// MaxBatchBytes bounds one batch (or v0/v1 message) on disk.
	MaxBatchBytes int32
	// MaxDecompressed bounds the records of one batch once decompressed:
	// a zip bomb costs its batch, not the process.
	MaxDecompressed int
}

// MaxOffset is the largest offset an import reads (the catalog's bound on
// a cut's offsets): past it a batch is damage and a kcat line does not
// read, where the next offset after it would overflow.
const MaxOffset = catalog.MaxCutOffset

// DefaultLimits: Kafka's message.max.bytes defaults to 1 MiB and is rarely
// set past a few tens; 64 MiB on disk and 256 MiB decompressed leave room
// while keeping a whole import under 512 MiB.
var DefaultLimits = Limits{MaxBatchBytes: 64 << 20, MaxDecompressed: 256 << 20}

// Compression codecs as the attributes name them.
const (
	CodecNone   = 0
	CodecGzip   = 1
	CodecSnappy = 2
	CodecLZ4    = 3
	CodecZstd   = 4
)

// CodecName names a codec for messages.
func CodecName(c int8) string {
	switch c {
	case CodecNone:
		return "none"
	case CodecGzip:
		return "gzip"
	case CodecSnappy:
		return "snappy"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec %d", c)
}

// Header is one record header; a nil Value is null.
type Header struct {
	Key   string
	Value []byte
}

// Record is one record of a batch. Key and Value are nil when null, and
// point into the Scanner's buffers: they are valid until the next call to
// Next.
type Record struct {
	Offset    int64
	Timestamp int64 // milliseconds; -1 for v0 messages, which have none
	Key       []byte
	Value     []byte
	Headers   []Header
}

// Control types of a transaction marker (the control record's key).
const (
	ControlAbort  = 0
	ControlCommit = 1
)

// Batch is one record batch (magic 2) or one message, wrapper or not, of a
// v0/v1 message set, as it lies in the file.
type Batch struct {
	Pos, Size     int64 // byte range in the file: [Pos, Pos+Size)
	Magic         int8
	BaseOffset    int64
	LastOffset    int64
	LeaderEpoch   int32 // -1 for v0/v1
	ProducerID    int64 // -1 when none
	ProducerEpoch int16
	Codec         int8
	LogAppendTime bool // the timestamps are the broker's (log append time)
	NoTimestamp   bool // v0: no timestamp at all
	Transactional bool
	Control       bool
	// ControlType is ControlAbort or ControlCommit for a control batch
	// (its first record's key), -1 otherwise or when unreadable.
	ControlType int16
	Records     []Record
}

// Damage is a stretch of a file that does not hold a readable batch.
// From..To are the offsets its header claims (-1 when it cannot say; they
// are not covered by a checksum, so they are hints, not facts).
type Damage struct {
	Pos, Size int64
	From, To  int64
	Reason    string
	// Torn is a batch the file ends inside: a crash mid-write.
	Torn bool
	// Fatal is a header that cannot be trusted to find the next batch: the
	// rest of the file is not read.
	Fatal bool
}

func (d *Damage) Error() string {
	return fmt.Sprintf("bytes %d-%d: %s", d.Pos, d.Pos+d.Size-1, d.Reason)
}

const (
	logOverhead  = 12 // base offset, length
	v2HeaderSize = 61
	v0MinSize    = 14 // crc, magic, attributes, key length, value length
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Scanner reads the batches of one segment file in order.
type Scanner struct {
	r    io.ReaderAt
	size int64
	pos  int64
	lim  Limits
	dec  decompressor
	done bool
	// HeadersOnly skips the records of data batches (control batches are
	// still read): a cheap first pass that finds the transaction markers.
	HeadersOnly bool
	// SkipBelow skips the records (and the CRC check) of v2 batches whose
	// last offset is below it: what an earlier import already has.
	SkipBelow int64
	// Lacking, if set, says whether the folder lacks an offset of
	// base..last: such a batch is read whole though below SkipBelow, so
	// that records the folder lacks are seen.
	Lacking func(base, last int64) bool
}

// NewScanner reads the size bytes of r as a segment file.
func NewScanner(r io.ReaderAt, size int64, lim Limits) *Scanner {
	if lim.MaxBatchBytes <= 0 {
		lim.MaxBatchBytes = DefaultLimits.MaxBatchBytes
	}
	if lim.MaxDecompressed <= 0 {
		lim.MaxDecompressed = DefaultLimits.MaxDecompressed
	}
	return &Scanner{r: r, size: size, lim: lim}
}

// Pos is where the next batch starts.
func (s *Scanner) Pos() int64 { return s.pos }

// Next returns the next batch, or the damage found in its place; io.EOF at
// the end of the file (or after a fatal damage). Another error is a read
// error of the file itself.
func (s *Scanner) Next() (*Batch, *Damage, error) {
	if s.done || s.pos >= s.size {
		return nil, nil, io.EOF
	}
	left := s.size - s.pos
	var head [v2HeaderSize]byte
	hn := min(left, v2HeaderSize)
	if _, err := s.r.ReadAt(head[:hn], s.pos); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read at byte %d: %w", s.pos, err)
	}
	if left < logOverhead {
		return nil, s.fatal(&Damage{Pos: s.pos, Size: left, From: -1, To: -1, Torn: true,
			Reason: fmt.Sprintf("torn tail: the file ends %d bytes into a batch header", left)}), nil
	}
	base := int64(binary.BigEndian.Uint64(head[0:8]))
	length := int32(binary.BigEndian.Uint32(head[8:12]))
	if base == 0 && length == 0 && allZero(s.r, s.pos, left) {
		// A preallocated segment (file.preallocate) ends in zeroes.
		s.done = true
		return nil, nil, io.EOF
	}
	claimed := func() (int64, int64) {
		if hn >= v2HeaderSize && head[16] == 2 && base >= 0 {
			last := base + int64(int32(binary.BigEndian.Uint32(head[23:27])))
			if last >= base {
				return base, last
			}
		}
		if base >= 0 && hn > 16 && head[16] < 2 {
			return base, base
		}
		return -1, -1
	}
	if length < v0MinSize {
		from, _ := claimed()
		return nil, s.fatal(&Damage{Pos: s.pos, Size: left, From: from, To: -1,
			Reason: fmt.Sprintf("batch length %d is not a batch's (the rest of the file, %d bytes, cannot be read)", length, left)}), nil
	}
	total := int64(length) + logOverhead
	if total > left {
		from, to := claimed()
		return nil, s.fatal(&Damage{Pos: s.pos, Size: left, From: from, To: to, Torn: true,
			Reason: fmt.Sprintf("torn tail: a batch of %d bytes, the file ends after %d", total, left)}), nil
	}
	if length > s.lim.MaxBatchBytes {
		from, to := claimed()
		d := &Damage{Pos: s.pos, Size: total, From: from, To: to,
			Reason: fmt.Sprintf("a batch of %d bytes, past the cap of %d", length, s.lim.MaxBatchBytes)}
		s.pos += total
		return nil, d, nil
	}
	if hn <= 16 {
		return nil, s.fatal(&Damage{Pos: s.pos, Size: left, From: -1, To: -1, Reason: "batch without a magic byte"}), nil
	}
	magic := int8(head[16])
	if base < 0 || base > MaxOffset {
		// Past it, a batch's offsets (and the next offset after them)
		// would overflow; no Kafka log comes near it.
		d := &Damage{Pos: s.pos, Size: total, From: -1, To: -1,
			Reason: fmt.Sprintf("base offset %d, outside 0 to 2^62: no Kafka log's", base)}
		s.pos += total
		return nil, d, nil
	}
	if magic == 2 && length >= v2HeaderSize-logOverhead {
		attrs := int16(binary.BigEndian.Uint16(head[21:23]))
		last := base + int64(int32(binary.BigEndian.Uint32(head[23:27])))
		if s.HeadersOnly && attrs&0x20 == 0 || last < s.SkipBelow && (s.Lacking == nil || !s.Lacking(base, last)) { // the header is enough
			b := &Batch{}
			fillV2(b, head[:])
			b.Pos, b.Size = s.pos, total
			s.pos += total
			return b, nil, nil
		}
	}
	// A fresh buffer a batch: records point into it, and a caller may
	// hold them past the next batch.
	buf := make([]byte, total)
	if _, err := s.r.ReadAt(buf, s.pos); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read at byte %d: %w", s.pos, err)
	}
	pos := s.pos
	s.pos += total
	var (
		b   *Batch
		err error
	)
	switch magic {
	case 2:
		b, err = s.decodeV2(buf)
	case 0, 1:
		b, err = s.decodeV01(buf, magic)
	default:
		err = fmt.Errorf("magic %d is no Kafka format (0, 1 or 2)", magic)
	}
	if err != nil {
		from, to := claimed()
		return nil, &Damage{Pos: pos, Size: total, From: from, To: to, Reason: err.Error()}, nil
	}
	b.Pos, b.Size = pos, total
	return b, nil, nil
}

func (s *Scanner) fatal(d *Damage) *Damage {
	d.Fatal = true
	s.done = true
	s.pos = s.size
	return d
}

// allZero reports whether the n bytes of r at pos are all zero: all of
// them, 1 MiB at a time (a head of zeroes may be a hole a crash left in
// the middle of a segment, with batches after it; only zeroes to the end
// are a preallocated tail).
func allZero(r io.ReaderAt, pos, n int64) bool {
	buf := make([]byte, min(n, 1<<20))
	for n > 0 {
		b := buf[:min(n, int64(len(buf)))]
		if _, err := r.ReadAt(b, pos); err != nil && !errors.Is(err, io.EOF) {
			return false
		}
		for _, c := range b {
			if c != 0 {
				return false
			}
		}
		pos += int64(len(b))
		n -= int64(len(b))
	}
	return true
}

func fillV2(b *Batch, raw []byte) {
	b.Magic = 2
	b.BaseOffset = int64(binary.BigEndian.Uint64(raw[0:8]))
	b.LeaderEpoch = int32(binary.BigEndian.Uint32(raw[12:16]))
	attrs := int16(binary.BigEndian.Uint16(raw[21:23]))
	b.LastOffset = b.BaseOffset + int64(int32(binary.BigEndian.Uint32(raw[23:27])))
	b.ProducerID = int64(binary.BigEndian.Uint64(raw[43:51]))
	b.ProducerEpoch = int16(binary.BigEndian.Uint16(raw[51:53]))
	b.Codec = int8(attrs & 0x07)
	b.LogAppendTime = attrs&0x08 != 0
	b.Transactional = attrs&0x10 != 0
	b.Control = attrs&0x20 != 0
	b.ControlType = -1
}

// decodeV2 reads a record batch (magic 2) with franz-go's kmsg.RecordBatch,
// checks its CRC-32C and bounds, and decodes its records.
func (s *Scanner) decodeV2(buf []byte) (*Batch, error) {
	if len(buf) < v2HeaderSize {
		return nil, fmt.Errorf("a batch of %d bytes, shorter than the %d of a v2 header", len(buf), v2HeaderSize)
	}
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(buf); err != nil {
		return nil, fmt.Errorf("batch header: %v", err)
	}
	if got := crc32.Checksum(buf[21:], castagnoli); got != uint32(rb.CRC) {
		return nil, fmt.Errorf("CRC mismatch (stored %08x, computed %08x)", uint32(rb.CRC), got)
	}
	b := &Batch{}
	fillV2(b, buf)
	if b.BaseOffset < 0 || rb.LastOffsetDelta < 0 {
		return nil, fmt.Errorf("offsets %d+%d out of range", b.BaseOffset, rb.LastOffsetDelta)
	}
	if s.HeadersOnly && !b.Control {
		return b, nil
	}
	data := rb.Records
	if b.Codec != CodecNone {
		if b.Control {
			return nil, errors.New("a compressed control batch")
		}
		out, err := s.dec.decompress(b.Codec, data, s.lim.MaxDecompressed)
		if err != nil {
			return nil, err
		}
		data = out
	}
	n := rb.NumRecords
	if n < 0 || int64(n) > int64(len(data))/7+1 || int64(n) > int64(rb.LastOffsetDelta)+1 {
		return nil, fmt.Errorf("%d records claimed in %d bytes for %d offsets", n, len(data), int64(rb.LastOffsetDelta)+1)
	}
	// The records decoded are bounded with the bytes they come from:
	// records and headers of a few bytes each compress to almost nothing
	// and cost tens of times their bytes once decoded.
	budget := int64(s.lim.MaxDecompressed) - int64(len(data)) - int64(n)*recordCost
	if budget < 0 {
		return nil, fmt.Errorf("%d records in %d bytes take more than the cap of %d bytes in memory once decoded (%d bytes a record)", n, len(data), s.lim.MaxDecompressed, recordCost)
	}
	size := len(data)
	recs := make([]Record, 0, n)
	var hdrs []Header
	counts := make([]int, 0, n)
	prev := int64(-1)
	for i := int32(0); i < n; i++ {
		var r Record
		var nh int
		var err error
		r, nh, hdrs, data, err = readRecord(data, hdrs, &budget)
		counts = append(counts, nh)
		if err != nil {
			return nil, fmt.Errorf("record %d: %v", i, err)
		}
		if budget < 0 {
			return nil, fmt.Errorf("record %d: the batch's %d bytes, %d records and more than %d headers take more than the cap of %d bytes in memory once decoded (%d bytes a record, %d a header and its key)",
				i, size, n, len(hdrs), s.lim.MaxDecompressed, recordCost, headerCost)
		}
		delta := r.Offset
		if delta <= prev || delta > int64(rb.LastOffsetDelta) {
			return nil, fmt.Errorf("record %d has offset delta %d (after %d, batch of %d offsets)", i, delta, prev, int64(rb.LastOffsetDelta)+1)
		}
		prev = delta
		r.Offset = b.BaseOffset + delta
		if b.LogAppendTime {
			r.Timestamp = rb.MaxTimestamp
		} else {
			r.Timestamp = rb.FirstTimestamp + r.Timestamp
		}
		recs = append(recs, r)
	}
	if len(data) != 0 {
		return nil, fmt.Errorf("%d bytes after the %d records", len(data), n)
	}
	// Headers were appended to one slice that may have moved: point each
	// record at its own part now.
	k := 0
	for i := range recs {
		if nh := counts[i]; nh > 0 {
			recs[i].Headers = hdrs[k : k+nh : k+nh]
			k += nh
		}
	}
	b.Records = recs
	if b.Control {
		if len(recs) != 1 || len(recs[0].Key) < 4 {
			return nil, fmt.Errorf("a control batch of %d records, not one marker", len(recs))
		}
		t := int16(binary.BigEndian.Uint16(recs[0].Key[2:4]))
		if t != ControlAbort && t != ControlCommit {
			// Other control types (leader change, snapshot, KRaft
			// metadata) are no transaction marker: kept, typed -1.
			t = -1
		}
		b.ControlType = t
	}
	return b, nil
}

// What a record and a header cost in memory once decoded, besides the
// bytes they point into: a Record and its header count; a Header, the slack
// of the slice it is appended to, and the row's copy of it (its key string
// is counted by its length).
const (
	recordCost = int64(unsafe.Sizeof(Record{}) + unsafe.Sizeof(int(0)))
	headerCost = int64(3 * unsafe.Sizeof(Header{}))
)

// readRecord reads one v2 record off data. Its Offset holds the offset
// delta, its Timestamp the timestamp delta; its nh headers are appended to
// hdrs (the caller points Headers at them). Each header is taken off
// budget; it stops once that is below 0.
func readRecord(data []byte, hdrs []Header, budget *int64) (Record, int, []Header, []byte, error) {
	var r Record
	length, n := binary.Varint(data)
	if n <= 0 || length < 0 || length > int64(len(data)-n) {
		return r, 0, hdrs, nil, fmt.Errorf("length %d past the %d bytes left", length, len(data)-max(n, 0))
	}
	rest := data[n+int(length):]
	d := reader{b: data[n : n+int(length)]}
	d.byte() // attributes: unused
	r.Timestamp = d.varlong()
	r.Offset = d.varlong()
	r.Key = d.bytes()
	r.Value = d.bytes()
	nh := d.varlong()
	if d.err == nil && (nh < 0 || nh > int64(len(d.b))/2) {
		return r, 0, hdrs, nil, fmt.Errorf("%d headers in %d bytes", nh, len(d.b))
	}
	for j := int64(0); j < nh && d.err == nil; j++ {
		k := d.bytes()
		v := d.bytes()
		if k == nil && d.err == nil {
			d.err = errors.New("a header with a null key")
		}
		if *budget -= headerCost + int64(len(k)); *budget < 0 {
			return r, 0, hdrs, nil, nil
		}
		hdrs = append(hdrs, Header{Key: string(k), Value: v})
	}
	if d.err != nil {
		return r, 0, hdrs, nil, d.err
	}
	if len(d.b) != 0 {
		return r, 0, hdrs, nil, fmt.Errorf("%d bytes past its end", len(d.b))
	}
	return r, int(nh), hdrs, rest, nil
}

// reader reads varints and byte strings off b, remembering the first error.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if len(r.b) < 1 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) varlong() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errors.New("bad varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// bytes reads a varint length and that many bytes; -1 is null (nil).
func (r *reader) bytes() []byte {
	n := r.varlong()
	if r.err != nil {
		return nil
	}
	if n == -1 {
		return nil
	}
	if n < 0 || n > int64(len(r.b)) {
		r.err = fmt.Errorf("a field of %d bytes, %d left", n, len(r.b))
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}
