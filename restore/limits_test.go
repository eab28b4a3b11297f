package restore

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// g3Topics creates topics named g3-NAME-N on the test broker and deletes
// them, and the targets named after them (NAME-N-...), when the test ends.
type g3Topics struct {
	t       *testing.T
	adm     *kadm.Client
	mu      sync.Mutex
	created []string
}

func newG3Topics(t *testing.T, brokers []string) *g3Topics {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	g := &g3Topics{t: t, adm: kadm.NewClient(cl)}
	t.Cleanup(func() {
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := g.adm.DeleteTopics(ctx, g.created...); err != nil {
			t.Logf("delete topics %v: %v", g.created, err)
		}
	})
	return g
}

// name is a new topic name, deleted at the end.
func (g *g3Topics) name(what string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := fmt.Sprintf("g3-%s-%d", what, time.Now().UnixNano()%1e9)
	g.created = append(g.created, n)
	return n
}

// create makes a topic of partitions with configs and waits until it is
// served.
func (g *g3Topics) create(name string, partitions int32, configs map[string]string) {
	g.t.Helper()
	cs := map[string]*string{}
	for k, v := range configs {
		cs[k] = &v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := g.adm.CreateTopic(ctx, partitions, 1, cs, name)
	if err == nil {
		err = r.Err
	}
	if err != nil {
		g.t.Fatalf("create %s: %v", name, err)
	}
	for {
		td, err := g.adm.ListTopics(ctx, name)
		if err == nil && td[name].Err == nil && len(td[name].Partitions) == int(partitions) && td[name].Partitions[0].Leader >= 0 {
			return
		}
		select {
		case <-ctx.Done():
			g.t.Fatalf("topic %s not served: %v", name, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// configs is the value of each of keys of topic as the broker describes it.
func (g *g3Topics) configs(topic string) map[string]string {
	g.t.Helper()
	rc, err := g.adm.DescribeTopicConfigs(context.Background(), topic)
	if err != nil || len(rc) != 1 || rc[0].Err != nil {
		g.t.Fatalf("describe configs of %s: %v %v", topic, err, rc)
	}
	out := map[string]string{}
	for _, c := range rc[0].Configs {
		if c.Value != nil {
			out[c.Key] = *c.Value
		}
	}
	return out
}

// end is the end offset of topic's partition 0.
func (g *g3Topics) end(topic string) int64 {
	g.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ends, err := g.adm.ListEndOffsets(context.Background(), topic)
		if err == nil {
			if o, ok := ends.Lookup(topic, 0); ok && o.Err == nil {
				return o.Offset
			}
		}
		if time.Now().After(deadline) { // a topic created again is served a moment later
			g.t.Fatalf("end of %s: %v %v", topic, ends, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// warnings is a kafkaconn.Progress that keeps the warnings.
type warnings struct {
	mu   sync.Mutex
	said []string
}

func (w *warnings) Start(catalog.TopicPartition, int64, int64)   {}
func (w *warnings) Advance(catalog.TopicPartition, int64, int64) {}
func (w *warnings) Done(catalog.TopicPartition)                  {}
func (w *warnings) Waiting(string)                               {}
func (w *warnings) Warn(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.said = append(w.said, s)
}
func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.said, "\n")
}

// code is err's exit code.
func code(err error) exit.Code { c, _ := exit.Of(err); return c }

// runRestore runs a restore that may fail.
func runRestore(brokers []string, dir, topic, to string, mod ...func(*Options)) (Summary, error) {
	o := Options{Dir: dir, Topic: topic, ToTopic: to}
	o.Conn.Brokers = brokers
	for _, f := range mod {
		f(&o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	return Run(ctx, o)
}

// wantLimitError is a refusal of the target with exit 12 naming config,
// the record at offset of partition 0, and the config in its Try.
func wantLimitError(t *testing.T, err error, config string, offset int64) *LimitError {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrTarget) || code(err) != exit.Target {
		t.Fatalf("want a refusal of the target (exit 12) naming %s, got exit %d: %v", config, code(err), err)
	}
	if le.Config != config || le.Partition != 0 || le.Offset != offset || !strings.Contains(le.Error(), config) || !strings.Contains(le.Hint(), config+"=") {
		t.Fatalf("refusal names %s partition %d offset %d, want %s offset %d: %v; Try: %s", le.Config, le.Partition, le.Offset, config, offset, err, le.Hint())
	}
	return le
}

// TestRestoreLargeRecords: a record as large as the source's
// max.message.bytes allows (3 MiB, random so lz4 does not shrink it)
// restores into a new target; an existing target whose max.message.bytes
// is smaller is refused before anything is produced, and by a dry run,
// naming the record, the config and the value it needs.
func TestRestoreLargeRecords(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	g := newG3Topics(t, brokers)
	src := g.name("big")
	g.create(src, 1, map[string]string{"max.message.bytes": "20000000"})
	big := make([]byte, 3<<20)
	rand.Read(big)
	p := dumptest.Producer(t, brokers, kgo.ProducerBatchMaxBytes(16<<20))
	dumptest.Produce(t, p,
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("small"), Value: []byte("100 bytes")},
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("big"), Value: big},
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("after"), Value: []byte("small again")},
	)
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, src)
	want := committedRecords(t, dir, src)
	size := recordBatchBytes(&kgo.Record{Key: []byte("big"), Value: big})

	for _, tc := range []struct {
		name     string
		existing map[string]string // the target's configs, nil: restore creates it
		dryRun   bool
		refused  bool
	}{
		{name: "new target", existing: nil},
		{name: "existing target taking it", existing: map[string]string{"max.message.bytes": strconv.FormatInt(size, 10)}},
		{name: "existing target too small", existing: map[string]string{"max.message.bytes": "2000000"}, refused: true},
		{name: "existing target too small, dry run", existing: map[string]string{"max.message.bytes": "2000000"}, dryRun: true, refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := g.name("big-r")
			if tc.existing != nil {
				g.create(target, 1, tc.existing)
			}
			s, err := runRestore(brokers, dir, src, target, func(o *Options) { o.DryRun = tc.dryRun })
			if tc.refused {
				le := wantLimitError(t, err, "max.message.bytes", 1)
				if le.Size != size || le.Need != size || le.Value != 2000000 {
					t.Fatalf("refusal: %+v, want size %d", le, size)
				}
				if n := g.end(target); n != 0 {
					t.Fatalf("a refused restore produced: end offset %d", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			if s.Records != 3 {
				t.Fatalf("summary %+v", s)
			}
			compareRestored(t, want, committedRecords(t, dumpTarget(t, brokers, target), target))
		})
	}
}

// snapshotWithout removes keys from the configs of the folder's cluster
// snapshots of topic, as a dump older than their recording wrote them.
func snapshotWithout(t *testing.T, dir, topic string, keys ...string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "snapshots", "topic="+topic, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no cluster snapshot of %s in %s", topic, dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		cs, _ := m["configs"].(map[string]any)
		for _, k := range keys {
			delete(cs, k)
		}
		if b, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRestoreTimestampWindow: records far in the future (and far in the
// past) that the source took restore into a new target, whether the
// snapshot recorded the source's timestamp window or not; an existing
// target whose window refuses them is refused before anything is
// produced, and by a dry run, naming the record and the config.
func TestRestoreTimestampWindow(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	g := newG3Topics(t, brokers)
	src := g.name("ts")
	g.create(src, 1, map[string]string{"message.timestamp.after.max.ms": "9223372036854775807", "retention.ms": "-1"})
	future := time.Date(2250, 1, 1, 0, 0, 0, 0, time.UTC)
	p := dumptest.Producer(t, brokers)
	dumptest.Produce(t, p,
		&kgo.Record{Topic: src, Partition: 0, Value: []byte("1900"), Timestamp: time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)},
		&kgo.Record{Topic: src, Partition: 0, Value: []byte("now"), Timestamp: time.Now()},
		&kgo.Record{Topic: src, Partition: 0, Value: []byte("2250"), Timestamp: future},
	)
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, src)
	want := committedRecords(t, dir, src)
	// The same snapshot as a dump that did not record the window wrote it.
	old := t.TempDir()
	if err := os.CopyFS(old, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	snapshotWithout(t, old, src, "message.timestamp.after.max.ms", "message.timestamp.before.max.ms")

	for _, tc := range []struct {
		name     string
		dir      string
		existing map[string]string
		dryRun   bool
		refused  bool
	}{
		{name: "new target", dir: dir},
		{name: "new target, window not recorded", dir: old},
		{name: "existing target with the default window", dir: dir, existing: map[string]string{}, refused: true},
		{name: "existing target with the default window, dry run", dir: dir, existing: map[string]string{}, dryRun: true, refused: true},
		{name: "existing target with a wide window", dir: dir, existing: map[string]string{"message.timestamp.after.max.ms": "9223372036854775807"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := g.name("ts-r")
			if tc.existing != nil {
				g.create(target, 1, tc.existing)
			}
			w := &warnings{}
			s, err := runRestore(brokers, tc.dir, src, target, func(o *Options) { o.DryRun, o.Progress = tc.dryRun, w })
			if tc.refused {
				le := wantLimitError(t, err, "message.timestamp.after.max.ms", 2)
				if le.Timestamp != future.UnixMilli() || le.Need < future.UnixMilli()-time.Now().UnixMilli() {
					t.Fatalf("refusal: %+v", le)
				}
				if n := g.end(target); n != 0 {
					t.Fatalf("a refused restore produced: end offset %d", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("restore: %v (warnings: %s)", err, w)
			}
			if s.Records != 3 {
				t.Fatalf("summary %+v", s)
			}
			if tc.existing == nil {
				after, _ := strconv.ParseInt(g.configs(target)["message.timestamp.after.max.ms"], 10, 64)
				if after < future.UnixMilli()-time.Now().UnixMilli() {
					t.Fatalf("target created with message.timestamp.after.max.ms=%d", after)
				}
				if tc.dir == old && !strings.Contains(w.String(), "message.timestamp.after.max.ms") {
					t.Fatalf("the widened window was not said: %q", w)
				}
			}
			compareRestored(t, want, committedRecords(t, dumpTarget(t, brokers, target), target))
		})
	}
}

// TestRestoreIntoItsSource: a restore without --to-topic into the topic
// the snapshot was taken from, which still holds the records, is refused
// (exit 12, a dry run too) and writes nothing; naming the topic with
// --to-topic writes them again, with a warning; a topic deleted and
// created again under the same name is restored into as any other.
func TestRestoreIntoItsSource(t *testing.T) {
	if !dumptest.Real() {
		t.Skip("needs a real broker (TOPICSNAP_TEST_BROKERS)")
	}
	brokers := dumptest.Brokers(t)
	g := newG3Topics(t, brokers)
	src := g.name("oc")
	g.create(src, 1, nil)
	p := dumptest.Producer(t, brokers)
	dumptest.Produce(t, p,
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("k0"), Value: []byte("v0")},
		&kgo.Record{Topic: src, Partition: 0, Key: []byte("k1"), Value: []byte("v1")},
	)
	dir := t.TempDir()
	dumpOnce(t, brokers, dir, src)

	for _, tc := range []struct {
		name     string
		to       string
		dryRun   bool
		refused  bool
		recreate bool
		written  int64 // records added to the topic
	}{
		{name: "implicit", to: "", refused: true},
		{name: "implicit, dry run", to: "", dryRun: true, refused: true},
		{name: "named on purpose", to: src, written: 2},
		{name: "deleted and created again", to: "", recreate: true, written: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.recreate {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if _, err := g.adm.DeleteTopics(ctx, src); err != nil {
					t.Fatal(err)
				}
				for {
					if td, err := g.adm.ListTopics(ctx, src); err == nil && !td.Has(src) {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				for {
					r, err := g.adm.CreateTopic(ctx, 1, 1, nil, src)
					if err == nil && r.Err == nil {
						break
					}
					if ctx.Err() != nil {
						t.Fatalf("create %s again: %v %v", src, err, r.Err)
					}
					time.Sleep(200 * time.Millisecond)
				}
			}
			before := g.end(src)
			w := &warnings{}
			_, err := runRestore(brokers, dir, src, tc.to, func(o *Options) { o.DryRun, o.Progress = tc.dryRun, w })
			if tc.refused {
				var se *SameTopicError
				if !errors.As(err, &se) || code(err) != exit.Target || !strings.Contains(se.Hint(), "--to-topic") || se.From != 0 || se.Until != 2 {
					t.Fatalf("want a refusal (exit 12) of the source topic still holding offsets 0-1, got exit %d: %v", code(err), err)
				}
			} else if err != nil {
				t.Fatalf("restore: %v", err)
			}
			if got := g.end(src) - before; got < tc.written || got > tc.written+min(tc.written, 1) { // + a transaction marker
				t.Fatalf("%d offsets added to %s, want %d records", got, src, tc.written)
			}
			if tc.to == src && !strings.Contains(w.String(), "again") {
				t.Fatalf("no warning that the records are written again: %q", w)
			}
			if tc.recreate && strings.Contains(w.String(), "again") {
				t.Fatalf("a recreated topic warned: %q", w)
			}
		})
	}
}
