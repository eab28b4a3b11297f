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
// nothing new: it writes no manifest (each keeps the first run's one
// snapshot) and records a cut of every topic listing every partition as
// dumped, at the manifest's next offset.
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
	check := func() {
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
				if len(m.Snapshots) != 1 || m.Snapshots[0].ID != s.Snapshots[i] || m.NextOffset != int64(i%5+1) {
					t.Errorf("%s/%d: snapshots %v, next offset %d; want only the first run's %s, %d", n, p, m.Snapshots, m.NextOffset, s.Snapshots[i], i%5+1)
				}
			}
		}
	}
	check()
	s2 := dumpOnce(t, brokers, dir, "", regex)
	if s2.Records != 0 || s2.Partitions != topics*partitions || len(s2.Snapshots) != topics {
		t.Fatalf("the second run dumped %d records of %d partitions in %d snapshots, want none of %d in %d", s2.Records, s2.Partitions, len(s2.Snapshots), topics*partitions, topics)
	}
	check()
	snaps, err = d.ClusterSnapshots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cuts := map[string]*catalog.ClusterSnapshot{}
	for _, cs := range snaps {
		cuts[cs.ID] = cs
	}
	for i, id := range s2.Snapshots {
		cs := cuts[id]
		if cs == nil || cs.Topic != names[i] || fmt.Sprint(cs.Dumped) != "[0 1]" || len(cs.Partitions) != partitions {
			t.Fatalf("the second run's cut %s of %s: %+v, want both partitions dumped", id, names[i], cs)
		}
		for _, ps := range cs.Partitions {
			if ps.HighWatermark != int64(i%5+1) || ps.LogStart != 0 {
				t.Errorf("the second run's cut of %s/%d: offsets %d-%d, want 0-%d", names[i], ps.Partition, ps.LogStart, ps.HighWatermark, i%5+1)
			}
		}
	}
}
