package catalog

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWriteRows writes 100,000 rows of the bench event into one
// committed file, as the dump does (batches of 4,096, a row group of 43k
// rows): as a JSON topic stores it (the JSON in value), and as an Avro
// topic does (~100 bytes of Avro in value, the decoded JSON beside it in
// value_decoded, a schema id). The difference is what storing the decoded
// text costs the dump, apart from decoding it.
func BenchmarkWriteRows(b *testing.B) {
	const rows = 100_000
	json := func(i int) []byte {
		return fmt.Appendf(nil, `{"event_id":"3f2a9c0d11e84b7a%016x","type":"add_to_cart","user_id":%d,"ts":"2026-03-14T09:26:53.589Z","amount":123.45,"country":"DE","device":"mobile","url":"/products/31337?ref=c42"}`, i, i%50000)
	}
	avro := func(i int) []byte { // the size of the bench event in Avro, bytes that vary
		return fmt.Appendf(nil, "\x00\x00\x00\x00\x01@3f2a9c0d11e84b7a%016x\x16add_to_cart%08d\xca\x9a\xb4\xe0\xd5g\xcd\xcc\xcc\xcc\xcc\xdc^@\x04DE\x0cmobile./products/31337?ref=c42", i, i%50000)
	}
	id := int32(1)
	for _, c := range []struct {
		name string
		row  func(i int) Row
	}{
		{"json", func(i int) Row {
			return Row{Offset: int64(i), Timestamp: int64(i), TimestampType: TimestampCreate, Key: fmt.Appendf(nil, "user-%06d", i%50000), Value: json(i)}
		}},
		{"avro-decoded", func(i int) Row {
			return Row{Offset: int64(i), Timestamp: int64(i), TimestampType: TimestampCreate, Key: fmt.Appendf(nil, "user-%06d", i%50000), Value: avro(i),
				SchemaID: &id, ValueDecoded: json(i)}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			all := make([]Row, rows)
			for i := range all {
				all[i] = c.row(i)
			}
			d, err := Create(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				n++
				w, err := d.NewFileWriterRows(TopicPartition{"t", int32(n)}, "s1", 43*1024)
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < rows; i += 4096 {
					if err := w.Write(all[i:min(i+4096, rows)]); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N*rows), "cpu-ns/row")
		})
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
