package queries

import (
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestOrderLeavesOutBrokerTimeAndNoTimestamp: the order check's default
// time is the record timestamp, meant as the producer's. A topic whose
// timestamps the broker stamps (LogAppendTime) is in the log's order by
// construction: it was "OK: the time of every key only moves forward",
// which judged nothing. A timestamp of -1 is Kafka's "no timestamp": it
// was taken for 1969 and counted as a record out of order. Both are left
// out, counted and said (warn), never OK; an event time given with --time
// is judged as before.
func TestOrderLeavesOutBrokerTimeAndNoTimestamp(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	row := func(off int64, key string, ts int64, typ, value string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: ts, TimestampType: typ, Key: []byte(key), Value: []byte(value), ProducerID: -1}
	}
	la, ct := catalog.TimestampLogAppend, catalog.TimestampCreate
	// lat: stamped by the broker, the event times in the values go back.
	writePartition(t, d, "lat", 0, "s1", 3, []catalog.Row{
		row(0, "a", 1_000_000, la, `{"ts":20}`), row(1, "a", 1_000_001, la, `{"ts":10}`), row(2, "b", 1_000_002, la, `{"ts":5}`)})
	// mixed: key a has a time, then none (-1), then a later time.
	writePartition(t, d, "mixed", 0, "s1", 3, []catalog.Row{
		row(0, "a", 1_000_000, ct, `{"ts":1}`), row(1, "a", -1, ct, `{"ts":2}`), row(2, "a", 1_000_005, ct, `{"ts":3}`)})
	e, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		topic, time          string
		status               string
		ooo, logAppend, noTS any
		says, notSays        string
	}{
		{"lat", "", StatusWarn, int64(0), int64(3), int64(0), "the broker's time (LogAppendTime)", "only moves forward"},
		{"lat", "value.ts", StatusWarn, int64(1), nil, nil, "1 record is earlier", "LogAppendTime"},
		{"mixed", "", StatusWarn, int64(0), int64(0), int64(1), "1 keyed record has no timestamp (-1), not judged", "earlier"},
	} {
		r, err := e.RunCheck(t.Context(), "order", CheckOptions{Topic: c.topic, Time: c.time})
		if err != nil {
			t.Fatalf("%s --time %q: %v", c.topic, c.time, err)
		}
		if r.Status != c.status || r.Summary.Get("out_of_order_records") != c.ooo || r.Summary.Get("log_append_time_records") != c.logAppend ||
			r.Summary.Get("no_timestamp_records") != c.noTS || !strings.Contains(r.Message, c.says) || strings.Contains(r.Message, c.notSays) {
			t.Errorf("%s --time %q: %s out_of_order=%v log_append=%v no_timestamp=%v: %s", c.topic, c.time, r.Status,
				r.Summary.Get("out_of_order_records"), r.Summary.Get("log_append_time_records"), r.Summary.Get("no_timestamp_records"), r.Message)
		}
	}
}
