package dump

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestDumpManyTopicsAtOnce: a run of more topics than it dumps at once
// (topicsAtOnce) dumps every record of every topic exactly once, each
// topic's snapshot committed (manifests, then its cluster snapshot), the
// summary's snapshots in the order of the topics; the next run finds
// nothing new and records a snapshot for every partition again.
func TestDumpManyTopicsAtOnce(t *testing.T) {
	brokers := testCluster(t)
	const topics, partitions = topicsAtOnce + 6, 2
	prefix := fmt.Sprintf("t-manyatonce-%d", time.Now().UnixNano()%1e9)
	cl := producer(t, brokers)
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	names := make([]string, topics)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	rs, err := adm.CreateTopics(ctx, partitions, 1, nil, names...)
	if err == nil {
		err = rs.Error()
	}
	if err != nil {
		t.Fatalf("create topics: %v", err)
	}
	t.Cleanup(func() {
		dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
		defer dcancel()
		adm.DeleteTopics(dctx, names...)
	})
	// Topic i holds i%5+1 records a partition: sizes differ, so a record
	// counted for the wrong topic shows.
	var recs []*kgo.Record
	want := int64(0)
	for i, n := range names {
		for p := range int32(partitions) {
			for j := range i%5 + 1 {
				recs = append(recs, &kgo.Record{Topic: n, Partition: p, Value: fmt.Appendf(nil, "%s/%d/%d", n, p, j)})
				want++
			}
		}
	}
	produce(t, cl, recs...)

	dir := t.TempDir()
	regex := func(o *Options) { o.Topics, o.TopicRegex = nil, "^"+prefix+"-" }
	s := dumpOnce(t, brokers, dir, "", regex)
	if s.Records != want || s.Partitions != topics*partitions || len(s.Snapshots) != topics {
		t.Fatalf("dumped %d records of %d partitions in %d snapshots, want %d, %d, %d", s.Records, s.Partitions, len(s.Snapshots), want, topics*partitions, topics)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	snaps, err := d.ClusterSnapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	topicOf := map[string]string{}
	for _, cs := range snaps {
		topicOf[cs.ID] = cs.Topic
	}
	for i, id := range s.Snapshots {
		if topicOf[id] != names[i] {
			t.Errorf("snapshot %d of the summary is %s's (%q), want %s's", i, id, topicOf[id], names[i])
		}
	}
	check := func(runs int) {
		t.Helper()
		for i, n := range names {
			rows := readAllRows(t, dir, n)
			for p := range int32(partitions) {
				if got := len(rows[p]); got != i%5+1 {
					t.Errorf("%s/%d: %d rows, want %d", n, p, got, i%5+1)
				}
				for j, r := range rows[p] {
					if string(r.Value) != fmt.Sprintf("%s/%d/%d", n, p, j) || r.Offset != int64(j) {
						t.Errorf("%s/%d row %d: offset %d value %q", n, p, j, r.Offset, r.Value)
					}
				}
				m, err := d.ReadManifest(ctx, catalog.TopicPartition{Topic: n, Partition: p})
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Snapshots) != runs || m.NextOffset != int64(i%5+1) {
					t.Errorf("%s/%d: %d snapshots, next offset %d; want %d, %d", n, p, len(m.Snapshots), m.NextOffset, runs, i%5+1)
				}
			}
		}
	}
	check(1)
	if s := dumpOnce(t, brokers, dir, "", regex); s.Records != 0 || len(s.Snapshots) != topics {
		t.Fatalf("the second run dumped %d records in %d snapshots, want none in %d", s.Records, len(s.Snapshots), topics)
	}
	check(2)
}
