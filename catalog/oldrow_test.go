package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// oldRow is Row as files written before value_decoded and
// value_decode_error hold it.
type oldRow struct {
	Partition     int32    `parquet:"partition,delta"`
	Offset        int64    `parquet:"offset,delta"`
	Timestamp     int64    `parquet:"timestamp,timestamp(millisecond),delta"`
	TimestampType string   `parquet:"timestamp_type,dict"`
	Key           []byte   `parquet:"key,optional"`
	Value         []byte   `parquet:"value,optional"`
	Headers       []Header `parquet:"headers,list"`
	LeaderEpoch   int32    `parquet:"leader_epoch,delta"`
	ProducerID    int64    `parquet:"producer_id,delta"`
	ProducerEpoch int32    `parquet:"producer_epoch,delta"`
	Transactional bool     `parquet:"is_transactional"`
	Control       bool     `parquet:"is_control"`
	ControlType   *string  `parquet:"control_type,optional,dict"`
	TxnState      *string  `parquet:"txn_state,optional,dict"`
	SchemaID      *int32   `parquet:"schema_id,optional"`
}

// TestFilesWithoutDecodedColumnsStillRead: a file written before the
// decoded value's columns existed reads with them null (restore scans it).
func TestFilesWithoutDecodedColumnsStillRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "0-1.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[oldRow](f)
	id := int32(7)
	if _, err := w.Write([]oldRow{{Offset: 0, Value: []byte("a")}, {Offset: 1, Value: []byte{0, 0, 0, 0, 7, 1}, SchemaID: &id}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var got []Row
	if err := ScanDataFile(context.Background(), path, 10, func(rs []Row) error { got = append(got, rs...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0].Value) != "a" || got[1].SchemaID == nil || *got[1].SchemaID != 7 || got[1].ValueDecoded != nil || got[1].ValueDecodeError != nil ||
		got[1].KeySchemaID != nil || got[1].KeyDecoded != nil || got[1].KeyDecodeError != nil {
		t.Fatalf("rows: %+v", got)
	}
}
