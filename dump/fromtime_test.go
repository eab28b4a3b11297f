package dump

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestFromTimeSaysDeletedRecordsMayBeInTheWindow: dump --from TIME of a
// partition whose first record at or after TIME is its log start, with
// offsets below it already deleted (retention, DeleteRecords), says that
// those may be records of the time asked too, rather than start at the log
// start without a word (as --from earliest records them as lost).
func TestFromTimeSaysDeletedRecordsMayBeInTheWindow(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	for range 10 {
		produce(t, p, &kgo.Record{Topic: topic, Value: []byte("v")})
	}
	adm := kadm.NewClient(p)
	var os kadm.Offsets
	os.Add(kadm.Offset{Topic: topic, Partition: 0, At: 6})
	if r, err := adm.DeleteRecords(t.Context(), os); err != nil || r.Error() != nil {
		t.Fatalf("delete records: %v %v", err, r.Error())
	}
	for _, tc := range []struct {
		name, from string
		warn       bool
	}{
		{"an hour ago: the deleted records are in the window", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), true},
		{"earliest: recorded as lost, not warned", "earliest", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &waitLog{}
			dir := t.TempDir()
			s := dumpOnce(t, brokers, dir, topic, func(o *Options) { o.From, o.Progress = tc.from, w })
			if s.Records != 4 {
				t.Fatalf("dumped %d records, want the 4 left", s.Records)
			}
			said := strings.Join(w.said, "\n")
			if got := strings.Contains(said, "Kafka already deleted offsets 0-5"); got != tc.warn {
				t.Errorf("warned %v, want %v: %q", got, tc.warn, said)
			}
		})
	}
}
