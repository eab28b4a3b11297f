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

// TestEndBelowWhatWasReadIsRecorded: while a partition is read, fetches
// past offset 60 bring nothing, or OFFSET_OUT_OF_RANGE, and the leader
// lists its log's end at 20, below what was read (a truncation the client
// was not told of). The partition stops at what was read, and the offsets
// from 20 on are recorded at once as rewritten (end-moved-back), as a
// leader saying so mid-read is: it was a plain error ("its end offset went
// back ...; refusing to guess", "broker says out of range, yet its log
// starts at 0; refusing to guess"), the folder's checks saying nothing of
// them until the next run.
func TestEndBelowWhatWasReadIsRecorded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fetch int16 // what a fetch past offset 60 answers
	}{
		{"fetches empty", 0},
		{"fetches out of range", kerr.OffsetOutOfRange.Code},
	} {
		t.Run(tc.name, func(t *testing.T) { endBelowWhatWasRead(t, tc.fetch) })
	}
}

func endBelowWhatWasRead(t *testing.T, fetch int16) {
	defer func(d time.Duration) { stallCheck = d }(stallCheck)
	stallCheck = 500 * time.Millisecond
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
	var stalled atomic.Bool
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		for _, tp := range fr.Topics {
			for _, p := range tp.Partitions {
				if p.FetchOffset >= 60 {
					stalled.Store(true)
					resp := fr.ResponseKind().(*kmsg.FetchResponse)
					refuseFetch(resp, tp, fetch, p.Partition) // no records
					return resp, nil, true
				}
			}
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if !stalled.Load() {
			return nil, nil, false
		}
		r := req.(*kmsg.ListOffsetsRequest)
		resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, tp := range r.Topics {
			rt := kmsg.NewListOffsetsResponseTopic()
			rt.Topic = tp.Topic
			for _, p := range tp.Partitions {
				rp := kmsg.NewListOffsetsResponseTopicPartition()
				rp.Partition, rp.LeaderEpoch, rp.Offset = p.Partition, 0, 20
				if p.Timestamp == -2 {
					rp.Offset = 0
				}
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
	var hc *HistoryChangedError
	if !errors.As(err, &hc) || hc.EndsAt != 20 || hc.ReadTo < 60 {
		t.Fatalf("dump error %v, want a HistoryChangedError: the log ends at 20, below offset 60 or more read", err)
	}
	d, _ := catalog.Open(dir)
	ms, err := d.Manifests(ctx, "t")
	if err != nil || len(ms) != 1 {
		t.Fatalf("manifests %v, %v", ms, err)
	}
	if rw := ms[0].Rewrites; !hc.Recorded || len(rw) != 1 || rw[0].Kind != catalog.RewriteEndBack || rw[0].First != 20 || rw[0].Last != hc.ReadTo-1 {
		t.Errorf("rewrites %+v (recorded %v), want offsets 20 to %d recorded as end-moved-back", rw, hc.Recorded, hc.ReadTo-1)
	}
}
