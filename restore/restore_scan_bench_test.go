package restore

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// BenchmarkScanPlan is restore's reading loop alone (no broker): 400,000
// rows of one partition in four files, read, checked against their
// manifest and turned into records, as a dry run does.
//
//	go test ./dump -run '^$' -bench ScanPlan -count 5
func BenchmarkScanPlan(b *testing.B) {
	files := map[int32][][]catalog.Row{}
	for f := range 4 {
		files[0] = append(files[0], catalogtest.Rows(0, int64(f*100_000), 100_000))
	}
	d := catalogtest.Folder(b, b.TempDir(), "bench", files)
	m, err := d.ReadManifest(b.Context(), catalog.TopicPartition{Topic: "bench", Partition: 0})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		pl := &plan{m: m, part: &Partition{Partition: 0, From: 0, Until: m.NextOffset, OpenAt: -1}}
		var n int
		err := scanPlan(context.Background(), d, pl, "bench", nil, nil, func(recs []*kgo.Record, _ *batchMem, _ int64, _ bool, _ int64) error {
			n += len(recs)
			return nil
		})
		if err != nil || n != 400_000 {
			b.Fatalf("%d records: %v", n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/400_000, "ns/row")
}
