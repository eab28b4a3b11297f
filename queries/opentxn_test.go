package queries

import (
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestOpenTransactionIsNeverSettled: a dump taken while a transaction was
// open stores its records with txn_state 'open', and the views keep them
// until a later file holds their marker. Every check counted them as
// present and said OK ("OK gaps on otx2: 0 missing offsets", "OK
// duplicates: no id occurs twice among 8 records" with 3 of the 8 in a
// transaction Kafka then aborted). Each check that reads the records now
// says so (warn, open_transaction_records); once a later dump brought the
// abort marker, the records are aborted and nothing is said.
func TestOpenTransactionIsNeverSettled(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Now().Add(-time.Minute).UnixMilli()
	open, aborted := catalog.TxnOpen, catalog.TxnAborted
	abort := catalog.ControlAbort
	rec := func(off int64, pid int64, txn *string) catalog.Row {
		return catalog.Row{Partition: 0, Offset: off, Timestamp: ms + off, TimestampType: catalog.TimestampCreate, Key: []byte{byte('a' + off)},
			Value: []byte(`{"id":1}`), ProducerID: pid, Transactional: txn != nil, TxnState: txn}
	}
	first := []catalog.Row{rec(0, 1, nil), rec(1, 1, nil), rec(2, 7, &open), rec(3, 7, &open), rec(4, 2, nil)}
	fe, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "otx", Partition: 0}, first, "s1")
	if err != nil {
		t.Fatal(err)
	}
	m := &catalog.Manifest{Topic: "otx", Partition: 0, NextOffset: 5, Files: []catalog.FileEntry{fe}}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	snap := func(id string, hw int64) {
		t.Helper()
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: id, Topic: "otx", AsOf: time.Now().UTC(), PartitionCount: 1, ReplicationFactor: 1,
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: hw}}, Dumped: []int32{0}}); err != nil {
			t.Fatal(err)
		}
	}
	snap("s1", 5)
	check := func(wantOpen bool) {
		t.Helper()
		e, err := Open(t.Context(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for _, c := range Checks() {
			if c.Needs != nil && len(c.Needs(CheckOptions{})) > 0 {
				continue
			}
			r, err := e.RunCheck(t.Context(), c.Name, CheckOptions{Topic: "otx"})
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			said := strings.Contains(r.Message, "2 records of transactions still open at the last dump (partition 0 offsets 2-3)")
			switch {
			case c.Empty == EmptyStands: // lag reads the cuts' offsets, not the records
			case wantOpen && (r.Status == StatusOK || !said || r.Summary.Get("open_transaction_records") != int64(2)):
				t.Errorf("%s with 2 records of an open transaction: %s %q, open_transaction_records %v", c.Name, r.Status, r.Message, r.Summary.Get("open_transaction_records"))
			case !wantOpen && (said || r.Summary.Get("open_transaction_records") != nil):
				t.Errorf("%s after the abort marker: %q, open_transaction_records %v", c.Name, r.Message, r.Summary.Get("open_transaction_records"))
			}
		}
	}
	check(true)
	// The next dump reads the abort marker: the records are decided.
	marker := catalog.Row{Partition: 0, Offset: 5, Timestamp: ms + 5, TimestampType: catalog.TimestampCreate, ProducerID: 7, Transactional: true,
		Control: true, ControlType: &abort, TxnState: &aborted}
	fe2, err := d.WriteDataFile(t.Context(), catalog.TopicPartition{Topic: "otx", Partition: 0}, []catalog.Row{marker}, "s2")
	if err != nil {
		t.Fatal(err)
	}
	m.Files, m.NextOffset = append(m.Files, fe2), 6
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	snap("s2", 6)
	check(false)
}
