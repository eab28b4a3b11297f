package segments

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

type scanned struct {
	batches []*Batch
	damage  []*Damage
}

func scanAll(t testing.TB, file []byte, lim Limits) scanned {
	t.Helper()
	s := NewScanner(bytes.NewReader(file), int64(len(file)), lim)
	var out scanned
	for i := 0; i < 1_000_000; i++ {
		b, d, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			out.batches = append(out.batches, b)
		}
		if d != nil {
			out.damage = append(out.damage, d)
		}
	}
	t.Fatal("scanner did not end")
	return out
}

func TestV2Codecs(t *testing.T) {
	recs := []testRec{
		{key: []byte("k0"), value: []byte("v0"), headers: []Header{{"h", []byte("x")}, {"h", nil}, {"e", []byte{}}}, delta: -1},
		{key: nil, value: []byte("v1"), delta: -1, tsDelta: 5},
		{key: []byte{}, value: nil, delta: -1, tsDelta: 7},
	}
	for _, codec := range []int8{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		t.Run(CodecName(codec), func(t *testing.T) {
			file := testBatch{base: 10, lastDelta: -1, firstTS: 1_700_000_000_000, attrs: int16(codec), pid: 7, epoch: 2, leaderEpoch: 4, recs: recs}.encode()
			file = append(file, testBatch{base: 13, lastDelta: -1, firstTS: 1_700_000_001_000, attrs: int16(codec) | 0x08, pid: -1, epoch: -1, recs: recs[:1]}.encode()...)
			got := scanAll(t, file, DefaultLimits)
			if len(got.damage) != 0 || len(got.batches) != 2 {
				t.Fatalf("damage %v, %d batches", got.damage, len(got.batches))
			}
			b := got.batches[0]
			if b.BaseOffset != 10 || b.LastOffset != 12 || b.ProducerID != 7 || b.ProducerEpoch != 2 || b.LeaderEpoch != 4 || b.Codec != codec || b.LogAppendTime {
				t.Fatalf("batch %+v", b)
			}
			if len(b.Records) != 3 {
				t.Fatalf("%d records", len(b.Records))
			}
			r0, r1, r2 := b.Records[0], b.Records[1], b.Records[2]
			if string(r0.Key) != "k0" || string(r0.Value) != "v0" || r0.Offset != 10 || r0.Timestamp != 1_700_000_000_000 {
				t.Errorf("record 0 %+v", r0)
			}
			if len(r0.Headers) != 3 || r0.Headers[1].Value != nil || r0.Headers[2].Value == nil || string(r0.Headers[0].Value) != "x" {
				t.Errorf("headers %+v", r0.Headers)
			}
			if r1.Key != nil || r1.Offset != 11 || r1.Timestamp != 1_700_000_000_005 || r1.Headers != nil {
				t.Errorf("record 1 %+v", r1)
			}
			if r2.Key == nil || len(r2.Key) != 0 || r2.Value != nil {
				t.Errorf("record 2 %+v: empty key and null value must stay apart", r2)
			}
			b2 := got.batches[1]
			if !b2.LogAppendTime || b2.Records[0].Timestamp != 1_700_000_002_000 || b2.Pos != b.Size {
				t.Errorf("log-append batch %+v", b2)
			}
		})
	}
}

