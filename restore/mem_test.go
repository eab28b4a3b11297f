package restore

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRecycledBatchesKeepEveryByte: the memory of a batch (its records
// and the chunks its keys, values and header values were copied into)
// goes back to the readers once every record of it was acknowledged, and
// is then filled with other batches: the target, read committed, holds
// each source record with its own key, value, headers and timestamp, in
// source order, across many batches of each partition, values larger
// than a chunk, empty and null ones included.
func TestRecycledBatchesKeepEveryByte(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "src"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	brokers := c.ListenAddrs()
	const n = 60000
	var recs []*kgo.Record
	for i := range n {
		r := &kgo.Record{Topic: "src", Partition: int32(i % 2), Key: fmt.Appendf(nil, "k%d", i),
			Value:     fmt.Appendf(nil, `{"i":%d,"pad":"%s"}`, i, bytes.Repeat([]byte{'a' + byte(i%26)}, i%300)),
			Timestamp: time.UnixMilli(1_700_000_000_000 + int64(i))}
		switch {
		case i%997 == 0:
			r.Value = bytes.Repeat(fmt.Appendf(nil, "%d-", i), 70<<10/6) // more than a chunk
		case i%501 == 0:
			r.Value = nil
		case i%499 == 0:
			r.Value = []byte{}
		}
		if i%7 == 0 {
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: fmt.Appendf(nil, "hv%d", i)}}
		}
		recs = append(recs, r)
	}
	dumptest.Produce(t, dumptest.Producer(t, brokers, kgo.ProducerBatchMaxBytes(1<<20)), recs...)
	dir := t.TempDir()
	if _, err := dump.Run(t.Context(), dump.Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"src"}, FileRows: 5000}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topic: "src", ToTopic: "dst", TxnRecords: 4000})
	if err != nil {
		t.Fatal(err)
	}
	if s.Records != n {
		t.Fatalf("restored %d records, want %d", s.Records, n)
	}
	rc, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics("dst"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxBytes(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	next := map[int32]int{0: 0, 1: 1} // the source index each partition holds next
	got := 0
	for got < n && ctx.Err() == nil {
		rc.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			got++
			i := next[r.Partition]
			next[r.Partition] = i + 2
			if i >= n {
				t.Fatalf("partition %d holds more records than the source", r.Partition)
			}
			w := recs[i]
			if !bytes.Equal(r.Key, w.Key) || !bytes.Equal(r.Value, w.Value) || (r.Value == nil) != (w.Value == nil) || !r.Timestamp.Equal(w.Timestamp) || len(r.Headers) != len(w.Headers) {
				t.Fatalf("partition %d record %d: key %q, %d value bytes (nil %v), time %v, %d headers; want the source's %q, %d (nil %v), %v, %d",
					r.Partition, i/2, r.Key, len(r.Value), r.Value == nil, r.Timestamp, len(r.Headers), w.Key, len(w.Value), w.Value == nil, w.Timestamp, len(w.Headers))
			}
			for j := range w.Headers {
				if r.Headers[j].Key != w.Headers[j].Key || !bytes.Equal(r.Headers[j].Value, w.Headers[j].Value) {
					t.Fatalf("partition %d record %d: header %d is %q=%q, want %q=%q", r.Partition, i/2, j, r.Headers[j].Key, r.Headers[j].Value, w.Headers[j].Key, w.Headers[j].Value)
				}
			}
		})
	}
	if got != n {
		t.Fatalf("read %d committed records, want %d", got, n)
	}
}
