package dump

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestCutWaitsForALeader: a partition between leaders when the cut is
// taken (an election, a rolling restart) is waited for: the dump goes on
// once it has a leader, where it failed the topic within a second; a
// partition whose leader never comes back fails the topic after the wait,
// naming it, with a hint, and nothing of the topic is written.
func TestCutWaitsForALeader(t *testing.T) {
	for _, tc := range []struct {
		name     string
		leaderIn time.Duration // when partition 1 gets its leader back; 0: never
	}{
		{"leader back after 1.5s", 1500 * time.Millisecond},
		{"leader never back", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(w time.Duration) { leaderWait = w }(leaderWait)
			leaderWait = 3 * time.Second
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			brokers := c.ListenAddrs()
			dumptest.Produce(t, dumptest.Producer(t, brokers), &kgo.Record{Topic: "t", Partition: 0, Value: []byte("a")}, &kgo.Record{Topic: "t", Partition: 1, Value: []byte("b")})
			start := time.Now()
			var refused atomic.Int32
			c.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
				c.KeepControl()
				if tc.leaderIn > 0 && time.Since(start) > tc.leaderIn {
					return nil, nil, false
				}
				refused.Add(1)
				r := req.(*kmsg.ListOffsetsRequest)
				resp := r.ResponseKind().(*kmsg.ListOffsetsResponse)
				for _, tp := range r.Topics {
					rt := kmsg.NewListOffsetsResponseTopic()
					rt.Topic = tp.Topic
					for _, p := range tp.Partitions {
						rp := kmsg.NewListOffsetsResponseTopicPartition()
						rp.Partition = p.Partition
						rp.ErrorCode = kerr.LeaderNotAvailable.Code
						rt.Partitions = append(rt.Partitions, rp)
					}
					resp.Topics = append(resp.Topics, rt)
				}
				return resp, nil, true
			})
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			dir := t.TempDir()
			s, err := Run(ctx, Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{"t"}, Progress: &waitLog{}})
			if refused.Load() == 0 {
				t.Fatal("no listing was refused: the test proves nothing")
			}
			if tc.leaderIn > 0 {
				if err != nil || s.Records != 2 {
					t.Fatalf("dumped %d records, error %v: want both records once the leader is back", s.Records, err)
				}
				return
			}
			var nl *NoLeaderError
			if !errors.As(err, &nl) || !errors.Is(err, kerr.LeaderNotAvailable) {
				t.Fatalf("dump error %v, want a NoLeaderError of LEADER_NOT_AVAILABLE", err)
			}
			if code, hint := exit.Of(err); code != exit.Error || hint == "" {
				t.Errorf("exit %d hint %q", code, hint)
			}
			if s.Records != 0 {
				t.Errorf("%d records dumped of a topic without a cut", s.Records)
			}
		})
	}
}
