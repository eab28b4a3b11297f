package segments_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/consumeroffsets"
	"github.com/topicsnap/topicsnap/segments"
)

// TestImportBrokerConsumerOffsets: the broker's __consumer_offsets
// segments import as that topic dumps (the group views decode those rows):
// a group's commit made here is in them, and every row a dump of the topic
// read is equal in the import. The topic is shared: other tests may commit
// between the dump and the import, so only the dump's offsets are compared.
func TestImportBrokerConsumerOffsets(t *testing.T) {
	brokers, data := brokerEnv(t)
	topic := fmt.Sprintf("ts-import-groups-%d", time.Now().UnixNano())
	group := topic + "-group"
	createTopic(t, brokers, topic, 1, nil)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var offs kadm.Offsets
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 4242, LeaderEpoch: -1, Metadata: "import test"})
	// A topic just created may not be known to the coordinator yet.
	for try := 0; ; try++ {
		err := adm.CommitAllOffsets(t.Context(), group, offs)
		if err == nil {
			break
		}
		if try == 50 {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // polling the broker
	}
	dumpDir, impDir := t.TempDir(), t.TempDir()
	dumpTopic(t, brokers, "__consumer_offsets", dumpDir)
	folders, _ := filepath.Glob(filepath.Join(data, "__consumer_offsets-*"))
	if len(folders) == 0 {
		t.Fatalf("no __consumer_offsets folder in %s", data)
	}
	sum, err := segments.Import(t.Context(), segments.Options{Dir: impDir, Paths: folders})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(sum)
	found, compared := false, 0
	for _, f := range folders {
		var p int32
		fmt.Sscanf(filepath.Base(f), "__consumer_offsets-%d", &p)
		tp := catalog.TopicPartition{Topic: "__consumer_offsets", Partition: p}
		_, drows := readRows(t, dumpDir, tp)
		_, irows := readRows(t, impDir, tp)
		byOffset := map[int64]catalog.Row{}
		for _, r := range irows {
			byOffset[r.Offset] = r
			if r.Control {
				continue
			}
			rec, err := consumeroffsets.Decode(r.Key, r.Value)
			if err == nil && rec.Group == group && rec.Commit != nil && rec.Topic == topic && rec.Commit.Offset == 4242 {
				found = true
			}
		}
		for _, d := range drows {
			i, ok := byOffset[d.Offset]
			if !ok {
				t.Fatalf("%s offset %d: dumped, not imported", tp, d.Offset)
			}
			if a, b := rowText(d), rowText(i); a != b {
				t.Fatalf("%s offset %d:\ndump   %s\nimport %s", tp, d.Offset, a, b)
			}
			compared++
		}
	}
	if !found || compared == 0 {
		t.Fatalf("group %s's commit found: %v; %d rows compared", group, found, compared)
	}
}
