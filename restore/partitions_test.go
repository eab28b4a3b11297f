package restore

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWaitPartitions: after a producer's first record, waitPartitions
// returns once the client has loaded the topic's partitions (so the
// records after it are partitioned at once instead of being kept as
// records of a topic not yet known), and within its bound when the topic
// never loads.
func TestWaitPartitions(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, tc := range []struct {
		name  string
		topic string
		known bool
	}{
		{"a topic that exists", "t", true},
		{"a topic that never does", "never", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if leader, _, _ := cl.PartitionLeader(tc.topic, 2); leader >= 0 {
				t.Fatal("the partitions are known before any record: the test proves nothing")
			}
			cl.Produce(t.Context(), &kgo.Record{Topic: tc.topic, Partition: 2, Value: []byte("v")}, func(*kgo.Record, error) {})
			start := time.Now()
			waitPartitions(t.Context(), cl, tc.topic, 2)
			took := time.Since(start)
			leader, _, _ := cl.PartitionLeader(tc.topic, 2)
			if tc.known && leader < 0 {
				t.Errorf("waitPartitions returned after %v with partition 2's leader unknown", took)
			}
			if took > partitionsWait+250*time.Millisecond {
				t.Errorf("waitPartitions took %v, bound %v", took, partitionsWait)
			}
		})
	}
}
