package server

import (
	"context"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestTopicListOfATopicMadeAgainWithFewerPartitions: the server's topic
// list (GET /api/topics, the overview) says a topic deleted and made again
// with fewer partitions has today's count, and names the old topic's
// vanished partition as such, where it counted 2 partitions.
func TestTopicListOfATopicMadeAgainWithFewerPartitions(t *testing.T) {
	bs := dumptest.Brokers(t)
	name := dumptest.NewTopic(t, bs, 2, nil)
	p := dumptest.Producer(t, bs)
	for i := range 10 {
		dumptest.Produce(t, p, &kgo.Record{Topic: name, Partition: int32(i % 2), Value: fmt.Appendf(nil, "old-%d", i)})
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	opts := dump.Options{Conn: kafkaconn.Conn{Brokers: bs}, Dir: dir, Topics: []string{name}}
	if _, err := dump.Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	dumptest.RemakeTopic(t, bs, name, 1)
	p2 := dumptest.Producer(t, bs)
	for i := range 7 {
		dumptest.Produce(t, p2, &kgo.Record{Topic: name, Partition: 0, Value: fmt.Appendf(nil, "new-%d", i)})
	}
	if s, err := dump.Run(ctx, opts); err != nil || s.Rewrites != 2 {
		t.Fatalf("dump after the topic was made again: %+v %v", s, err)
	}
	_, ts := newTestServer(t, Options{Dir: dir})
	r := get(t, ts.URL+"/api/topics")
	if r.code != 200 || !strings.Contains(r.body, `"partitions":1,`) || !strings.Contains(r.body, `"old_partitions":[1]`) {
		t.Fatalf("GET /api/topics: %d %s", r.code, r.body)
	}
	r = get(t, ts.URL+"/")
	page := html.UnescapeString(r.body)
	if r.code != 200 || !strings.Contains(page, "<dt>partitions</dt><dd>1</dd>") ||
		!strings.Contains(page, `<dt>old topic's partitions</dt><dd>1 (the topic was deleted and made again with fewer partitions: their records are history, in the view "`+name+`$superseded")`) {
		t.Fatalf("GET /: %d\n%s", r.code, page)
	}
}
