package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// fewerPartitionsFolder dumps a topic of 2 partitions, deletes it, makes it
// again with 1 and dumps it again: the folder keeps the old partition 1,
// superseded whole by a topic-recreated rewrite (dump's
// supersedeVanished). It returns the folder and the topic.
func fewerPartitionsFolder(t *testing.T) (string, string) {
	t.Helper()
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 2, nil)
	p := dumptest.Producer(t, brokers)
	for i := range 10 {
		dumptest.Produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Key: fmt.Appendf(nil, "old-key-%d", i), Value: fmt.Appendf(nil, "old-%d", i)})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, brokers, topic, 1)
	p2 := dumptest.Producer(t, brokers)
	for i := range 7 {
		// Keys murmur2 puts on partition 1 of 2: judged by the old count,
		// they looked misplaced.
		dumptest.Produce(t, p2, &kgo.Record{Topic: topic, Partition: 0, Key: fmt.Appendf(nil, "new-key-%d", i), Value: fmt.Appendf(nil, "new-%d", i)})
	}
	if s, err := dump.Run(ctx, opts); err != nil || s.Rewrites != 2 || s.Records != 7 {
		t.Fatalf("dump after the topic was made again with 1 partition: %+v %v, want 2 rewrites (both old partitions), 7 records", s, err)
	}
	return dir, topic
}

// TestChecksOnATopicMadeAgainWithFewerPartitions: a topic deleted and made
// again with fewer partitions has today's count of partitions; the old
// topic's vanished partition (its files superseded) is history, never a
// partition of the topic that is hot, cold, empty or checked. Before, every
// check counted the largest partition count any cut recorded and the
// superseded files' partitions: skew said "1 partition is hot: 100%
// against a fair share of 50%", keys "custom partitioner", freshness "1
// partition holds no records", gaps "all 2 partitions" (and failed 5
// offsets of the vanished partition as undumped), durability listed
// partition 1.
func TestChecksOnATopicMadeAgainWithFewerPartitions(t *testing.T) {
	dir, topic := fewerPartitionsFolder(t)
	ctx := context.Background()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checkFewerPartitions(t, e, topic)
	// The topic list (the server's, sql's) says today's count, and the
	// vanished partition as the old topic's.
	if tp, ok := e.Topic(topic); !ok || tp.Partitions != 1 || fmt.Sprint(tp.OldPartitions) != "[1]" {
		t.Fatalf("topic list: %+v, want 1 partition, partition 1 the old topic's", tp)
	}
}

// checkFewerPartitions asserts each check's answer on fewerPartitionsFolder's
// folder, on the engine e.
func checkFewerPartitions(t *testing.T, e *Engine, topic string) {
	t.Helper()
	ctx := context.Background()
	partitionsOf := func(r *Report) []int64 {
		var ps []int64
		for _, row := range r.Rows {
			if k := row.Get("kind"); k == nil || k == "partition" {
				ps = append(ps, asInt(row.Get("partition")))
			}
		}
		return ps
	}
	for _, c := range []struct {
		check string
		test  func(r *Report) string
	}{
		{"skew", func(r *Report) string {
			if strings.Contains(r.Message, "hot") || strings.Contains(r.Message, "empty") || fmt.Sprint(partitionsOf(r)) != "[0]" ||
				!strings.Contains(r.Message, "its one partition holds every record") {
				return "want partition 0 alone, neither hot nor empty, said as the topic's one partition"
			}
			return ""
		}},
		{"keys", func(r *Report) string {
			if r.Status != StatusOK || strings.Contains(r.Message, "custom") || r.Summary.Get("misplaced_records") != int64(0) {
				return "want every key on murmur2(key) % 1"
			}
			return ""
		}},
		{"freshness", func(r *Report) string {
			if strings.Contains(r.Message, "holds no records") || fmt.Sprint(partitionsOf(r)) != "[0]" {
				return "want partition 0 alone, no empty partition"
			}
			return ""
		}},
		{"gaps", func(r *Report) string {
			if r.Status != StatusWarn || r.Summary.Get("partitions") != int64(1) || r.Summary.Get("undumped_offsets") != int64(0) ||
				strings.Contains(r.Message, "all 2 partitions") || strings.Contains(r.Message, "of 1 partition") ||
				!strings.Contains(r.Message, "0 missing offsets on its one partition") ||
				!strings.Contains(r.Message, "after 10 offsets on 2 partitions of the old topic") || r.Summary.Get("recreated_offsets") != int64(10) {
				return "want 1 partition, nothing undumped, the old topic's 10 offsets on its 2 partitions said as made again"
			}
			return ""
		}},
		{"durability", func(r *Report) string {
			if fmt.Sprint(partitionsOf(r)) != "[0]" || r.Summary.Get("partitions") != int64(1) || r.Summary.Get("recreated_offsets") != int64(10) ||
				!strings.Contains(r.Message, "after 10 offsets on 2 partitions (0, 1) were dumped") {
				return "want partition 0 alone, the old topic's 10 offsets on its 2 partitions said as made again"
			}
			return ""
		}},
	} {
		r, err := e.RunCheck(ctx, c.check, CheckOptions{Topic: topic})
		if err != nil {
			t.Errorf("%s: %v", c.check, err)
			continue
		}
		if why := c.test(r); why != "" {
			t.Errorf("%s: %s %q, summary %v, partitions %v: %s", c.check, r.Status, r.Message, r.Summary, partitionsOf(r), why)
		}
	}
}

