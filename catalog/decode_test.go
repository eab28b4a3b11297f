package catalog

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestDecodeMatchesReconstruct: ScanDataFile's decoder gives the same Rows
// as parquet-go's reflection (ReadDataFile) on rows of every shape: null
// and empty keys and values, headers absent, empty, repeated, with null and
// empty values, markers, transaction states, schema ids, binary bytes, and
// more rows than a batch (the reused buffers must not leak into the next),
// in one row group of several pages and in many row groups.
func TestDecodeMatchesReconstruct(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"t", 0}
	rng := rand.New(rand.NewPCG(1, 2))
	bytesOf := func() []byte {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []byte{}
		default:
			b := make([]byte, rng.IntN(300))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return b
		}
	}
	var rows []Row
	for i := 0; i < 20000; i++ {
		r := Row{Partition: 0, Offset: int64(i), Timestamp: int64(rng.IntN(1 << 40)), TimestampType: []string{TimestampCreate, TimestampLogAppend}[rng.IntN(2)],
			Key: bytesOf(), Value: bytesOf(), LeaderEpoch: int32(rng.IntN(9)), ProducerID: int64(rng.IntN(5) - 1), ProducerEpoch: int32(rng.IntN(3))}
		for h := rng.IntN(4); h > 0; h-- {
			k := fmt.Sprintf("h%d", rng.IntN(3))
			if rng.IntN(10) == 0 { // not UTF-8: stored in key_raw
				k = string([]byte{0xff, byte(rng.IntN(3))})
			}
			r.Headers = append(r.Headers, Header{Key: k, Value: bytesOf()})
		}
		if rng.IntN(5) == 0 {
			r.Transactional = true
			r.TxnState = strp([]string{TxnCommitted, TxnAborted, TxnOpen}[rng.IntN(3)])
			if rng.IntN(3) == 0 {
				r.Control, r.ControlType, r.Key, r.Value, r.Headers = true, strp([]string{ControlCommit, ControlAbort}[rng.IntN(2)]), nil, nil, nil
			}
		}
		if rng.IntN(3) == 0 {
			id := int32(rng.IntN(1000))
			r.SchemaID = &id
			switch rng.IntN(3) {
			case 0:
				r.ValueDecoded = []byte(fmt.Sprintf(`{"n":%d}`, i))
			case 1:
				r.ValueDecodeError = strp([]string{"unknown schema id", "does not decode"}[rng.IntN(2)])
			}
		}
		if rng.IntN(3) == 0 {
			id := int32(rng.IntN(1000))
			r.KeySchemaID = &id
			switch rng.IntN(4) {
			case 0:
				r.KeyDecoded = []byte(fmt.Sprintf(`{"k":%d}`, i))
			case 1:
				r.KeyDecoded = []byte{} // an empty text is not null
			case 2:
				r.KeyDecodeError = strp([]string{"unknown schema id", "does not decode"}[rng.IntN(2)])
			}
		}
		rows = append(rows, r)
	}
	rows[7].Value = bytes.Repeat([]byte{0, 0xff}, 1<<19) // a big one
	fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	one := d.FilePath(tp, fe.Name)
	w, err := d.NewFileWriterRows(t.Context(), TopicPartition{"t", 1}, "s1", 1777)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	fe, err = w.Commit(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	many := d.FilePath(TopicPartition{"t", 1}, fe.Name)
	if groups, pages := shape(t, one); groups != 1 || pages < 3 {
		t.Fatalf("%s: %d row groups, %d value pages; the test wants one group of several pages", one, groups, pages)
	}
	if groups, _ := shape(t, many); groups < 10 {
		t.Fatalf("%s: %d row groups; the test wants many", many, groups)
	}
	for _, path := range []string{one, many} {
		scanMatchesReconstruct(t, path, rows)
		scanColumnsMatch(t, path)
	}
}

