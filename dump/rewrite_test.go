package dump

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestDivergenceOf: what the leader answers for the last dumped record's
// epoch, the cut's log end and start and the topic's id, against a folder
// that dumped offsets 0-149 (files 0-99 and 100-149, last epoch 3).
func TestDivergenceOf(t *testing.T) {
	epoch := int32(3)
	manifest := func() *catalog.Manifest {
		return &catalog.Manifest{Topic: "t", NextOffset: 150,
			Files: []catalog.FileEntry{
				{Name: catalog.FileName(0, 99), FirstOffset: 0, LastOffset: 99, Records: 100},
				{Name: catalog.FileName(100, 149), FirstOffset: 100, LastOffset: 149, Records: 50, LastLeaderEpoch: &epoch},
			},
			Snapshots: []catalog.PartitionSnapshot{{LogStart: 0, HighWatermark: 150, TopicID: "id-1"}},
		}
	}
	cases := []struct {
		name      string
		end       int64 // the leader's end of epoch 3; -2: not asked
		hwm, ls   int64
		topicID   string
		kind      string // "" for none
		first     int64
		redumped  int64
		supersede int
	}{
		{"same history, appended to", 400, 400, 0, "id-1", "", 0, 0, 0},
		{"same epoch still going", 150, 150, 0, "id-1", "", 0, 0, 0},
		{"truncated inside the last file", 120, 300, 0, "id-1", catalog.RewriteTruncated, 120, 100, 1},
		{"truncated at a file's start", 100, 300, 0, "id-1", catalog.RewriteTruncated, 100, 100, 1},
		{"truncated inside the first file", 40, 300, 0, "id-1", catalog.RewriteTruncated, 40, 0, 2},
		{"epoch unknown to the leader", -1, 300, 0, "id-1", catalog.RewriteTruncated, 100, 100, 1},
		{"log end went back", 400, 130, 0, "id-1", catalog.RewriteEndBack, 130, 100, 1},
		{"log start as before", -2, 400, 0, "id-1", "", 0, 0, 0},
		{"log start went back (a clean leader change)", 400, 400, -1, "id-1", "", 0, 0, 0},
		{"topic made again", 400, 400, 0, "id-2", catalog.RewriteRecreated, 0, 0, 2},
		{"no epoch asked, end went back", -2, 20, 0, "id-1", catalog.RewriteEndBack, 20, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := manifest()
			ends := map[int32]int64{}
			if tc.end != -2 {
				ends[0] = tc.end
			} else {
				m.Files[1].LastLeaderEpoch = nil
			}
			if tc.ls < 0 { // a log start below the one the last dump saw
				m.Snapshots[0].LogStart, tc.ls = 60, 0
			}
			c := &cut{id: "s", asOf: time.Unix(0, 0), starts: map[int32]int64{0: tc.ls}, ends: map[int32]int64{0: tc.hwm},
				state: &catalog.ClusterSnapshot{TopicID: tc.topicID, Partitions: []catalog.PartitionState{{LeaderEpoch: 5}}}}
			dv := divergenceOf(c, m, ends)
			if tc.kind == "" {
				if dv != nil {
					t.Fatalf("divergence %+v, want none", dv)
				}
				return
			}
			if dv == nil || dv.kind != tc.kind || dv.first != tc.first {
				t.Fatalf("divergence %+v, want %s from %d", dv, tc.kind, tc.first)
			}
			rw, files, superseded := planRewrite(c, m, *dv)
			if rw.Redumped != tc.redumped || len(superseded) != tc.supersede || len(files)+len(superseded) != 2 || rw.Last != 149 || rw.NewEpoch != 5 || rw.History != 1 {
				t.Fatalf("rewrite %+v keeping %d files, superseding %d; want re-read from %d, %d superseded", rw, len(files), len(superseded), tc.redumped, tc.supersede)
			}
		})
	}
}

