package segments

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzScanner feeds the decoder hostile bytes: it must end, never panic,
// and never hand back a batch whose records fall outside its own offsets.
func FuzzScanner(f *testing.F) {
	f.Add(testBatch{base: 3, lastDelta: -1, attrs: CodecZstd, recs: []testRec{{key: []byte("k"), value: []byte("v"), headers: []Header{{"h", nil}}, delta: -1}}}.encode())
	f.Add(testBatch{base: 0, lastDelta: -1, attrs: CodecSnappy, recs: []testRec{{value: []byte("v"), delta: -1}}}.encode())
	f.Add(v01Message(7, 1, CodecGzip, 1, nil, compress(CodecGzip, v01Message(0, 1, 0, 1, nil, []byte("x")))))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, file []byte) {
		s := NewScanner(bytes.NewReader(file), int64(len(file)), Limits{MaxBatchBytes: 1 << 20, MaxDecompressed: 1 << 20})
		pos := int64(0)
		for {
			b, d, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Pos() <= pos && (d == nil || !d.Fatal) {
				t.Fatalf("no progress at %d", pos)
			}
			pos = s.Pos()
			if b == nil {
				continue
			}
			for _, r := range b.Records {
				if r.Offset < b.BaseOffset || r.Offset > b.LastOffset {
					t.Fatalf("record offset %d outside batch %d-%d", r.Offset, b.BaseOffset, b.LastOffset)
				}
			}
		}
	})
}
