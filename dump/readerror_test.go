package dump

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestReadErrorNeverCompletesAPartition: a read that stops with an error on
// one partition (here the broker refuses it mid-way) ends the dump with that
// error, and no partition is recorded as dumped to the cut's end past what
// was read: its manifest's next offset is where reading stopped, and its
// offsets past it are neither stored nor said lost.
func TestReadErrorNeverCompletesAPartition(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 200
	for i := range n {
		for p := range int32(2) {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Partition: p, Value: fmt.Appendf(nil, "record %d of partition %d, padded to some size ...................................", i, p)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	cl.Close()
	// Partition 1 is refused once its reader passed offset 50.
	var refused atomic.Bool
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		for _, tp := range fr.Topics {
			for _, p := range tp.Partitions {
				if p.Partition == 1 && p.FetchOffset > 50 {
					refused.Store(true)
					resp := fr.ResponseKind().(*kmsg.FetchResponse)
					refuseFetch(resp, tp, kerr.TopicAuthorizationFailed.Code, 1)
					return resp, nil, true
				}
			}
		}
		return nil, nil, false
	})
	dir := t.TempDir()
	_, err = Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}, FetchMaxBytes: 1024})
	if !refused.Load() {
		t.Fatal("the fault was never injected: the test proves nothing")
	}
	if err == nil {
		t.Fatal("dump succeeded though partition 1 was refused mid-way")
	}
	if !errors.Is(err, kafkaconn.ErrAuthorization) {
		t.Errorf("dump error %v, want the broker's refusal (kafkaconn.ErrAuthorization)", err)
	}
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := d.Manifests(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	rows := readAllRows(t, dir, "t")
	for _, m := range ms {
		stored := int64(len(rows[m.Partition]))
		var lost int64
		for _, l := range m.Lost {
			lost += l.To - l.From + 1
		}
		if stored+lost != m.NextOffset {
			t.Errorf("partition %d: next offset %d, but %d stored and %d said lost: %d offsets claimed dumped that were not read",
				m.Partition, m.NextOffset, stored, lost, m.NextOffset-stored-lost)
		}
		if m.Partition == 1 {
			for _, s := range m.Snapshots {
				if s.Complete && s.Until > stored {
					t.Errorf("partition 1: snapshot %s recorded complete to %d with only %d records read", s.ID, s.Until, stored)
				}
			}
		}
	}
}

// TestBatchPastTheDecompressionBoundCostsItsPartition: a batch that
// compresses to a few KiB (so the broker takes it) and decompresses past
// the bound stops its partition at the batch, with an error naming it,
// while the other partition is dumped to the cut's end; nothing hangs,
// nothing past the batch is claimed, and a run with a larger bound
// resumes at the batch and takes it whole.
func TestBatchPastTheDecompressionBoundCostsItsPartition(t *testing.T) {
	brokers := dumptest.Brokers(t)
	topic := dumptest.NewTopic(t, brokers, 2, map[string]*string{"max.message.bytes": kadm.StringPtr("1048576")})
	cl := dumptest.Producer(t, brokers, kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerBatchMaxBytes(64<<20), kgo.MaxBufferedBytes(256<<20), kgo.ProducerLinger(0))
	for i := range 5 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: 0, Value: fmt.Appendf(nil, "small %d", i)},
			&kgo.Record{Topic: topic, Partition: 1, Value: fmt.Appendf(nil, "small %d", i)})
	}
	bomb := make([]byte, 8<<20) // zeros: a few KiB with zstd
	dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: 0, Key: []byte("bomb"), Value: bomb})
	for i := range 3 {
		dumptest.Produce(t, cl, &kgo.Record{Topic: topic, Partition: 0, Value: fmt.Appendf(nil, "after %d", i)},
			&kgo.Record{Topic: topic, Partition: 1, Value: fmt.Appendf(nil, "after %d", i)})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}, MaxDecompressedBytes: 4 << 20}
	_, err := Run(ctx, opts)
	if ctx.Err() != nil {
		t.Fatal("the dump hung at the batch past the bound")
	}
	var big *BatchTooLargeError
	if !errors.As(err, &big) {
		t.Fatalf("dump error %v, want a BatchTooLargeError", err)
	}
	if big.TP.Partition != 0 || big.Offset != 5 {
		t.Errorf("error names %s at offset %d, want partition 0 at offset 5", big.TP, big.Offset)
	}
	if code, hint := exit.Of(err); code != exit.Error || !strings.Contains(hint, "--max-decompressed-bytes") {
		t.Errorf("exit %d, hint %q: want 2 and a hint naming --max-decompressed-bytes", code, hint)
	}
	next := func() map[int32]int64 {
		d, err := catalog.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := d.Manifests(ctx, topic)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int32]int64{}
		for _, m := range ms {
			out[m.Partition] = m.NextOffset
		}
		return out
	}
	if got := next(); got[0] != 5 || got[1] != 8 {
		t.Errorf("next offsets %v, want partition 0 at the batch (5) and partition 1 at its end (8)", got)
	}
	if rows := readAllRows(t, dir, topic); len(rows[0]) != 5 || len(rows[1]) != 8 {
		t.Errorf("stored %d and %d records, want 5 and 8", len(rows[0]), len(rows[1]))
	}
	opts.MaxDecompressedBytes = 64 << 20
	if _, err := Run(ctx, opts); err != nil {
		t.Fatalf("the dump with a larger bound: %v", err)
	}
	rows := readAllRows(t, dir, topic)
	if len(rows[0]) != 9 || !bytes.Equal(rows[0][5].Value, bomb) || string(rows[0][5].Key) != "bomb" {
		t.Errorf("after the larger bound: %d records in partition 0, want 9 with the batch's record whole at offset 5", len(rows[0]))
	}
}

