package dump

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// A flag must never put into the catalog what Kafka did not say: options
// that would (a negative offset recorded as deleted, a range that ends
// before it starts, partitions the topic does not have, a --follow that
// --until cannot stop) are refused before anything is written.
func TestOptionsThatWouldWriteFalseHistoryAreRefused(t *testing.T) {
	brokers := testCluster(t)
	topic := newTopic(t, brokers, 3, nil)
	produce(t, producer(t, brokers), &kgo.Record{Topic: topic, Partition: 0, Value: []byte("a")})
	cases := []struct {
		name string
		mod  func(*Options)
		text []string // all in the error
	}{
		{"negative from", func(o *Options) { o.From = "-5" }, []string{"--from -5", "earliest"}},
		{"negative until", func(o *Options) { o.Until = "-1" }, []string{"--until -1", "now"}},
		{"from past until", func(o *Options) { o.From, o.Until = "9", "5" }, []string{"--from 9", "--until 5"}},
		{"from at until", func(o *Options) { o.From, o.Until = "5", "5" }, []string{"--from 5", "--until 5"}},
		{"from time past until time", func(o *Options) { o.From, o.Until = "2026-09-14T10:00:00Z", "2026-09-14T09:00:00Z" },
			[]string{"--from 2026-09-14T10:00:00Z", "--until 2026-09-14T09:00:00Z"}},
		{"a partition the topic lacks", func(o *Options) { o.Partitions = "0,7" }, []string{"--partitions", "7", topic, "0-2"}},
		{"only partitions the topic lacks", func(o *Options) { o.Partitions = "3-4" }, []string{"--partitions", "3, 4", topic}},
		{"follow with until", func(o *Options) { o.Follow, o.Until = true, "100" }, []string{"--follow", "--until 100"}},
		{"from past the end", func(o *Options) { o.From = "5" }, []string{"--from 5 is past the end of", topic + "/0 (end offset 1)", topic + "/1 (end offset 0)"}},
		{"from past the end of the partitions asked", func(o *Options) { o.From, o.Partitions = "1", "1-2" }, []string{"--from 1", topic + "/1 (end offset 0)", topic + "/2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "snaps")
			o := Options{Conn: kafkaconn.Conn{Brokers: brokers}, Dir: dir, Topics: []string{topic}}
			c.mod(&o)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := Run(ctx, o)
			if !errors.Is(err, kafkaconn.ErrBadOption) {
				t.Fatalf("got %v, want ErrBadOption", err)
			}
			for _, s := range c.text {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
				t.Fatalf("refused, yet %s was created (%v)", dir, serr)
			}
		})
	}
}

// --topic and --topic-regex add up: a regex that matches only topics also
// named with --topic still matches.
func TestTopicAndTopicRegexAreAUnion(t *testing.T) {
	brokers := testCluster(t)
	a := newTopic(t, brokers, 1, nil)
	b := newTopic(t, brokers, 1, nil)
	p := producer(t, brokers)
	produce(t, p, &kgo.Record{Topic: a, Value: []byte("a")}, &kgo.Record{Topic: b, Value: []byte("b")})
	cases := []struct {
		name   string
		topics []string
		regex  string
		want   []string
	}{
		{"regex matches only the named topic", []string{a}, "^" + a + "$", []string{a}},
		{"regex matches the named one and another", []string{a}, "^(" + a + "|" + b + ")$", []string{a, b}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := dumpOnce(t, brokers, dir, "", func(o *Options) { o.Topics, o.TopicRegex = c.topics, c.regex })
			if s.Records != int64(len(c.want)) {
				t.Fatalf("dumped %d records, want %d", s.Records, len(c.want))
			}
			d, _ := catalog.Open(dir)
			got, _ := d.Topics(t.Context()) // sorted by name; the topics' names end in random numbers
			want := slices.Sorted(slices.Values(c.want))
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("topics %v, want %v", got, want)
			}
		})
	}
}

// A SASL client meeting a listener without SASL is told so, not "cannot
// reach the cluster: EOF".
func TestSASLOnAPlaintextListenerIsNamed(t *testing.T) {
	brokers := testCluster(t) // kfake, or the real broker's PLAINTEXT listener: no SASL
	topic := newTopic(t, brokers, 1, nil)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "client.properties")
	os.WriteFile(cfg, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.username=u\nsasl.password=hunter2\n"), 0o600)
	_, err := Run(context.Background(), Options{Conn: kafkaconn.Conn{Brokers: brokers, ConfigFile: cfg, DialTimeout: 5 * time.Second},
		Dir: filepath.Join(dir, "snaps"), Topics: []string{topic}})
	if !errors.Is(err, kafkaconn.ErrSASLMismatch) || !strings.Contains(err.Error(), "SASL") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("got %v, want kafkaconn.ErrSASLMismatch", err)
	}
}
