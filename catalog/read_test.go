package catalog

import (
	"context"
	"testing"
)

// TestCommittedDecidesOpenTransactionsFromLaterMarkers writes a partition
// whose first file leaves two transactions open (their markers are in the
// second file) and one that no file decides, and asks Committed of each row.
func TestCommittedDecidesOpenTransactionsFromLaterMarkers(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"tx", 0}
	m := &Manifest{Topic: "tx", Partition: 0, NextOffset: -1}
	first := []Row{
		{Offset: 0, Value: []byte("plain")},
		{Offset: 1, Transactional: true, ProducerID: 5, TxnState: strp(TxnOpen)},
		{Offset: 2, Transactional: true, ProducerID: 6, TxnState: strp(TxnOpen)},
		{Offset: 3, Transactional: true, ProducerID: 7, TxnState: strp(TxnOpen)},
		{Offset: 4, Transactional: true, ProducerID: 8, TxnState: strp(TxnAborted)},
	}
	second := []Row{
		{Offset: 5, Control: true, ProducerID: 5, ControlType: strp(ControlCommit), TxnState: strp(TxnCommitted)},
		{Offset: 6, Control: true, ProducerID: 6, ControlType: strp(ControlAbort), TxnState: strp(TxnAborted)},
		{Offset: 7, Transactional: true, ProducerID: 5, TxnState: strp(TxnCommitted)},
		{Offset: 8, Control: true, ProducerID: 5, ControlType: strp(ControlCommit), TxnState: strp(TxnCommitted)},
	}
	for _, rows := range [][]Row{first, second} {
		fe, err := d.WriteDataFile(t.Context(), tp, rows, "s")
		if err != nil {
			t.Fatal(err)
		}
		m.Files = append(m.Files, fe)
	}
	ms, err := d.ReadMarkers(context.Background(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	rows := append(append([]Row{}, first...), second...)
	for _, tc := range []struct {
		offset             int64
		committed, decided bool
	}{
		{0, true, true},   // outside a transaction
		{1, true, true},   // open in its file, committed at 5
		{2, false, true},  // open in its file, aborted at 6
		{3, false, false}, // open, and no file has its marker
		{4, false, true},  // aborted in its file
		{5, false, true},  // a marker
		{6, false, true},  // a marker
		{7, true, true},   // committed in its file
		{8, false, true},  // a marker
	} {
		row := rows[tc.offset]
		if row.Offset != tc.offset {
			t.Fatalf("fixture: row %d is offset %d", tc.offset, row.Offset)
		}
		c, dd := Committed(&row, ms)
		if c != tc.committed || dd != tc.decided {
			t.Errorf("offset %d: committed %v decided %v, want %v %v", tc.offset, c, dd, tc.committed, tc.decided)
		}
	}
}
