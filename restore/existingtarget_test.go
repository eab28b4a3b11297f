package restore

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
)

// TestExistingTargetGetsNoCreateWarnings: a restore into a topic that
// already exists creates nothing, so it says nothing of how it would create
// one ("retention.ms=… is copied from the source … create the target
// yourself"): the user did create it, with their own configs. A restore
// into a missing topic still warns.
func TestExistingTargetGetsNoCreateWarnings(t *testing.T) {
	brokers := dumptest.Brokers(t)
	hour := "3600000"
	topic := dumptest.NewTopic(t, brokers, 1, map[string]*string{"retention.ms": &hour})
	p := dumptest.Producer(t, brokers)
	// Two hours old: older than the source's retention.ms.
	dumptest.Produce(t, p, &kgo.Record{Topic: topic, Value: []byte("old"), Timestamp: time.Now().Add(-2 * time.Hour)})
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, topic)

	const copied = "is copied from the source"
	week := "604800000"
	existing := dumptest.NewTopic(t, brokers, 1, map[string]*string{"retention.ms": &week})
	var w warnings
	restoreOnce(t, brokers, dir, topic, existing, func(o *Options) { o.Progress = &w })
	if s := strings.Join(w.said, "\n"); strings.Contains(s, copied) {
		t.Errorf("a restore into existing topic %s warned of configs it would create: %s", existing, s)
	}

	var w2 warnings
	restoreOnce(t, brokers, dir, topic, topic+"-created", func(o *Options) { o.Progress = &w2 })
	if s := strings.Join(w2.said, "\n"); !strings.Contains(s, copied) {
		t.Errorf("a restore that creates its target did not warn of the retention it copies: %q", w2.said)
	}
}
