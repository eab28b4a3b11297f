package catalog

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// TestNullsSurviveTheWriter: parquet-go v0.32.0 (and v0.32.1) wrote a null
// []byte of an optional column as an empty value when, within a 64-row
// word of a write, a run of nulls ending at row y >= 1 was followed by
// exactly y values and then nulls (rows 0 and 2 null, row 1 not: row 2
// read back empty). A tombstone became an empty value, a null key an
// empty key, a header's null value an empty one, a non-UTF-8 header key
// (its key_raw null, read back empty) the key "". third_party/parquet-go
// carries the fix (see third_party/README.md); this holds every optional
// bytes column of a data file, null and empty apart, over random patterns.
func TestNullsSurviveTheWriter(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	// maybe is nil, empty or some bytes: null and empty are both written.
	maybe := func(p float64, b string) []byte {
		switch r := rng.Float64(); {
		case r < p:
			return nil
		case r < p+(1-p)/8:
			return []byte{}
		}
		return []byte(b)
	}
	for trial := range 300 {
		n := 1 + rng.Intn(150)
		p := rng.Float64()
		rows := make([]Row, n)
		for i := range rows {
			rows[i] = Row{Offset: int64(i), Timestamp: 1, TimestampType: TimestampCreate,
				Key: maybe(p, "k"), Value: maybe(p, "v"), ValueDecoded: maybe(p, `"d"`), KeyDecoded: maybe(p, `"e"`)}
			for h := rng.Intn(70); h > 0; h-- {
				key := "h"
				if rng.Intn(4) == 0 {
					key = "\xff" // stored in key_raw
				}
				rows[i].Headers = append(rows[i].Headers, Header{Key: key, Value: maybe(p, "x")})
			}
		}
		tp := TopicPartition{Topic: "t", Partition: int32(trial)}
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadDataFile(d.PartitionDir(tp) + "/" + fe.Name)
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string, i int, a, b []byte) {
			if (a == nil) != (b == nil) || !bytes.Equal(a, b) {
				t.Fatalf("batch %d (%d rows, p %.2f): row %d %s wrote %s, read %s", trial, n, p, i, what, show(a), show(b))
			}
		}
		for i := range rows {
			same("key", i, rows[i].Key, got[i].Key)
			same("value", i, rows[i].Value, got[i].Value)
			same("value_decoded", i, rows[i].ValueDecoded, got[i].ValueDecoded)
			same("key_decoded", i, rows[i].KeyDecoded, got[i].KeyDecoded)
			if len(got[i].Headers) != len(rows[i].Headers) {
				t.Fatalf("batch %d row %d: %d headers, wrote %d", trial, i, len(got[i].Headers), len(rows[i].Headers))
			}
			for j, h := range rows[i].Headers {
				same(fmt.Sprintf("header %d value", j), i, h.Value, got[i].Headers[j].Value)
				if got[i].Headers[j].Key != h.Key {
					t.Fatalf("batch %d row %d header %d: key %q, wrote %q", trial, i, j, got[i].Headers[j].Key, h.Key)
				}
			}
		}
	}
}

func show(b []byte) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprintf("%q", b)
}
