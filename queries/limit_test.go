package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// quietFixture: partition 0 has a record every 10 s for 20 minutes;
// partition 1 one every 400 s: three silent stretches over 300 s while
// partition 0 carried on. Keys go back in time on partition 1.
func quietFixture(t *testing.T) string {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const base = 1700000000000
	var p0, p1 []catalog.Row
	for i := int64(0); i < 120; i++ {
		p0 = append(p0, catalog.Row{Partition: 0, Offset: i, Timestamp: base + i*10_000, Key: []byte(fmt.Sprintf("k%d", i%3)), Value: []byte(fmt.Sprintf(`{"id":%d}`, i%7))})
	}
	for i := int64(0); i < 4; i++ {
		ts := base + i*400_000
		if i == 2 {
			ts = base + 100 // earlier than the record before it
		}
		p1 = append(p1, catalog.Row{Partition: 1, Offset: i, Timestamp: ts, Key: []byte("z"), Value: []byte(fmt.Sprintf(`{"id":%d}`, i))})
	}
	writePartition(t, d, "quiet", 0, "s1", 120, p0)
	writePartition(t, d, "quiet", 1, "s1", 4, p1)
	return dir
}

// TestCountsDoNotFollowTheLimit: a report's summary is the same whatever
// --limit keeps of its example rows, and the rows kept are at most --limit
// per kind.
func TestCountsDoNotFollowTheLimit(t *testing.T) {
	e, err := Open(context.Background(), quietFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct {
		check string
		o     CheckOptions
	}{
		{"freshness", CheckOptions{}},
		{"duplicates", CheckOptions{ID: "value.id"}},
		{"order", CheckOptions{}},
	} {
		var sums []string
		for _, limit := range []int{1, 50} {
			o := c.o
			o.Topic, o.Limit = "quiet", limit
			r, err := e.RunCheck(context.Background(), c.check, o)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := r.Summary.MarshalJSON()
			sums = append(sums, string(b))
			perKind := map[any]int{}
			for _, row := range r.Rows {
				perKind[row.Get("kind")]++
			}
			for k, n := range perKind {
				if k != "partition" && n > limit {
					t.Errorf("%s --limit %d kept %d rows of kind %v", c.check, limit, n, k)
				}
			}
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: the summary follows --limit:\n%s\n%s", c.check, sums[0], sums[1])
		}
	}
}

// TestEveryRowHasAKind: every row of every check says what it is.
func TestEveryRowHasAKind(t *testing.T) {
	e, err := Open(context.Background(), quietFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, name := range CheckNames {
		o := CheckOptions{Topic: "quiet", ID: "value.id", WhatIfKey: "value.id", EventTime: `"timestamp"`, Group: "g", ToTime: time.Unix(0, 0)}
		if name == "missing" {
			o.Match, o.AgainstTopic, o.AgainstMatch = "value.id", "quiet", "value.id + 1"
		}
		r, err := e.RunCheck(context.Background(), name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, row := range r.Rows {
			if k, _ := row.Get("kind").(string); k == "" {
				t.Errorf("%s row %d has no kind: %v", name, i, row.Vals)
			}
		}
	}
}

// TestEmptyTopicIsNeverOK: a topic with no records is said as such by every
// check that judges records (warn), never passed as ok.
func TestEmptyTopicIsNeverOK(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		writePartition(t, d, "empty", p, "s1", 0, nil)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, name := range CheckNames {
		if name == "lag" {
			continue
		}
		o := CheckOptions{Topic: "empty", Match: "key", AgainstTopic: "empty", AgainstMatch: "key", Group: "g", ToTime: time.Unix(0, 0)}
		r, err := e.RunCheck(context.Background(), name, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Status != StatusWarn || !strings.Contains(r.Message, "no records") {
			t.Errorf("%s on an empty topic: %s: %s", name, r.Status, r.Message)
		}
		// No share or staleness is invented: of no records there is none
		// (the fair share is the partitions', and stays).
		for _, k := range r.Summary.Keys {
			if (strings.HasSuffix(k, "_share") && k != "fair_share" || k == "max_staleness_seconds") && r.Summary.Get(k) != nil {
				t.Errorf("%s on an empty topic: %s = %v, want null", name, k, r.Summary.Get(k))
			}
		}
		for _, row := range r.Rows {
			if v := row.Get("share"); v != nil {
				t.Errorf("%s on an empty topic: a row's share = %v, want null", name, v)
			}
		}
	}
}

// TestOrderSaysWhatItCannotJudge: order is per key and in time: a topic
// without keys is not "ok", a record without a time is counted apart, and
// the record after it is compared with the last one that has a time (10,
// NULL, 5 goes backwards).
func TestOrderSaysWhatItCannotJudge(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var unkeyed, keyed []catalog.Row
	for i, v := range []string{`{"t":10}`, `{"x":1}`, `{"t":5}`, `{"t":20}`} {
		unkeyed = append(unkeyed, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
		keyed = append(keyed, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Key: []byte("k"), Value: []byte(v)})
	}
	writePartition(t, d, "unkeyed", 0, "s1", 4, unkeyed)
	writePartition(t, d, "keyed", 0, "s1", 4, keyed)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "order", CheckOptions{Topic: "unkeyed"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "no record has a key (4 records, all with a null key)") {
		t.Errorf("unkeyed: %s %q", r.Status, r.Message)
	}
	r, err = e.RunCheck(context.Background(), "order", CheckOptions{Topic: "keyed", Time: "value.t"})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.Summary.Get("out_of_order_records"), r.Summary.Get("records_without_time"), r.Summary.Get("records_without_key"))
	if r.Status != StatusWarn || got != "1 1 0" || !strings.Contains(r.Message, "1 record has a key and no time (value.t is NULL), not judged") {
		t.Errorf("keyed: %s %q; out of order, without time, without key = %s, want 1 1 0", r.Status, r.Message, got)
	}
}

// TestFreshnessCountsRecordsWithoutAnEventTime: with --event-time, a record
// whose event time is NULL is neither late nor on time: counted, said.
func TestFreshnessCountsRecordsWithoutAnEventTime(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	var rows []catalog.Row
	for i, v := range []string{`{"at":"` + now.Format(time.RFC3339) + `"}`, `{"x":1}`, `oops`} {
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: now.UnixMilli(), Value: []byte(v)})
	}
	writePartition(t, d, "t", 0, "s1", 3, rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "freshness", CheckOptions{Topic: "t", EventTime: "value.at"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || r.Summary.Get("records_without_event_time") != int64(2) ||
		!strings.Contains(r.Message, "2 records have no event time (value.at is NULL), not judged late or not") {
		t.Fatalf("%s %q %v", r.Status, r.Message, r.Summary.Vals)
	}
}

// TestSkewWhatIfCountsRecordsWithoutAKey: a record whose what-if key is
// NULL has no place by key; the what-if counts it apart, never places it.
func TestSkewWhatIfCountsRecordsWithoutAKey(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for i, v := range []string{`{"c":"a"}`, `{"x":1}`, `{"c":"b"}`, `oops`} {
		rows = append(rows, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
	}
	writePartition(t, d, "t", 0, "s1", 4, rows)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "skew", CheckOptions{Topic: "t", WhatIfKey: "value.c", WhatIfPartitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Summary.Get("what_if_records_without_key"); asInt(got) != 2 {
		t.Fatalf("what_if_records_without_key = %v, want 2 (%v)", got, r.Summary.Vals)
	}
}

func TestSpans(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want string
	}{{[]int64{1}, "1"}, {[]int64{0, 1, 2, 4, 6, 7}, "0-2, 4, 6-7"}, {nil, ""}} {
		if got := spans(c.in); got != c.want {
			t.Errorf("spans(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFreshnessNamesAPartitionThatHoldsNothing: a partition with no record
// has no newest record: it is listed with nothing invented, named, and the
// verdict is not ok ("the newest record of each partition" would be false).
func TestFreshnessNamesAPartitionThatHoldsNothing(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	writePartition(t, d, "t", 0, "s1", 2, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: now}, {Partition: 0, Offset: 1, Timestamp: now}})
	writePartition(t, d, "t", 1, "s1", 0, nil)
	if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: "t", PartitionCount: 2, AsOf: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.RunCheck(context.Background(), "freshness", CheckOptions{Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusWarn || !strings.Contains(r.Message, "1 partition holds no records (1), not judged") || r.Summary.Get("empty_partitions") != int64(1) {
		t.Fatalf("%s %q %v", r.Status, r.Message, r.Summary.Vals)
	}
	var got []string
	for _, row := range r.Rows {
		if row.Get("kind") == "partition" {
			got = append(got, fmt.Sprint(row.Get("partition"), ":", row.Get("records"), ":", row.Get("staleness_seconds") == nil))
		}
	}
	if fmt.Sprint(got) != "[0:2:false 1:0:true]" {
		t.Fatalf("partition rows %v, want partition 1 with 0 records and no staleness", got)
	}
}

// TestChartsAgreeWithTheSummary: the series a page draws come with the
// report and add up to its summary: records per partition over time sum to
// the records, duplicates over time to the extra copies.
func TestChartsAgreeWithTheSummary(t *testing.T) {
	e, err := Open(context.Background(), quietFixture(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sum := func(r *Report) (total float64) {
		for _, c := range r.Charts {
			for _, s := range c.Series {
				for _, p := range s.Points {
					total += p.V
				}
			}
		}
		return total
	}
	f, err := e.RunCheck(context.Background(), "freshness", CheckOptions{Topic: "quiet", Charts: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := sum(f); got != 124 || len(f.Charts) != 1 || len(f.Charts[0].Series) != 2 {
		t.Errorf("freshness chart: %v records in %d charts, want 124 in one chart of 2 partitions", got, len(f.Charts))
	}
	d, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "quiet", ID: "value.id", Charts: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sum(d), float64(asInt(d.Summary.Get("extra_copies"))); got != want || want == 0 {
		t.Errorf("duplicates chart sums to %v, the summary's extra copies are %v", got, want)
	}
	plain, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "quiet", ID: "value.id"})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Charts != nil {
		t.Errorf("charts computed without being asked")
	}
}