// TestATopicsFailureCostsThatTopic: in a dump of several topics, a topic
// the broker refuses mid-way costs that topic: every other topic is dumped
// to its cut's end (before, the first failure stopped the topics not yet
// started, leaving them to retention), and the run fails naming the topic,
// with the refusal's exit code. With --follow the other topics are
// followed on.
func TestATopicsFailureCostsThatTopic(t *testing.T) {
	names := make([]string, 80) // more than topicsAtOnce: some start after the failure
	for i := range names {
		names[i] = fmt.Sprintf("t%02d", i)
	}
	for _, follow := range []bool{false, true} {
		t.Run(fmt.Sprintf("follow=%v", follow), func(t *testing.T) {
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, names...))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			brokers := c.ListenAddrs()
			cl := dumptest.Producer(t, brokers)
			for _, n := range names {
				dumptest.Produce(t, cl, &kgo.Record{Topic: n, Value: []byte("a")}, &kgo.Record{Topic: n, Value: []byte("b")})
			}
			const refused = "t00"
			refusedID := c.TopicInfo(refused).TopicID
			c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				fr := req.(*kmsg.FetchRequest)
				for _, tp := range fr.Topics {
					if tp.Topic != refused && tp.TopicID != refusedID {
						continue
					}
					resp := fr.ResponseKind().(*kmsg.FetchResponse)
					refuseFetch(resp, tp, kerr.TopicAuthorizationFailed.Code)
					return resp, nil, true
				}
				return nil, nil, false
			})
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			opts := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, TopicRegex: "^t"}
			w := &waitLog{}
			warned := func() bool {
				w.mu.Lock()
				defer w.mu.Unlock()
				for _, s := range w.said {
					if strings.Contains(s, refused) && strings.Contains(s, "not authorized") {
						return true
					}
				}
				return false
			}
			if follow {
				opts.Follow, opts.Interval, opts.Progress = true, 50*time.Millisecond, w
			}
			done := make(chan error, 1)
			go func() { _, err := Run(ctx, opts); done <- err }()
			dumped := func() (n int) {
				d, err := catalog.Open(dir)
				if err != nil {
					return 0
				}
				for _, name := range names[1:] {
					ms, err := d.Manifests(ctx, name)
					if err == nil && len(ms) == 1 && ms[0].NextOffset == 2 {
						n++
					}
				}
				return n
			}
			if follow {
				for dumped() < len(names)-1 || !warned() {
					select {
					case err := <-done:
						t.Fatalf("follow ended with %v", err)
					case <-ctx.Done():
						t.Fatal("the other topics were not all dumped, or t00's failure not said, within 60s")
					case <-time.After(50 * time.Millisecond):
					}
				}
				cancel()
				if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
					t.Fatalf("follow ended with %v", err)
				}
				if !warned() {
					t.Error("the follow never said that t00 failed")
				}
			} else {
				err := <-done
				if !errors.Is(err, kafkaconn.ErrAuthorization) || !strings.Contains(err.Error(), refused) {
					t.Errorf("dump error %v, want the refusal of %s", err, refused)
				}
			}
			if n := dumped(); n != len(names)-1 {
				t.Errorf("%d of the %d other topics dumped to their end", n, len(names)-1)
			}
		})
	}
}

// TestFollowOfOnlyFailingTopicsStops: a follow whose every topic fails on
// its own would dump nothing: it stops with the failure.
func TestFollowOfOnlyFailingTopicsStops(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "only"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	brokers := c.ListenAddrs()
	dumptest.Produce(t, dumptest.Producer(t, brokers), &kgo.Record{Topic: "only", Value: []byte("a")})
	c.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		fr := req.(*kmsg.FetchRequest)
		resp := fr.ResponseKind().(*kmsg.FetchResponse)
		for _, tp := range fr.Topics {
			refuseFetch(resp, tp, kerr.TopicAuthorizationFailed.Code)
		}
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: t.TempDir(), Topics: []string{"only"}, Follow: true, Interval: 50 * time.Millisecond, Progress: &waitLog{}})
	if ctx.Err() != nil {
		t.Fatal("the follow went on though its only topic fails")
	}
	if !errors.Is(err, kafkaconn.ErrAuthorization) {
		t.Errorf("follow ended with %v, want the refusal", err)
	}
}

// refuseFetch adds to resp an answer for tp in which each of partitions
// (every partition tp asks for, when none is named) has the error code.
func refuseFetch(resp *kmsg.FetchResponse, tp kmsg.FetchRequestTopic, code int16, partitions ...int32) {
	if len(partitions) == 0 {
		for _, p := range tp.Partitions {
			partitions = append(partitions, p.Partition)
		}
	}
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic, rt.TopicID = tp.Topic, tp.TopicID
	for _, p := range partitions {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition = p
		rp.ErrorCode = code
		rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = -1, -1, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	resp.Topics = append(resp.Topics, rt)
}
