package segments

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// TestDecodedMemoryBounded: a batch of records or headers of a few bytes
// each decompresses within --max-decompressed-bytes but cost tens of times
// that once decoded (a 13 KiB segment of one record with 60 million
// headers took 10.6 GB; a 24 MB one of 26 million empty records 3.7 GB).
// Its records and headers are now counted with its bytes against the cap:
// past it the batch is damaged, the next one read, and the scan allocates
// a few times the cap at most.
func TestDecodedMemoryBounded(t *testing.T) {
	const limit = 1 << 20
	tiny := func(n int) []testRec {
		rs := make([]testRec, n)
		for i := range rs {
			rs[i] = testRec{delta: -1}
		}
		return rs
	}
	headers := func(n int) []Header {
		hs := make([]Header, n)
		for i := range hs {
			hs[i] = Header{Key: "", Value: nil}
		}
		return hs
	}
	var inner []byte
	for i := int64(0); i < 30_000; i++ {
		inner = append(inner, v01Message(i, 1, 0, 1000, nil, nil)...)
	}
	next := testBatch{base: 1 << 20, lastDelta: -1, recs: []testRec{{value: []byte("next"), delta: -1}}}.encode()
	tests := []struct {
		name   string
		batch  []byte
		reason string // "" when it reads
	}{
		{"100,000 empty records, snappy", testBatch{base: 0, lastDelta: -1, attrs: CodecSnappy, recs: tiny(100_000)}.encode(), "records in"},
		{"one record with 400,000 headers, gzip", testBatch{base: 0, lastDelta: -1, attrs: CodecGzip, recs: []testRec{{delta: -1, headers: headers(400_000)}}}.encode(), "headers take more than the cap"},
		{"a v1 wrapper of 30,000 empty messages", v01Message(29_999, 1, CodecGzip, 1000, nil, compress(CodecGzip, inner)), "inner messages"},
		{"1,000 records of 3 headers, within the cap", testBatch{base: 0, lastDelta: -1, attrs: CodecZstd, recs: func() []testRec {
			rs := tiny(1000)
			for i := range rs {
				rs[i].headers = []Header{{"a", []byte("1")}, {"b", nil}, {"c", []byte{}}}
			}
			return rs
		}()}.encode(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := append(bytes.Clone(tc.batch), next...)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := scanAll(t, file, Limits{MaxDecompressed: limit})
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			if alloc > 8*limit {
				t.Errorf("the scan allocated %d bytes, past 8 times the cap of %d", alloc, limit)
			}
			if tc.reason == "" {
				if len(got.damage) != 0 || len(got.batches) != 2 || len(got.batches[0].Records) != 1000 || len(got.batches[0].Records[999].Headers) != 3 {
					t.Fatalf("damage %v, %d batches", got.damage, len(got.batches))
				}
				return
			}
			if len(got.damage) != 1 || len(got.batches) != 1 || string(got.batches[0].Records[0].Value) != "next" {
				t.Fatalf("damage %v, %d batches: want the batch damaged and the next one read", got.damage, len(got.batches))
			}
			if d := got.damage[0]; !strings.Contains(d.Reason, tc.reason) || !strings.Contains(d.Reason, "in memory once decoded") || d.Fatal {
				t.Fatalf("damage %+v, want %q", d, tc.reason)
			}
		})
	}
}
