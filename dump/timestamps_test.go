package dump

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
)

// TestDumpKeepsTimestampsPast2262: Kafka takes any int64 timestamp (with
// message.timestamp.after.max.ms set so), and franz-go's consumer makes a
// record's time as int64 nanoseconds, which wrap past 2262-04-11 and
// before 1677-09-21. The dump stores the timestamp Kafka gave, not the
// wrapped one: 9999-12-31 was stored as 1816-03-30, a producer's
// microseconds taken for milliseconds (year 55,841) as 2061-11-18.
func TestDumpKeepsTimestampsPast2262(t *testing.T) {
	brokers := testCluster(t)
	maxTS := strconv.FormatInt(math.MaxInt64, 10)
	topic := newTopic(t, brokers, 1, map[string]*string{"message.timestamp.after.max.ms": &maxTS})
	ts := []int64{
		1_700_000_000_000,     // 2023
		253_402_300_799_000,   // 9999-12-31T23:59:59Z
		1_700_000_000_000_000, // microseconds taken for milliseconds
		9_223_372_036_855,     // the first ms whose nanoseconds overflow an int64
		-1,                    // no timestamp
		0,
		catalog.MaxTimestampMillis, // the year 294,247: the last time the folder holds
		1e16,                       // past it: DuckDB could not read the topic's files
		-1e16,
	}
	want := slices.Clone(ts)
	want[len(want)-2], want[len(want)-1] = catalog.MaxTimestampMillis, -catalog.MaxTimestampMillis // the bound on its side
	dumptest.ProduceTimestamps(t, brokers, topic, 0, ts)
	dir := t.TempDir()
	w := &warnings{}
	dumpOnce(t, brokers, dir, topic, func(o *Options) { o.Progress = w })
	if len(w.said) != 1 || !strings.Contains(w.said[0], "offset 7: timestamp 10000000000000000 ms is further from 1970 than the folder's timestamp column holds") {
		t.Errorf("warnings %q, want one naming offset 7 and its timestamp", w.said)
	}
	rows := dumptest.ReadAllRows(t, dir, topic)[0]
	if len(rows) != len(ts) {
		t.Fatalf("dumped %d rows, produced %d", len(rows), len(ts))
	}
	for i, r := range rows {
		if r.Timestamp != want[i] {
			t.Errorf("offset %d: timestamp %d (%s), want %d (Kafka has %d)", r.Offset, r.Timestamp, time.UnixMilli(r.Timestamp).UTC(), want[i], ts[i])
		}
	}
}

// TestRecordMillis holds recordMillis to every timestamp within 2^57 ms of
// 1970, as franz-go's consumer hands them over (time.Unix(0, ms*1e6),
// wrapping).
func TestRecordMillis(t *testing.T) {
	for _, ms := range []int64{0, -1, 1, 1_700_000_000_000, math.MaxInt64 / 1_000_000, math.MaxInt64/1_000_000 + 1, math.MinInt64 / 1_000_000, math.MinInt64/1_000_000 - 1,
		253_402_300_799_000, -62_135_596_800_000, 1_700_000_000_000_000, 1<<57 - 1, -1 << 57} {
		got := recordMillis(time.Unix(0, ms*1e6))
		if got != ms {
			t.Errorf("recordMillis of %d ms: %d", ms, got)
		}
	}
}
