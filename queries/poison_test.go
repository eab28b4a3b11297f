package queries

import (
	"context"
	"fmt"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestPoisonValuesKeepTheStructure: a topic of mostly JSON objects keeps its
// inferred STRUCT whatever a few values are: a value that does not parse
// reads as NULL fields, says why in value_error and keeps its bytes in
// value_raw; a null value (a tombstone) stays NULL with no error; checks
// with --id value.x work; a burst of bad records at the start of the
// first file does not decide the format.
func TestPoisonValuesKeepTheStructure(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	// "small": 5 JSON objects and 1 oops (83%), an empty value, a null.
	small := []catalog.Row{}
	for i, v := range []string{`{"id":"a"}`, `{"id":"b"}`, `{"id":"c"}`, `oops`, `{"id":"d"}`, `{"id":"a"}`} {
		small = append(small, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
	}
	small = append(small, catalog.Row{Offset: 6, Timestamp: 1700000000000, Value: []byte{}},
		catalog.Row{Offset: 7, Timestamp: 1700000000000})
	writePartition(t, d, "small", 0, "s1", 8, small)
	// "burst": 300 bad records, then 1,000 good ones, in one file.
	var burst []catalog.Row
	for i := 0; i < 1300; i++ {
		v := fmt.Sprintf(`{"id":"e%d"}`, i)
		if i < 300 {
			v = fmt.Sprintf("\x00binary %d", i)
		}
		burst = append(burst, catalog.Row{Offset: int64(i), Timestamp: 1700000000000, Value: []byte(v)})
	}
	writePartition(t, d, "burst", 0, "s1", 1300, burst)
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ q, want string }{
		{`SELECT string_agg(coalesce(value.id, '-'), ',' ORDER BY "offset") FROM small`, "a,b,c,-,d,a,-,-"},
		{`SELECT string_agg(coalesce(value_error, '-'), ',' ORDER BY "offset") FROM small`, "-,-,-,not JSON,-,-,not JSON,-"},
		{`SELECT decode(value_raw) FROM small WHERE "offset" = 3`, "oops"},
		{`SELECT (value IS NULL AND value_raw IS NULL AND value_error IS NULL)::VARCHAR FROM small WHERE "offset" = 7`, "true"},
		{`SELECT count(value.id)::VARCHAR FROM burst`, "1000"},
		{`SELECT count(*)::VARCHAR FROM burst WHERE value_error = 'not JSON'`, "300"},
	} {
		if got := query1(t, e, c.q); got != c.want {
			t.Errorf("%s: %q, want %q", c.q, got, c.want)
		}
	}
	r, err := e.RunCheck(context.Background(), "duplicates", CheckOptions{Topic: "small", ID: "value.id"})
	if err != nil {
		t.Fatal(err)
	}
	// "a" twice; oops, the empty value and the tombstone have no id: not
	// copies of each other, counted apart.
	if got := fmt.Sprint(r.Summary.Get("duplicate_ids"), r.Summary.Get("records_without_id")); got != "1 3" {
		t.Errorf("duplicate ids, records without id on small: %v, want 1 3", got)
	}
	v, err := e.RunCheck(context.Background(), "values", CheckOptions{Topic: "small"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Summary.Get("unparsed_records") != int64(2) || v.Status != StatusWarn {
		t.Errorf("values on small: %s %v", v.Status, v.Summary.Vals)
	}
}

// TestKeysNamesThePartitioner: a topic written by crc32 alone, or by an
// explicit map that keeps each key on one partition, is a partitioner, not
// a fault; keys split over partitions are the fault.
func TestKeysNamesThePartitioner(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	write := func(topic string, place func(k []byte, i int) int32) {
		byPart := map[int32][]catalog.Row{}
		for i := 0; i < 200; i++ {
			k := []byte(fmt.Sprintf("key-%d", i%40))
			p := place(k, i)
			byPart[p] = append(byPart[p], catalog.Row{Partition: p, Offset: int64(len(byPart[p])), Timestamp: 1700000000000, Key: k, Value: []byte(`{"x":1}`)})
		}
		for p := int32(0); p < n; p++ {
			writePartition(t, d, topic, p, "s1", int64(len(byPart[p])), byPart[p])
		}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s-" + topic, Topic: topic, PartitionCount: n}); err != nil {
			t.Fatal(err)
		}
	}
	write("crc", func(k []byte, _ int) int32 { return catalog.CRC32Partition(k, n) })
	write("custom", func(k []byte, _ int) int32 { return int32(len(k)+int(k[len(k)-1])) % n }) // a fixed map, by key
	write("split", func(k []byte, i int) int32 { return int32(i % 3) })                        // key-j lands on j%3, (j+1)%3, ...
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for topic, want := range map[string]string{"crc": "ok crc32", "custom": "ok custom", "split": "fail unknown"} {
		r, err := e.RunCheck(context.Background(), "keys", CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Status + " " + fmt.Sprint(r.Summary.Get("partitioner")); got != want {
			t.Errorf("%s: %s (%s), want %s", topic, got, r.Message, want)
		}
	}
}
