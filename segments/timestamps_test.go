package segments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestImportTimestampPastWhatDuckDBReads: Kafka takes any int64
// timestamp, and a segment keeps it; one further from 1970 than the year
// 294,247 (a producer's nanoseconds taken for milliseconds) was stored as
// it is, and every query of the topic failed ("Could not convert
// Timestamp(MS) to Timestamp(US)"). It is stored as the bound on its side,
// with a warning naming the partition and offset; the others are exact.
func TestImportTimestampPastWhatDuckDBReads(t *testing.T) {
	logs := t.TempDir()
	pdir := filepath.Join(logs, "far-0")
	os.Mkdir(pdir, 0o755)
	const first = 1_700_000_000_000
	recs := []testRec{
		{key: []byte("now"), value: []byte("v"), delta: -1},
		{key: []byte("ns"), value: []byte("v"), delta: -1, tsDelta: 1_700_000_000_000_000_000 - first},
		{key: []byte("bc"), value: []byte("v"), delta: -1, tsDelta: -10_000_000_000_000_000 - first},
		{key: []byte("edge"), value: []byte("v"), delta: -1, tsDelta: catalog.MaxTimestampMillis - first},
	}
	writeSegment(t, pdir, 0, testBatch{base: 0, lastDelta: -1, firstTS: first, pid: -1, recs: recs}.encode())
	out := t.TempDir()
	var warned []string
	if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{pdir}, Warn: func(s string) { warned = append(warned, s) }}); err != nil {
		t.Fatal(err)
	}
	_, rows := readRows(t, out, catalog.TopicPartition{Topic: "far", Partition: 0})
	want := []int64{first, catalog.MaxTimestampMillis, -catalog.MaxTimestampMillis, catalog.MaxTimestampMillis}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r.Timestamp != want[i] {
			t.Errorf("offset %d: timestamp %d, want %d", r.Offset, r.Timestamp, want[i])
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "topic far partition 0 offset 1: timestamp 1700000000000000000 ms is further from 1970") {
		t.Errorf("warnings %q, want one naming offset 1", warned)
	}
}