// scanColumnsMatch: ScanDataFileColumns gives the full scan's rows with the
// columns not asked for at their zero values, and refuses a name Row has no
// column of.
func scanColumnsMatch(t *testing.T, path string) {
	t.Helper()
	var all []Row
	if err := ScanDataFile(context.Background(), path, 2048, func(rs []Row) error { all = append(all, rs...); return nil }); err != nil {
		t.Fatal(err)
	}
	cols := []string{"partition", "offset", "timestamp", "key", "value", "headers", "producer_id", "is_control", "txn_state"}
	var got []Row
	if err := ScanDataFileColumns(context.Background(), path, 7, cols, func(rs []Row) error { got = append(got, rs...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(all) {
		t.Fatalf("%d rows, want %d", len(got), len(all))
	}
	for i, a := range all {
		want := Row{Partition: a.Partition, Offset: a.Offset, Timestamp: a.Timestamp, Key: a.Key, Value: a.Value, Headers: a.Headers,
			ProducerID: a.ProducerID, Control: a.Control, TxnState: a.TxnState}
		if !reflect.DeepEqual(got[i], want) || (got[i].Key == nil) != (a.Key == nil) || (got[i].Value == nil) != (a.Value == nil) {
			t.Fatalf("row %d:\n columns %+v\n    want %+v", i, got[i], want)
		}
	}
	// Reused: the rows and their Headers are overwritten by the next
	// batch, the byte slices are not; copying only the rows and their
	// headers gives the same rows.
	var reused []Row
	var firsts []*Row
	err := ScanDataFileColumnsReused(context.Background(), path, 7, cols, func(rs []Row) error {
		firsts = append(firsts, &rs[0])
		for _, r := range rs {
			if r.Headers != nil {
				r.Headers = slices.Clone(r.Headers)
			}
			reused = append(reused, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(firsts) < 2 || firsts[0] != firsts[1] {
		t.Fatalf("%d batches, the rows not reused", len(firsts))
	}
	if len(reused) != len(got) {
		t.Fatalf("reused: %d rows, want %d", len(reused), len(got))
	}
	for i := range got {
		if !reflect.DeepEqual(reused[i], got[i]) || (reused[i].Key == nil) != (got[i].Key == nil) || (reused[i].Value == nil) != (got[i].Value == nil) {
			t.Fatalf("reused row %d:\n %+v\n want %+v", i, reused[i], got[i])
		}
	}
	var none []Row
	if err := ScanDataFileColumns(context.Background(), path, 100, []string{"offset"}, func(rs []Row) error { none = append(none, rs...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(none) != len(all) || none[5].Offset != all[5].Offset || none[5].Key != nil || none[5].Headers == nil || len(none[5].Headers) != 0 {
		t.Fatalf("offset only: %d rows, row 5 %+v", len(none), none[5])
	}
	if err := ScanDataFileColumns(context.Background(), path, 100, []string{"offset", "nope"}, func([]Row) error { return nil }); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("an unknown column: %v", err)
	}
}

// shape counts a file's row groups and the pages of its first group's value
// column.
func shape(t *testing.T, path string) (groups, pages int) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	l, _ := pf.Schema().Lookup("value")
	ps := pf.RowGroups()[0].ColumnChunks()[l.ColumnIndex].Pages()
	defer ps.Close()
	for {
		if _, err := ps.ReadPage(); err != nil {
			break
		}
		pages++
	}
	return len(pf.RowGroups()), pages
}

func scanMatchesReconstruct(t *testing.T, path string, rows []Row) {
	t.Helper()
	want, err := ReadDataFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(rows) {
		t.Fatalf("parquet-go read %d rows, wrote %d", len(want), len(rows))
	}
	for _, batch := range []int{1, 7, 2048, 30000} {
		var got []Row
		if err := ScanDataFile(context.Background(), path, batch, func(rs []Row) error { got = append(got, rs...); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("batch %d: %d rows, want %d", batch, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("batch %d row %d:\n decoded %+v\n  parquet %+v", batch, i, got[i], want[i])
			}
			// And both are what was written (nil and empty told apart).
			if (rows[i].Key == nil) != (got[i].Key == nil) || (rows[i].Value == nil) != (got[i].Value == nil) || len(rows[i].Headers) != len(got[i].Headers) ||
				(rows[i].KeyDecoded == nil) != (got[i].KeyDecoded == nil) || !bytes.Equal(rows[i].KeyDecoded, got[i].KeyDecoded) ||
				(rows[i].KeySchemaID == nil) != (got[i].KeySchemaID == nil) || (rows[i].KeyDecodeError == nil) != (got[i].KeyDecodeError == nil) {
				t.Fatalf("row %d: wrote %+v, read %+v", i, rows[i], got[i])
			}
			for j, h := range rows[i].Headers {
				if (h.Value == nil) != (got[i].Headers[j].Value == nil) || !bytes.Equal(h.Value, got[i].Headers[j].Value) || h.Key != got[i].Headers[j].Key {
					t.Fatalf("row %d header %d: wrote %+v, read %+v", i, j, h, got[i].Headers[j])
				}
			}
		}
	}
}

func BenchmarkScanDataFile(b *testing.B) {
	d, err := Create(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tp := TopicPartition{"t", 0}
	var rows []Row
	for i := 0; i < 100_000; i++ {
		rows = append(rows, Row{Offset: int64(i), Timestamp: int64(i), TimestampType: TimestampCreate, Key: []byte(fmt.Sprintf("user-%06d", i%5000)),
			Value: []byte(fmt.Sprintf(`{"event_id":"e%09d","n":%d,"pad":"%0120d"}`, i, i, 0)), Headers: []Header{{Key: "src", Value: []byte("web")}}})
	}
	fe, err := d.WriteDataFile(b.Context(), tp, rows, "s1")
	if err != nil {
		b.Fatal(err)
	}
	path := d.FilePath(tp, fe.Name)
	for _, bc := range []struct {
		name string
		cols []string
	}{{"all", nil}, {"restore", []string{"partition", "offset", "timestamp", "key", "value", "headers", "producer_id", "is_control", "txn_state"}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				n := 0
				count := func(rs []Row) error { n += len(rs); return nil }
				var err error
				if bc.cols == nil {
					err = ScanDataFile(context.Background(), path, 2048, count)
				} else {
					err = ScanDataFileColumns(context.Background(), path, 2048, bc.cols, count)
				}
				if err != nil || n != len(rows) {
					b.Fatal(err, n)
				}
			}
			b.ReportMetric(float64(len(rows)*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