// TestCurrentCuts: the cuts that say today's partitions are those after
// the last cut of another topic id; partitions added to a topic keep the
// largest count; a cut older code wrote (no topic id) tells no topic
// apart.
func TestCurrentCuts(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 12, 1, 0, min, 0, 0, time.UTC) }
	cut := func(id string, min, parts int, topicID string) *catalog.ClusterSnapshot {
		return &catalog.ClusterSnapshot{ID: id, Topic: "t", AsOf: at(min), PartitionCount: parts, TopicID: topicID}
	}
	for _, tc := range []struct {
		name  string
		snaps []*catalog.ClusterSnapshot
		want  string // the current cuts' ids
		count int
	}{
		{"made again with fewer", []*catalog.ClusterSnapshot{cut("a", 1, 2, "A"), cut("b", 2, 2, "A"), cut("c", 3, 1, "B")}, "[c]", 1},
		{"partitions added", []*catalog.ClusterSnapshot{cut("a", 1, 3, "A"), cut("b", 2, 6, "A")}, "[a b]", 6},
		{"made again with more", []*catalog.ClusterSnapshot{cut("a", 1, 3, "A"), cut("b", 2, 1, "B"), cut("c", 3, 2, "B")}, "[b c]", 2},
		{"older cuts record no id", []*catalog.ClusterSnapshot{cut("a", 1, 2, ""), cut("b", 2, 1, "B")}, "[a b]", 2},
		{"a later cut records no id", []*catalog.ClusterSnapshot{cut("a", 1, 2, "A"), cut("b", 2, 1, "B"), cut("c", 3, 1, "")}, "[b c]", 1},
		{"out of order, another topic", []*catalog.ClusterSnapshot{cut("c", 3, 1, "B"), {ID: "x", Topic: "u", AsOf: at(4), PartitionCount: 9, TopicID: "C"}, cut("a", 1, 2, "A")}, "[c]", 1},
		{"no cut", nil, "[]", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ids []string
			count := 0
			for _, s := range currentCuts("t", tc.snaps) {
				ids = append(ids, s.ID)
				count = max(count, s.PartitionCount)
			}
			if got := fmt.Sprint(ids); got != tc.want || count != tc.count {
				t.Fatalf("current cuts %s (count %d), want %s (%d)", got, count, tc.want, tc.count)
			}
		})
	}
}

// TestSparkTopicMadeAgainWithFewerPartitions: on Spark the checks give the
// folder of a topic made again with fewer partitions the same answers as
// on DuckDB: today's partition alone.
func TestSparkTopicMadeAgainWithFewerPartitions(t *testing.T) {
	s := sparkRemote(t)
	dir, topic := fewerPartitionsFolder(t)
	ctx := context.Background()
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	checkFewerPartitions(t, sp, topic)
	duck, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	for _, name := range []string{"skew", "keys", "freshness", "gaps", "durability"} {
		want, err := duck.RunCheck(ctx, name, CheckOptions{Topic: topic})
		if err != nil {
			t.Fatal(err)
		}
		got, err := sp.RunCheck(ctx, name, CheckOptions{Topic: topic})
		if err != nil {
			t.Fatalf("%s on spark: %v", name, err)
		}
		if diff := sameJSON(t, want, got); diff != "" {
			t.Errorf("%s: DuckDB and Spark differ: %s", name, diff)
		}
	}
}
