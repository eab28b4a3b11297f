package dump

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestTruncationMidReadIsNeverDumpedTwice: a leader that answers, mid-read,
// that the log ends below what was read (an unclean election truncated it)
// has the client go back to that end; the records it reads again there
// must never be stored a second time beside the first: every offset is
// stored at most once, and the dump says the history changed.
func TestTruncationMidReadIsNeverDumpedTwice(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	cl := dumptest.Producer(t, brokers, kgo.ProducerLinger(0))
	for i := range 200 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: "t", Value: fmt.Appendf(nil, "record %d ..........................................", i)})
	}
	var fenced, answered atomic.Int32
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		for _, tp := range fr.Topics {
			for _, p := range tp.Partitions {
				if p.FetchOffset > 50 && fenced.Load() == 0 {
					fenced.Add(1)
					resp := fr.ResponseKind().(*kmsg.FetchResponse)
					refuseFetch(resp, tp, kerr.FencedLeaderEpoch.Code, p.Partition)
					return resp, nil, true
				}
			}
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.OffsetForLeaderEpoch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if fenced.Load() == 0 {
			return nil, nil, false
		}
		r := req.(*kmsg.OffsetForLeaderEpochRequest)
		resp := r.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
		for _, tp := range r.Topics {
			rt := kmsg.NewOffsetForLeaderEpochResponseTopic()
			rt.Topic = tp.Topic
			for _, p := range tp.Partitions {
				answered.Add(1)
				rp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
				rp.Partition = p.Partition
				rp.LeaderEpoch = p.LeaderEpoch
				rp.EndOffset = 20 // the log, says the leader, ends here for that epoch
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp, nil, true
	})
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	_, err = Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}, FetchMaxBytes: 1024, FileRows: 30})
	t.Logf("fenced %d, epoch answers %d, dump: %v", fenced.Load(), answered.Load(), err)
	if answered.Load() == 0 {
		t.Fatal("the client never asked where the epoch ends: the test proves nothing")
	}
	rows := readAllRows(t, dir, "t")
	seen := map[int64]int{}
	for _, r := range rows[0] {
		seen[r.Offset]++
	}
	for o, n := range seen {
		if n > 1 {
			t.Errorf("offset %d stored %d times", o, n)
		}
	}
	d, _ := catalog.Open(dir)
	ms, _ := d.Manifests(ctx, "t")
	for _, m := range ms {
		t.Logf("manifest: next offset %d, %d rows stored", m.NextOffset, len(rows[0]))
	}
	var hc *HistoryChangedError
	if !errors.As(err, &hc) || hc.EndsAt != 20 {
		t.Errorf("dump error %v, want a HistoryChangedError saying the log ends at 20", err)
	}
	if len(ms) != 1 || ms[0].NextOffset != int64(len(rows[0])) {
		t.Errorf("the manifest's next offset is not what was stored")
	}
	// What was read past the leader's end is recorded as rewritten at once
	// (kept, superseded), not left for the next run to find.
	if hc == nil || len(ms) != 1 {
		t.Fatalf("error %v, %d manifests", err, len(ms))
	}
	if rw := ms[0].Rewrites; !hc.Recorded || len(rw) != 1 || rw[0].First != 20 || rw[0].Last != hc.ReadTo-1 || rw[0].Kind != catalog.RewriteTruncated {
		t.Errorf("rewrites %+v (recorded %v), want offsets 20 to %d truncated", rw, hc.Recorded, hc.ReadTo-1)
	}
	// The next run, the leader answering as before, reads on from there.
	if _, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}}); err != nil {
		t.Fatalf("the next run: %v", err)
	}
	if rows := readAllRows(t, dir, "t"); len(rows[0]) != 200 {
		t.Errorf("the next run left %d records, want 200", len(rows[0]))
	}
}
