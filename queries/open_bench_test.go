package queries

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// manyFiles writes a folder of 1,000 small files: 10 partitions of 100
// files of JSON records.
func manyFiles(b testing.TB) string {
	dir := b.TempDir()
	d, _ := catalog.Create(dir)
	for p := int32(0); p < 10; p++ {
		tp := catalog.TopicPartition{Topic: "many", Partition: p}
		m := &catalog.Manifest{Topic: "many", Partition: p}
		for f := int64(0); f < 100; f++ {
			var rows []catalog.Row
			for i := int64(0); i < 10; i++ {
				o := f*10 + i
				rows = append(rows, catalog.Row{Partition: p, Offset: o, Timestamp: time.Now().UnixMilli(), Value: []byte(fmt.Sprintf(`{"n":%d}`, o))})
			}
			fe, err := d.WriteDataFile(b.Context(), tp, rows, "s")
			if err != nil {
				b.Fatal(err)
			}
			m.Files = append(m.Files, fe)
			m.NextOffset = fe.LastOffset + 1
		}
		if err := d.WriteManifest(b.Context(), m); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkOpen1000Files measures the time to a usable engine (views,
// catalog tables, JSON inference) over 1,000 files.
func BenchmarkOpen1000Files(b *testing.B) {
	dir := manyFiles(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := Open(context.Background(), dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.Close()
	}
}

func TestOpen1000FilesCountsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 files")
	}
	e, err := Open(context.Background(), manyFiles(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, `SELECT count(*)::VARCHAR || ' ' || sum(value.n)::VARCHAR FROM many`); got != "10000 4995000" {
		t.Fatal(got)
	}
}

// BenchmarkOneShot1000Files measures what `topicsnap sql -c` does over
// 1,000 files: a lazy open and one count(*) of the topic.
func BenchmarkOneShot1000Files(b *testing.B) {
	dir := manyFiles(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e, err := Open(ctx, dir, Options{Lazy: true})
		if err != nil {
			b.Fatal(err)
		}
		rows, err := e.Query(ctx, `SELECT count(*) FROM many`)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
		e.Close()
	}
}