func TestV2Control(t *testing.T) {
	marker := func(kind byte) []testRec {
		return []testRec{{key: []byte{0, 0, 0, kind}, value: []byte{0, 0, 0, 0, 0, 0}, delta: -1}}
	}
	file := testBatch{base: 0, lastDelta: -1, attrs: 0x10, pid: 3, recs: []testRec{{value: []byte("a"), delta: -1}}}.encode()
	file = append(file, testBatch{base: 1, lastDelta: -1, attrs: 0x30, pid: 3, recs: marker(0)}.encode()...)
	file = append(file, testBatch{base: 2, lastDelta: -1, attrs: 0x30, pid: 3, recs: marker(1)}.encode()...)
	got := scanAll(t, file, DefaultLimits)
	if len(got.batches) != 3 || len(got.damage) != 0 {
		t.Fatalf("%d batches, damage %v", len(got.batches), got.damage)
	}
	if !got.batches[0].Transactional || got.batches[0].Control {
		t.Errorf("data batch %+v", got.batches[0])
	}
	if !got.batches[1].Control || got.batches[1].ControlType != ControlAbort || got.batches[2].ControlType != ControlCommit {
		t.Errorf("markers %+v %+v", got.batches[1], got.batches[2])
	}
}

func TestDamage(t *testing.T) {
	good := func(base int64) []byte {
		return testBatch{base: base, lastDelta: -1, recs: []testRec{{value: []byte("ok"), delta: -1}, {value: []byte("ok"), delta: -1}}}.encode()
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	bomb := testBatch{base: 2, lastDelta: 1, attrs: CodecZstd, compressBomb: 8 << 20, numRecordsFix: 2}.encode()
	crc := testBatch{base: 2, lastDelta: -1, corruptCRC: true, recs: []testRec{{value: []byte("x"), delta: -1}, {value: []byte("y"), delta: -1}}}.encode()
	hugeCount := testBatch{base: 2, lastDelta: 1, numRecordsFix: 1 << 30, recs: []testRec{{value: []byte("x"), delta: -1}}}.encode()
	badDelta := testBatch{base: 2, lastDelta: 1, recs: []testRec{{value: []byte("x"), delta: 5}}}.encode()
	g4 := good(4)
	big := testBatch{base: 2, lastDelta: -1, recs: []testRec{{value: bytes.Repeat([]byte("x"), 200), delta: -1}, {value: []byte("y"), delta: -1}}}.encode()
	tests := []struct {
		name     string
		file     []byte
		lim      Limits
		batches  int
		reason   string
		from, to int64
		torn     bool
		fatal    bool
	}{
		{"crc", cat(good(0), crc, g4), DefaultLimits, 2, "CRC mismatch", 2, 3, false, false},
		{"zip bomb", cat(good(0), bomb, g4), Limits{MaxDecompressed: 1 << 20}, 2, "past the cap", 2, 3, false, false},
		{"over the batch cap", cat(good(0), big, g4), Limits{MaxBatchBytes: 200}, 2, "past the cap", 2, 3, false, false},
		{"record count", cat(good(0), hugeCount, g4), DefaultLimits, 2, "records claimed", 2, 3, false, false},
		{"offset delta", cat(good(0), badDelta, g4), DefaultLimits, 2, "offset delta", 2, 3, false, false},
		{"torn tail", cat(good(0), g4[:len(g4)-5]), DefaultLimits, 1, "torn tail", 4, 5, true, true},
		{"torn header", cat(good(0), g4[:7]), DefaultLimits, 1, "torn tail", -1, -1, true, true},
		{"bad length", cat(good(0), []byte{0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 1, 5, 5, 5}), DefaultLimits, 1, "batch length 1", -1, -1, false, true},
		{"magic 7", cat(good(0), func() []byte { b := good(2); b[16] = 7; return b }(), g4), DefaultLimits, 2, "magic 7", -1, -1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scanAll(t, tc.file, tc.lim)
			if len(got.batches) != tc.batches || len(got.damage) != 1 {
				t.Fatalf("%d batches (want %d), damage %v", len(got.batches), tc.batches, got.damage)
			}
			d := got.damage[0]
			if !strings.Contains(d.Reason, tc.reason) || d.From != tc.from || d.To != tc.to || d.Torn != tc.torn || d.Fatal != tc.fatal {
				t.Fatalf("damage %+v, want reason %q offsets %d-%d torn %v fatal %v", d, tc.reason, tc.from, tc.to, tc.torn, tc.fatal)
			}
		})
	}
}