// TestTopicMadeAgain: a topic deleted and made again under the same name
// reuses its offsets (0 on). The next dump must see the topic's id changed,
// keep the old records as superseded, and dump the new ones, never merge
// them with the old.
func TestTopicMadeAgain(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	for i := range 10 {
		produce(t, p, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("old-%d", i))})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	if s, err := Run(ctx, opts); err != nil || s.Records != 10 {
		t.Fatalf("first dump: %v %v", s, err)
	}
	dumptest.RemakeTopic(t, brokers, topic, 1)
	p2 := producer(t, brokers)
	for i := range 15 {
		produce(t, p2, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("new-%d", i))})
	}
	s, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rewrites != 1 || s.RewrittenOffsets != 10 || s.Records != 15 {
		t.Fatalf("dump after the topic was made again: %v, want 15 records and 10 rewritten offsets", s)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(ctx, catalog.TopicPartition{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rewrites) != 1 || m.Rewrites[0].Kind != catalog.RewriteRecreated || len(m.Superseded) != 1 || len(m.Files) != 1 ||
		m.Files[0].FirstOffset != 0 || m.Files[0].LastOffset != 14 || m.Files[0].History != 1 || m.NextOffset != 15 {
		t.Fatalf("manifest: rewrites %+v, files %+v, superseded %+v, next %d", m.Rewrites, m.Files, m.Superseded, m.NextOffset)
	}
	rows := readAllRows(t, dir, topic)[0]
	if len(rows) != 15 || string(rows[0].Value) != "new-0" {
		t.Fatalf("current rows: %d, first %q; want the 15 new records", len(rows), rows[0].Value)
	}
}

// TestIdle: a partition is left alone (nothing written, locked or
// cleaned) only when the cut ends where the folder's dump of it stopped,
// the log start did not pass it, and the log is still the history dumped;
// a log that diverged at the same end offset is not idle.
func TestIdle(t *testing.T) {
	epoch := int32(3)
	dumped := func() *catalog.Manifest {
		return &catalog.Manifest{Topic: "t", NextOffset: 150,
			Files:     []catalog.FileEntry{{Name: catalog.FileName(0, 149), FirstOffset: 0, LastOffset: 149, Records: 150, LastLeaderEpoch: &epoch}},
			Snapshots: []catalog.PartitionSnapshot{{LogStart: 0, HighWatermark: 150, TopicID: "id-1"}},
		}
	}
	cases := []struct {
		name     string
		m        func() *catalog.Manifest
		epochEnd int64 // the leader's end of epoch 3; -2: not asked
		hwm, ls  int64
		topicID  string
		until    string
		want     bool
	}{
		{"nothing new", dumped, 150, 150, 0, "id-1", "", true},
		{"nothing new, --until now", dumped, 150, 150, 0, "id-1", "now", true},
		{"nothing new, no epoch asked", dumped, -2, 150, 0, "id-1", "", true},
		{"nothing new, log start at the next offset", dumped, 150, 150, 150, "id-1", "", true},
		{"new records", dumped, 150, 151, 0, "id-1", "", false},
		{"log end went back", dumped, 150, 140, 0, "id-1", "", false},
		{"truncated and written again to the same end", dumped, 120, 150, 0, "id-1", "", false},
		{"epoch unknown to the leader", dumped, -1, 150, 0, "id-1", "", false},
		{"topic made again to the same end", dumped, 150, 150, 0, "id-2", "", false},
		{"--until an offset", dumped, 150, 150, 0, "id-1", "100", false},
		{"never dumped, empty", func() *catalog.Manifest { return &catalog.Manifest{Topic: "t", NextOffset: -1} }, -2, 0, 0, "id-1", "", false},
		{"dumped empty, still empty", func() *catalog.Manifest { return &catalog.Manifest{Topic: "t", NextOffset: 0} }, -2, 0, 0, "id-1", "", true},
		{"all lost, nothing new", func() *catalog.Manifest {
			return &catalog.Manifest{Topic: "t", NextOffset: 10, Lost: []catalog.LostRange{{Kind: catalog.LostBeforeFirst, From: 0, To: 9}}}
		}, -2, 10, 10, "id-1", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m()
			epochs := map[int32]epochEnd{}
			if tc.epochEnd != -2 {
				epochs[0] = epochEnd{epoch: epoch, end: tc.epochEnd}
			} else if len(m.Files) > 0 {
				m.Files[0].LastLeaderEpoch = nil
			}
			c := &cut{id: "s", asOf: time.Unix(0, 0), starts: map[int32]int64{0: tc.ls}, ends: map[int32]int64{0: tc.hwm},
				state: &catalog.ClusterSnapshot{TopicID: tc.topicID, Partitions: []catalog.PartitionState{{LeaderEpoch: 5}}}}
			d := &dumper{opts: Options{Until: tc.until}}
			if got := d.idle(c, m, epochs); got != tc.want {
				t.Fatalf("idle = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTopicMadeAgainWithFewerPartitions: a topic deleted and made again with
// fewer partitions leaves the folder holding its old partition 1, which the
// new topic lacks. The next dump records it as a rewrite of kind
// topic-recreated (its files superseded), so the current views hold only
// the new topic's records; before, the old partition stayed current and a
// restore mixed it into the new topic.
func TestTopicMadeAgainWithFewerPartitions(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 2, nil)
	p := producer(t, brokers)
	for i := range 10 {
		produce(t, p, &kgo.Record{Topic: topic, Partition: int32(i % 2), Value: []byte(fmt.Sprintf("old-%d", i))})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
	if s, err := Run(ctx, opts); err != nil || s.Records != 10 {
		t.Fatalf("first dump: %v %v", s, err)
	}
	dumptest.RemakeTopic(t, brokers, topic, 1)
	p2 := producer(t, brokers)
	for i := range 7 {
		produce(t, p2, &kgo.Record{Topic: topic, Value: []byte(fmt.Sprintf("new-%d", i))})
	}
	s, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rewrites != 2 || s.RewrittenOffsets != 10 || s.Records != 7 {
		t.Fatalf("dump after the topic was made again with 1 partition: %v, want 2 rewrites (both old partitions), 10 offsets, 7 records", s)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(ctx, catalog.TopicPartition{Topic: topic, Partition: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 0 || len(m.Superseded) != 1 || len(m.Rewrites) != 1 || m.Rewrites[0].Kind != catalog.RewriteRecreated {
		t.Fatalf("old partition 1: files %+v, superseded %+v, rewrites %+v; want its file superseded by a topic-recreated rewrite", m.Files, m.Superseded, m.Rewrites)
	}
	rows := readAllRows(t, dir, topic)
	if len(rows[1]) != 0 || len(rows[0]) != 7 || string(rows[0][0].Value) != "new-0" {
		t.Fatalf("current rows: partition 0 %d, partition 1 %d; want the new topic's 7 in partition 0 alone", len(rows[0]), len(rows[1]))
	}
	// Again: nothing more to supersede.
	if s, err := Run(ctx, opts); err != nil || s.Rewrites != 0 {
		t.Fatalf("third dump: %v %v, want no rewrite", s, err)
	}
}
