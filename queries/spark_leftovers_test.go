package queries

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSparkOrderAndHeadersAgree: check order with a --time of text (numbers
// and times written as strings, a field of mixed types) gives on Spark the
// report DuckDB gives; the headers column has DuckDB's shape there (key,
// key_raw, value); a topic with header keys stored as bytes is refused on
// Spark with a message saying to use DuckDB, never read as empty text.
func TestSparkOrderAndHeadersAgree(t *testing.T) {
	s := sparkRemote(t)
	ctx := t.Context()
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UnixMilli()
	topics := map[string][]string{
		"nums":  {`{"id":9}`, `{"id":10}`, `{"id":"x"}`},
		"strs":  {`{"id":"9"}`, `{"id":"10"}`, `{"id":"9.5"}`},
		"times": {`{"id":"2026-07-16T10:00:00+02:00"}`, `{"id":"2026-07-16T09:30:00Z"}`, `{"id":"2026-07-16T09:00:00Z"}`},
	}
	for name, vals := range topics {
		var rows []catalog.Row
		for i, v := range vals {
			rows = append(rows, catalog.Row{Partition: 0, Offset: int64(i), Timestamp: now + int64(i), TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte(v),
				Headers: []catalog.Header{{Key: "h", Value: []byte("v")}}})
		}
		writePartition(t, d, name, 0, "s1", int64(len(rows)), rows)
	}
	writePartition(t, d, "raw", 0, "s1", 1, []catalog.Row{{Partition: 0, Offset: 0, Timestamp: now, TimestampType: catalog.TimestampCreate,
		Headers: []catalog.Header{{Key: "\xff", Value: []byte("v")}}}})
	duck, err := Open(ctx, dir, Options{Topics: []string{"nums", "strs", "times"}})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	sp, err := Open(ctx, dir, Options{Remote: s, Topics: []string{"nums", "strs", "times"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for name := range topics {
		o := CheckOptions{Topic: name, Time: "value.id"}
		want, err := duck.RunCheck(ctx, "order", o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sp.RunCheck(ctx, "order", o)
		if err != nil {
			t.Fatalf("%s on spark: %v", name, err)
		}
		if diff := sameJSON(t, want, got); diff != "" {
			t.Errorf("order on %s: DuckDB and Spark differ: %s", name, diff)
		}
	}
	_, rows, err := sp.QueryRemote(ctx, `SELECT h.key, CAST(h.key_raw AS STRING), CAST(h.value AS STRING) FROM (SELECT explode(headers) AS h FROM nums) LIMIT 1`)
	if err != nil || len(rows) != 1 || fmt.Sprint(rows[0]) != "[h h v]" {
		t.Fatalf("headers on spark: %v %v", rows, err)
	}
	_, err = Open(ctx, dir, Options{Remote: s, Topics: []string{"raw"}})
	if err == nil {
		e, _ := Open(ctx, dir, Options{Remote: s})
		_, _, err = e.QueryRemote(ctx, `SELECT headers FROM raw`)
		e.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "not UTF-8") || errors.Is(err, ErrDamagedData) {
		t.Fatalf("a topic with header keys stored as bytes on spark: %v", err)
	}
}
