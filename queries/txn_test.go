package queries

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/dump"
	"github.com/topicsnap/topicsnap/dump/dumptest"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestTransactionAbortedAfterTheCut: a snapshot taken while a transaction
// is open stores its records as "open"; the next snapshot brings the abort
// marker, and from then on the topic view leaves them out. Aborted records
// retried with the same ids are not duplicates.
func TestTransactionAbortedAfterTheCut(t *testing.T) {
	bs := brokers(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := fmt.Sprintf("txn-%d", time.Now().UnixNano())
	conn := kafkaconn.Conn{Brokers: bs}
	if err := dump.CreateTopic(ctx, conn, topic, 1, nil); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs...), kgo.TransactionalID("tx-"+topic), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	txn := func(ids []string, commit bool, between func()) {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf(`{"event_id":%q}`, id))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if between != nil {
			between()
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	snap := func() {
		if _, err := dump.Run(ctx, dump.Options{Conn: conn, Dir: dir, Topics: []string{topic}}); err != nil {
			t.Fatal(err)
		}
	}
	txn([]string{"a", "b"}, false, snap) // dumped while open, then aborted
	txn([]string{"a", "b"}, true, nil)   // the retry, committed
	dumptest.WaitStable(t, bs, topic)    // its marker is written after EndTransaction returns
	snap()
	e, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := query1(t, e, fmt.Sprintf(`SELECT string_agg(value.event_id || '@' || "offset", ',' ORDER BY "offset") FROM %s`, quoteIdent(topic))); got != "a@3,b@4" {
		t.Fatalf("topic view: %s", got)
	}
	d, err := e.RunCheck(ctx, "duplicates", CheckOptions{Topic: topic, ID: "value.event_id"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := e.RunCheck(ctx, "gaps", CheckOptions{Topic: topic})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("dups=%v aborted=%v control=%v missing=%v", d.Summary.Get("duplicate_ids"), g.Summary.Get("aborted_records"), g.Summary.Get("control_records"), g.Summary.Get("missing_offsets"))
	if got != "dups=0 aborted=2 control=2 missing=0" {
		t.Fatalf("%s (%s; %s)", got, d.Message, g.Message)
	}
}
