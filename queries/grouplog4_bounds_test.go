package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kbin"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets/offsetstest"
)

// TestStreamsTasksMappingIsBounded: a streams member's tasks are mapped
// to partitions through the group's topology, each task against each
// subtopology. A topology of 50,000 subtopologies and an assignment of
// 50,000 tasks (1.3 MB of log) made that 2.5 billion comparisons:
// group_generations did not answer in 60 s (one record costing every query
// of the log). Past 10,000,000 pairs the mapping is not made: assignment
// is NULL and assignment_error says why; the tasks are still there.
func TestStreamsTasksMappingIsBounded(t *testing.T) {
	const n = 50_000
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	topology := kbin.AppendInt16(nil, 0)
	topology = kbin.AppendInt32(topology, 1)
	topology = kbin.AppendCompactArrayLen(topology, n)
	for i := range n {
		topology = kbin.AppendCompactString(topology, fmt.Sprint(i))
		topology = kbin.AppendCompactArrayLen(topology, 1)
		topology = kbin.AppendCompactString(topology, "orders")
		for range 5 {
			topology = kbin.AppendCompactArrayLen(topology, 0)
		}
		topology = kbin.AppendUvarint(topology, 0)
	}
	topology = kbin.AppendUvarint(topology, 0)
	current := kbin.AppendInt16(nil, 0)
	current = kbin.AppendInt32(current, 2)
	current = kbin.AppendInt32(current, 1)
	current = kbin.AppendInt8(current, 0)
	current = kbin.AppendCompactArrayLen(current, n)
	for i := range n {
		current = kbin.AppendCompactString(current, fmt.Sprint(i))
		current = kbin.AppendCompactArrayLen(current, 1)
		current = kbin.AppendInt32(current, 0)
		current = kbin.AppendUvarint(current, 0)
	}
	for range 5 {
		current = kbin.AppendCompactArrayLen(current, 0)
	}
	current = kbin.AppendUvarint(current, 0)
	const t0 = int64(1_767_225_600_000)
	rows := []catalog.Row{
		{Partition: 0, Offset: 0, Timestamp: t0, TimestampType: catalog.TimestampCreate, Key: offsetstest.Key848(23, "gale"), Value: topology},
		{Partition: 0, Offset: 1, Timestamp: t0, TimestampType: catalog.TimestampCreate, Key: offsetstest.Key848(22, "gale", "s-1"), Value: current},
	}
	writePartition(t, d, offsetsTopic, 0, "s1", 2, rows)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	res, err := e.Query(ctx, `SELECT concat_ws(' ', coalesce(len(assignment)::VARCHAR, 'NULL'), len(active_tasks), assignment_error) FROM group_generations`)
	if err != nil {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
	defer res.Close()
	var got []string
	for res.Next() {
		var s string
		if err := res.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
	t.Logf("%s: %q", time.Since(start), got)
	if len(got) != 1 || !strings.HasPrefix(got[0], "NULL 50000 50000 active tasks over 50000 subtopologies") {
		t.Errorf("got %q", got)
	}
}

// TestGroupLogReadsNoValues: group_log shows a record's head (kind, group,
// member, error) and no value, but parsed every record's JSON with the
// structure of every value (at 70df8e5, 0.67 s for 100,000 records; with
// the share and streams values added, more); each view now parses only
// the values it reads (0.37 s).
func TestGroupLogReadsNoValues(t *testing.T) {
	ddl, err := logViewDDL()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{`"commit":`, `"classic":`, `"current":`, `"member_metadata":`, `"streams_current":`, `"topology":`} {
		if strings.Contains(ddl[0], v) {
			t.Errorf("group_log parses %s", v)
		}
	}
	if !strings.Contains(ddl[1], `"topology":`) || !strings.Contains(ddl[1], `"classic":`) {
		t.Error("group_generations lost a value it reads")
	}
	defer func() {
		if recover() == nil {
			t.Error("recordStructure of a field the Record has not did not panic")
		}
	}()
	recordStructure("no_such_value")
}
