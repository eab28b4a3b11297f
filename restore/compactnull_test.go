package restore

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump/dumptest"
)

// TestRestoreRefusesNullKeysIntoCompacted: a compacted topic takes only
// records with a key. A source made compacted after records without a key
// were written (cleanup.policy changed from delete) holds them; a restore
// that would create its target with the source's cleanup.policy=compact, or
// into an existing compacted topic, is refused before anything is created
// or produced (exit 12, naming the record and the fix; a dry run too),
// not stopped half-way by the broker's INVALID_RECORD after it created the
// target; into a target that does not compact, every record is restored.
func TestRestoreRefusesNullKeysIntoCompacted(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS): a compacted topic refusing a record without a key")
	}
	brokers := dumptest.Brokers(t)
	g := newG3Topics(t, brokers)
	src := g.name("nullkey")
	g.create(src, 1, map[string]string{"cleanup.policy": "delete"})
	p := dumptest.Producer(t, brokers)
	dumptest.Produce(t, p,
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("k"), Value: []byte("keyed")},
		&kgo.Record{Topic: src, Partition: 0, Key: nil, Value: []byte("no key")},
		&kgo.Record{Topic: src, Partition: 0, Key: []byte{}, Value: []byte("empty key")},
	)
	compact := "compact"
	if _, err := g.adm.AlterTopicConfigs(context.Background(), []kadm.AlterConfig{{Name: "cleanup.policy", Value: &compact}}, src); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, src)

	for _, tc := range []struct {
		name     string
		existing map[string]string
		dryRun   bool
		refused  bool
	}{
		{name: "new target, created as the source (compact)", refused: true},
		{name: "new target, dry run", dryRun: true, refused: true},
		{name: "existing compacted target", existing: map[string]string{"cleanup.policy": "compact,delete"}, refused: true},
		{name: "existing target that deletes", existing: map[string]string{"cleanup.policy": "delete"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := g.name("nullkey-r")
			if tc.existing != nil {
				g.create(target, 1, tc.existing)
			}
			s, err := runRestore(brokers, dir, src, target, func(o *Options) { o.DryRun = tc.dryRun })
			if tc.refused {
				le := wantLimitError(t, err, "cleanup.policy", 1)
				if le.Count != 1 || le.Created != (tc.existing == nil) {
					t.Fatalf("refusal: %+v", le)
				}
				if tc.existing != nil {
					if n := g.end(target); n != 0 {
						t.Fatalf("a refused restore produced: end offset %d", n)
					}
					return
				}
				ts, err := g.adm.ListTopics(context.Background(), target)
				if err != nil {
					t.Fatal(err)
				}
				if ts.Has(target) {
					t.Fatalf("a refused restore created %s", target)
				}
				return
			}
			if err != nil || s.Records != 3 {
				t.Fatalf("restore into a target that deletes: %+v, %v", s, err)
			}
		})
	}
}