func TestZeroTail(t *testing.T) {
	file := append(testBatch{base: 0, lastDelta: -1, recs: []testRec{{value: []byte("a"), delta: -1}}}.encode(), make([]byte, 4096)...)
	got := scanAll(t, file, DefaultLimits)
	if len(got.batches) != 1 || len(got.damage) != 0 {
		t.Fatalf("%d batches, damage %v: a preallocated zero tail is no damage", len(got.batches), got.damage)
	}
}

// TestV01 reads v0/v1 message sets made by code: Kafka 4 cannot write
// them, so no broker in the tests can either.
func TestV01(t *testing.T) {
	// magic 1, gzip wrapper with relative inner offsets 0..2 at wrapper offset 7.
	var inner []byte
	for i := int64(0); i < 3; i++ {
		inner = append(inner, v01Message(i, 1, 0, 1000+i, []byte{'k', byte('0' + i)}, []byte("v"))...)
	}
	var file []byte
	file = append(file, v01Message(4, 0, 0, -1, nil, []byte("plain v0"))...)
	file = append(file, v01Message(5, 1, 0x08, 5000, []byte("k"), nil)...)
	for _, codec := range []int8{CodecGzip, CodecSnappy, CodecLZ4} {
		file = append(file, v01Message(7, 1, codec, 9000, nil, compress(codec, inner))...)
	}
	// magic 1 wrapper with log-append time: inner timestamps are the wrapper's.
	file = append(file, v01Message(10, 1, CodecGzip|0x08, 9999, nil, compress(CodecGzip, inner))...)
	got := scanAll(t, file, DefaultLimits)
	if len(got.damage) != 0 || len(got.batches) != 6 {
		t.Fatalf("damage %v, %d batches", got.damage, len(got.batches))
	}
	if b := got.batches[0]; b.Magic != 0 || !b.NoTimestamp || b.Records[0].Timestamp != -1 || b.Records[0].Key != nil || string(b.Records[0].Value) != "plain v0" {
		t.Errorf("v0 %+v", b)
	}
	if b := got.batches[1]; !b.LogAppendTime || b.Records[0].Value != nil || b.Records[0].Offset != 5 {
		t.Errorf("v1 %+v", b)
	}
	for i, b := range got.batches[2:5] {
		if b.BaseOffset != 5 || b.LastOffset != 7 || len(b.Records) != 3 || b.Records[2].Offset != 7 || string(b.Records[1].Key) != "k1" || b.Records[1].Timestamp != 1001 {
			t.Errorf("wrapper %d: %+v %+v", i, b, b.Records)
		}
	}
	if b := got.batches[5]; b.Records[0].Timestamp != 9999 || b.Records[0].Offset != 8 {
		t.Errorf("log-append wrapper %+v", b.Records)
	}
	bad := v01Message(4, 1, 0, 1, nil, []byte("x"))
	bad[len(bad)-1] ^= 1
	if got := scanAll(t, bad, DefaultLimits); len(got.damage) != 1 || !strings.Contains(got.damage[0].Reason, "CRC") {
		t.Errorf("damaged v1 message: %+v", got.damage)
	}
}

func TestTxnIndex(t *testing.T) {
	var b []byte
	for _, e := range []AbortedTxn{{7, 10, 20}, {8, 30, 31}} {
		b = append(b, 0, 0)
		for _, v := range []int64{e.ProducerID, e.First, e.Last, e.Last} {
			b = append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
		}
	}
	got, tail, err := ParseTxnIndex(append(b, 0, 0, 1))
	if err != nil || len(got) != 2 || got[1] != (AbortedTxn{8, 30, 31}) || tail == "" {
		t.Fatalf("%v %q %v", got, tail, err)
	}
	if _, _, err := ParseTxnIndex([]byte(strings.Repeat("x", 40))); err == nil {
		t.Fatal("random bytes read as a transaction index")
	}
}
